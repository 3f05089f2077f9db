package dev.mcpstdio.reliability;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Serve against slow and many clients, as a hostile peer meets it: the real launcher's
 * {@code serve} (a tiny sh child per session, or the demo with {@code --demo}) with
 * {@code --slow} clients of each kind — drip uploads (a POST declaring 8 MiB, then one byte a
 * second), drip heads (a request head, one byte a second) and idle connections (nothing sent) —
 * and then {@code --max-connections} + {@code --extra} idle connections, all held for
 * {@code --seconds} while a normal client, on a fresh connection each time, runs
 * {@code initialize} (then DELETE) and {@code GET /healthz} in a loop. With {@code --nofile N}
 * serve runs under {@code prlimit --nofile=N}, so that its file descriptors run out before the
 * connection cap is reached. Reports the normal client's statuses and p50/p99 latency, what each
 * kind of hostile connection got and when serve closed it, serve's peak RSS, file descriptors and
 * threads before, at peak and after, its log lines (stack-trace lines, accept failures), and
 * whether {@code /healthz} answers once the clients are gone. A benchmark, not a test: see
 * docs/reliability.md.
 *
 * <pre>bench/reliability.sh serve-clients --slow 32 --max-connections 128 --extra 64 --seconds 40
 * bench/reliability.sh serve-clients --nofile 256 --max-connections 1024 --extra 64</pre>
 */
public final class ServeClients {

  /** One hostile connection: what serve sent back first, and when it closed it. */
  static final class Held {
    final String kind;
    final long opened = System.nanoTime();
    volatile Socket socket;
    volatile String connectFailure;
    volatile String firstLine;
    volatile double closedAfter = -1; // seconds after opening; -1 while open
    final AtomicBoolean closing = new AtomicBoolean();

    Held(String kind) {
      this.kind = kind;
    }
  }

  public static void main(String[] args) throws Exception {
    int slow = 32;
    int maxConnections = 128;
    int extra = 64;
    int nofile = 0;
    int seconds = 40;
    int intervalMs = 250;
    boolean demo = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--slow" -> slow = Integer.parseInt(args[++i]);
        case "--max-connections" -> maxConnections = Integer.parseInt(args[++i]);
        case "--extra" -> extra = Integer.parseInt(args[++i]);
        case "--nofile" -> nofile = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--interval-ms" -> intervalMs = Integer.parseInt(args[++i]);
        case "--demo" -> demo = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (seconds > 600 || slow > 2000 || maxConnections + extra > 5000) {
      throw new IllegalArgumentException("bounded: --seconds <= 600, --slow <= 2000, connections <= 5000");
    }
    List<String> prefix = nofile > 0 ? List.of("prlimit", "--nofile=" + nofile + ":" + nofile, "--") : List.of();
    List<String> serveArgs = new ArrayList<>(List.of("--max-connections=" + maxConnections, "--max-sessions=1000"));
    if (!demo) {
      serveArgs.addAll(TinyChild.polite());
    }
    System.out.printf("serve-clients: %d slow of each kind, max-connections %d, %d more idle connections than that, %s%s,"
        + " %d s held%n", slow, maxConnections, extra, demo ? "demo child" : "tiny sh child",
        nofile > 0 ? ", under prlimit --nofile=" + nofile : "", seconds);
    try (ServeProcess serve = new ServeProcess("serve-clients", prefix, serveArgs)) {
      URI base = serve.base();
      RelayLoad.Sampler sampler = new RelayLoad.Sampler(serve.pid());
      Latencies warm = new Latencies();
      for (int i = 0; i < 10; i++) {
        normalRound(base, warm);
      }
      sampler.sample();
      int[] before = Procs.fdsAndThreads(serve.pid());
      long stackBefore = serve.stackLines.get();

      List<Held> held = new CopyOnWriteArrayList<>();
      long start = System.nanoTime();
      open(base, "drip-upload", slow, held);
      open(base, "drip-head", slow, held);
      open(base, "idle", slow, held);
      open(base, "many-idle", maxConnections + extra, held);
      Thread dripper = Thread.ofPlatform().daemon().name("dripper").start(() -> drip(held));
      Latencies load = new Latencies();
      long end = start + TimeUnit.SECONDS.toNanos(seconds);
      int peakFds = 0;
      int peakThreads = 0;
      while (System.nanoTime() < end) {
        normalRound(base, load);
        sampler.sample();
        int[] now = Procs.fdsAndThreads(serve.pid());
        peakFds = Math.max(peakFds, now[0]);
        peakThreads = Math.max(peakThreads, now[1]);
        TimeUnit.MILLISECONDS.sleep(intervalMs);
      }
      dripper.interrupt();
      int openAtEnd = (int) held.stream().filter(h -> h.socket != null && h.closedAfter < 0).count();
      for (Held h : held) {
        h.closing.set(true);
        if (h.socket != null) {
          try {
            h.socket.close();
          } catch (IOException e) {
            // closed already
          }
        }
      }
      long gone = System.nanoTime();
      RawHttp.Answer healthAfter = null;
      while (System.nanoTime() - gone < TimeUnit.SECONDS.toNanos(30)) {
        healthAfter = RawHttp.exchange(base, "GET", "/healthz", "", null, 5000);
        if (healthAfter.status() == 200) {
          break;
        }
        TimeUnit.MILLISECONDS.sleep(200);
      }
      double healthAfterSeconds = (System.nanoTime() - gone) / 1e9;
      RawHttp.Answer initAfter = RawHttp.initialize(base, 15_000);
      if (initAfter.header("Mcp-Session-Id") != null) {
        RawHttp.delete(base, initAfter.header("Mcp-Session-Id"), 5000);
      }
      TimeUnit.SECONDS.sleep(3);
      sampler.sample();
      int[] after = Procs.fdsAndThreads(serve.pid());
      int exit = serve.stop();
      TimeUnit.MILLISECONDS.sleep(300); // the stderr pump reads to the end

      System.out.printf("normal client unloaded: %s%n", warm);
      System.out.printf("normal client under load: %s%n", load);
      report(held, openAtEnd);
      System.out.printf("serve peak RSS %d MiB; fds before %d, peak %d, after %d; threads before %d, peak %d, after %d%n",
          sampler.peakRssKb / 1024, before[0], Math.max(peakFds, sampler.peakFds), after[0], before[1],
          Math.max(peakThreads, sampler.peakThreads), after[1]);
      System.out.printf("after the clients went: /healthz %s after %.1f s, initialize %s in %.0f ms%n",
          healthAfter.outcome(), healthAfterSeconds, initAfter.outcome(), initAfter.millis());
      System.out.printf("serve log: %d lines, %d stack-trace lines (%d before the load), %d about failed accepts;"
          + " SIGTERM exit %d; log at %s%n", serve.logLines.get(), serve.stackLines.get(), stackBefore,
          serve.acceptLines.get(), exit, serve.log);
    }
  }

  private static void normalRound(URI base, Latencies into) {
    RawHttp.Answer init = RawHttp.initialize(base, 15_000);
    into.add("initialize", init);
    String session = init.header("Mcp-Session-Id");
    if (session != null) {
      RawHttp.delete(base, session, 5000);
    }
    into.add("healthz", RawHttp.exchange(base, "GET", "/healthz", "", null, 15_000));
  }

  /** Opens {@code count} connections of one kind at once, each with its own reader. */
  private static void open(URI base, String kind, int count, List<Held> held) throws InterruptedException {
    CountDownLatch done = new CountDownLatch(count);
    for (int i = 0; i < count; i++) {
      Held h = new Held(kind);
      held.add(h);
      Thread.ofVirtual().start(() -> {
        try {
          Socket s = new Socket();
          s.connect(new InetSocketAddress(base.getHost(), base.getPort()), 3000);
          h.socket = s;
          String start = switch (kind) {
            case "drip-upload" -> "POST /mcp HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort() + "\r\n"
                + RawHttp.ACCEPT + "Content-Type: application/json\r\nContent-Length: 8388608\r\n\r\n{";
            case "drip-head" -> "POST /mcp HTTP/1.1\r\nHost: " + base.getHost() + "\r\n";
            default -> "";
          };
          s.getOutputStream().write(start.getBytes(StandardCharsets.US_ASCII));
        } catch (IOException e) {
          h.connectFailure = e.getClass().getSimpleName();
        } finally {
          done.countDown();
        }
        if (h.socket != null) {
          read(h);
        }
      });
    }
    done.await(30, TimeUnit.SECONDS);
  }

  private static void read(Held h) {
    StringBuilder first = new StringBuilder();
    try {
      InputStream in = h.socket.getInputStream();
      for (int b; (b = in.read()) >= 0; ) {
        if (h.firstLine == null) {
          if (b == '\r' || b == '\n') {
            h.firstLine = first.toString();
          } else if (first.length() < 80) {
            first.append((char) b);
          }
        }
      }
      if (h.firstLine == null) {
        h.firstLine = first.isEmpty() ? "(closed, nothing sent)" : first.toString();
      }
    } catch (IOException e) {
      if (h.firstLine == null && !h.closing.get()) {
        h.firstLine = "(" + e.getClass().getSimpleName() + ")";
      }
    }
    if (!h.closing.get()) {
      h.closedAfter = (System.nanoTime() - h.opened) / 1e9;
    }
  }

  /** One byte a second to every dripping connection serve has not closed. */
  private static void drip(List<Held> held) {
    byte[] one = {' '};
    while (!Thread.currentThread().isInterrupted()) {
      for (Held h : held) {
        if (h.socket != null && h.closedAfter < 0 && (h.kind.startsWith("drip"))) {
          try {
            h.socket.getOutputStream().write(h.kind.equals("drip-head") ? new byte[] {'X'} : one);
          } catch (IOException e) {
            // serve closed it; the reader notes when
          }
        }
      }
      try {
        TimeUnit.SECONDS.sleep(1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private static void report(List<Held> held, int openAtEnd) {
    Map<String, List<Held>> byKind = new TreeMap<>();
    held.forEach(h -> byKind.computeIfAbsent(h.kind, k -> new ArrayList<>()).add(h));
    System.out.printf("hostile connections (%d still open at the end of the hold):%n", openAtEnd);
    byKind.forEach((kind, list) -> {
      Map<String, Integer> outcomes = new TreeMap<>();
      List<Double> closed = new ArrayList<>();
      for (Held h : list) {
        String o = h.connectFailure != null ? "connect " + h.connectFailure
            : h.closedAfter >= 0 ? "closed by serve: " + h.firstLine : "held open";
        outcomes.merge(o, 1, Integer::sum);
        if (h.closedAfter >= 0) {
          closed.add(h.closedAfter);
        }
      }
      Collections.sort(closed);
      System.out.printf("  %-11s x%d: %s%s%n", kind, list.size(), outcomes,
          closed.isEmpty() ? "" : String.format("; closed after %.1f s (median), %.1f-%.1f s", closed.get(closed.size() / 2),
              closed.get(0), closed.get(closed.size() - 1)));
    });
  }

  /** Statuses and latency percentiles per request kind. */
  static final class Latencies {
    private final Map<String, List<Double>> millis = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Integer>> outcomes = new ConcurrentHashMap<>();

    void add(String what, RawHttp.Answer a) {
      millis.computeIfAbsent(what, k -> new ArrayList<>()).add(a.millis());
      outcomes.computeIfAbsent(what, k -> new TreeMap<>()).merge(a.outcome(), 1, Integer::sum);
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder();
      new TreeMap<>(millis).forEach((what, list) -> {
        List<Double> sorted = new ArrayList<>(list);
        Collections.sort(sorted);
        s.append(String.format("%s %s p50 %.1f ms p99 %.1f ms max %.1f ms; ", what, outcomes.get(what),
            sorted.get((int) (sorted.size() * 0.50)), sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * 0.99))),
            sorted.get(sorted.size() - 1)));
      });
      return s.toString();
    }
  }

  private ServeClients() {}
}
