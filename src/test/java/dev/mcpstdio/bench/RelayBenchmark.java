package dev.mcpstdio.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * End-to-end relay benchmark: the relay process (spawned through the launcher, as a host would)
 * against a fast loopback upstream, beside direct calls from this JVM to the same upstream.
 *
 * <p>Reports start-up (spawn to initialize answered), sequential p50/p99, throughput at
 * concurrency 1 and 16, a 1 MiB echo and the relay's peak RSS, with ratios to direct. Run with
 * {@code bench/relay.sh}; the figures go in docs/performance.md.
 */
public final class RelayBenchmark {

  private static final String INIT =
      "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";

  private final String launcher;
  private final boolean sse;
  private final int startups;
  private final int sequential;
  private final int seconds;
  private final boolean largeOnly;
  private boolean httpSse; // --http-sse: the upstream and the relay speak HTTP+SSE (2024-11-05)
  private boolean era2026; // --era2026: the upstream speaks 2026-07-28; the relay finds out (auto)
  /** Where the relays of this run remember eras (a fresh folder per run: what a user's first spawns meet). */
  private static final Path STATE = stateFolder();

  private static Path stateFolder() {
    try {
      return Files.createTempDirectory("mcp-stdio-bench-state");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
  private final List<String> rows = new ArrayList<>();

  private RelayBenchmark(String launcher, boolean sse, int startups, int sequential, int seconds, boolean largeOnly) {
    this.largeOnly = largeOnly;
    this.launcher = launcher;
    this.sse = sse;
    this.startups = startups;
    this.sequential = sequential;
    this.seconds = seconds;
  }

  public static void main(String[] args) throws Exception {
    String launcher = "./mcp-stdio";
    boolean sse = false;
    int startups = 20;
    int sequential = 2000;
    int seconds = 5;
    boolean largeOnly = false;
    boolean httpSseFlag = false;
    boolean era2026Flag = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--launcher" -> launcher = args[++i];
        case "--sse" -> sse = true;
        case "--startups" -> startups = Integer.parseInt(args[++i]);
        case "--sequential" -> sequential = Integer.parseInt(args[++i]);
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--large-only" -> largeOnly = true;
        case "--http-sse" -> httpSseFlag = true;
        case "--era2026" -> era2026Flag = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    RelayBenchmark bench = new RelayBenchmark(launcher, sse, largeOnly ? 0 : startups, sequential, seconds, largeOnly);
    bench.httpSse = httpSseFlag;
    bench.era2026 = era2026Flag;
    bench.run();
    System.exit(0);
  }

  private void run() throws Exception {
    try (EchoUpstream upstream = new EchoUpstream(sse, httpSse, era2026)) {
      URI url = upstream.url();
      System.err.println("upstream " + url + (httpSse ? " (HTTP+SSE, 2024-11-05)" : sse ? " (event-stream replies)" : " (JSON replies)")
          + (era2026 ? ", 2026-07-28" : ""));
      double[] fresh = startups(url, true);
      double[] startup = startups(url, false);
      Direct direct = httpSse ? new HttpSseDirect(url) : new Direct(url);
      try (Relayed relay = new Relayed(launcher, url, relayArgs())) {
        warmUp(relay, direct);
        if (largeOnly) {
          large(relay, direct);
          row("relay peak RSS", (relay.peakRssKb() / 1024) + " MiB", "—", "—", "≤ 120 MiB");
          return;
        }
        // Relay and direct take turns, round by round, so both see the same machine: on a shared
        // 2-core box, noise from neighbours would otherwise land on one side only.
        int rounds = 8;
        List<double[]> rs = new ArrayList<>();
        List<double[]> ds = new ArrayList<>();
        for (int r = 0; r < rounds; r++) {
          rs.add(relay.sequential(sequential / rounds, 64));
          ds.add(direct.sequential(sequential / rounds, 64));
        }
        double[] relaySeq = concat(rs);
        double[] directSeq = concat(ds);
        double relayC1 = 0;
        double directC1 = 0;
        double relayC16 = 0;
        double directC16 = 0;
        for (int r = 0; r < 3; r++) {
          relayC1 += relay.throughput(1, seconds, 64) / 3;
          directC1 += direct.throughput(1, seconds, 64) / 3;
          relayC16 += relay.throughput(16, seconds, 64) / 3;
          directC16 += direct.throughput(16, seconds, 64) / 3;
        }
        if (startups > 0) {
          row("start-up, spawn to initialize answered, nothing remembered (median of " + startups + ")",
              fmt(percentile(fresh, 50)) + " ms", "—", "—", "");
          row("start-up, spawn to initialize answered, era remembered (median of " + startups + ")",
              fmt(percentile(startup, 50)) + " ms", "—", "—", "≤ 300 ms");
          row("start-up p90", fmt(percentile(startup, 90)) + " ms", "—", "—", "");
        }
        row("sequential p50", fmt(percentile(relaySeq, 50)) + " ms", fmt(percentile(directSeq, 50)) + " ms",
            ratio(percentile(relaySeq, 50), percentile(directSeq, 50)), "≤ 1.5x");
        row("sequential p99", fmt(percentile(relaySeq, 99)) + " ms", fmt(percentile(directSeq, 99)) + " ms",
            ratio(percentile(relaySeq, 99), percentile(directSeq, 99)), "");
        row("throughput, concurrency 1 (mean of 3)", fmt(relayC1) + " calls/s", fmt(directC1) + " calls/s", ratio(relayC1, directC1), "");
        row("throughput, concurrency 16 (mean of 3)", fmt(relayC16) + " calls/s", fmt(directC16) + " calls/s", ratio(relayC16, directC16), "≥ 0.8x");
        row("failed calls during throughput runs", FAILURES.relay + "", FAILURES.direct + "", "—", "0");
        large(relay, direct);
        long rss = relay.peakRssKb();
        row("relay peak RSS", (rss / 1024) + " MiB", "—", "—", "≤ 120 MiB");
      }
    } finally {
      print();
    }
  }

  private void large(Relayed relay, Direct direct) throws Exception {
    // Call by call, alternating, so that both sides see the same moments of a noisy machine.
    int calls = Integer.getInteger("bench.large", 300);
    List<double[]> rs = new ArrayList<>();
    List<double[]> ds = new ArrayList<>();
    for (int r = 0; r < calls; r++) {
      rs.add(relay.sequential(1, 1 << 20));
      ds.add(direct.sequential(1, 1 << 20));
    }
    double[] relayBig = concat(rs);
    double[] directBig = concat(ds);
    row("1 MiB echo p50 (" + calls + " calls)", fmt(percentile(relayBig, 50)) + " ms", fmt(percentile(directBig, 50)) + " ms",
        ratio(percentile(relayBig, 50), percentile(directBig, 50)), "≤ 1.5x");
  }

  private void print() {
    System.out.println("| measure | relay | direct | ratio | target |");
    System.out.println("|---|---|---|---|---|");
    rows.forEach(System.out::println);
  }

  private void warmUp(Relayed relay, Direct direct) throws Exception {
    relay.sequential(2000, 64);
    direct.sequential(2000, 64);
    relay.throughput(16, 2, 64);
    direct.throughput(16, 2, 64);
    // Large messages take other code paths (block assembly, long-string scans): warm them too.
    relay.sequential(30, 1 << 20);
    direct.sequential(30, 1 << 20);
    FAILURES.relay.set(0);
    FAILURES.direct.set(0);
  }

  /** The relay's arguments before the URL. */
  private List<String> relayArgs() {
    return httpSse ? List.of("--transport", "sse") : List.of();
  }

  /** @param fresh each spawn with nothing remembered (the first spawn a server ever sees), else the run's memory */
  private double[] startups(URI url, boolean fresh) throws Exception {
    double[] ms = new double[startups];
    for (int i = 0; i < startups; i++) {
      Path state = fresh ? Files.createTempDirectory(STATE, "fresh") : STATE;
      long t0 = System.nanoTime();
      List<String> command = new ArrayList<>(List.of(launcher));
      command.addAll(relayArgs());
      command.add(url.toString());
      ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
      builder.environment().put("XDG_STATE_HOME", state.toString());
      Process p = builder.start();
      OutputStream in = p.getOutputStream();
      in.write((INIT + "\n").getBytes(StandardCharsets.UTF_8));
      in.flush();
      BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
      String line = out.readLine();
      ms[i] = (System.nanoTime() - t0) / 1e6;
      if (line == null || !line.contains("\"init\"")) {
        throw new IllegalStateException("no initialize answer: " + line);
      }
      in.close();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    return ms;
  }

  private void row(String measure, String relay, String direct, String ratio, String target) {
    rows.add("| " + measure + " | " + relay + " | " + direct + " | " + ratio + " | " + target + " |");
  }

  private static final byte[] RESULT = "\"result\"".getBytes(StandardCharsets.UTF_8);

  /** True when {@code needle} occurs in {@code hay} (the bench checks answers as bytes). */
  static boolean contains(byte[] hay, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= hay.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (hay[i + j] != needle[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /**
   * The host's side of stdout, read as a careful host does: bytes in large chunks, split at LF,
   * not decoded (decoding a megabyte into a String would cost the host more than the relay).
   */
  static final class Lines {
    private final dev.mcpstdio.wire.LineReader reader;

    Lines(java.io.InputStream in) {
      reader = new dev.mcpstdio.wire.LineReader(in, 0);
    }

    byte[] readLine() throws IOException {
      dev.mcpstdio.wire.LineReader.Line line = reader.next();
      return line == null ? null : ((dev.mcpstdio.wire.LineReader.Line.Text) line).bytes();
    }
  }

  static double[] concat(List<double[]> parts) {
    return parts.stream().flatMapToDouble(java.util.Arrays::stream).toArray();
  }

  static String call(long id, int size) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\""
        + "x".repeat(size) + "\"}}}";
  }

  static double percentile(double[] values, double p) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  static String fmt(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }

  static String ratio(double a, double b) {
    return String.format(Locale.ROOT, "%.2fx", a / b);
  }

  /** The relay as a child process, driven over its stdin and stdout. */
  static final class Relayed implements AutoCloseable {
    private final Process process;
    private final OutputStream in;
    private final Lines out;
    private final AtomicLong ids = new AtomicLong(1);

    Relayed(String launcher, URI url) throws IOException {
      this(launcher, url, List.of());
    }

    Relayed(String launcher, URI url, List<String> args) throws IOException {
      List<String> command = new ArrayList<>(List.of(launcher, "-q"));
      command.addAll(args);
      command.add(url.toString());
      ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT);
      builder.environment().put("XDG_STATE_HOME", STATE.toString());
      process = builder.start();
      in = process.getOutputStream();
      out = new Lines(process.getInputStream());
      send(INIT);
      out.readLine();
      send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    }

    /**
     * Writes one line in 64 KiB slices, as hosts on Node (Claude Desktop, Claude Code) write: the
     * first bytes are on their way at once. (One {@code write} of a whole megabyte through a Java
     * FileOutputStream first copies all of it into a native buffer, a cost of the host's, not of
     * the relay's; the direct client's socket writes, too, go out slice by slice.)
     */
    synchronized void send(String line) throws IOException {
      byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
      for (int at = 0; at < bytes.length; at += 64 * 1024) {
        in.write(bytes, at, Math.min(64 * 1024, bytes.length - at));
      }
      in.flush();
    }

    double[] sequential(int n, int size) throws IOException {
      double[] ms = new double[n];
      for (int i = 0; i < n; i++) {
        String request = call(ids.getAndIncrement(), size);
        long t0 = System.nanoTime();
        send(request);
        byte[] line = out.readLine();
        ms[i] = (System.nanoTime() - t0) / 1e6;
        if (line == null || !contains(line, RESULT)) {
          throw new IllegalStateException("bad answer: " + (line == null ? null
              : new String(line, 0, Math.min(200, line.length), StandardCharsets.UTF_8)));
        }
      }
      return ms;
    }

    double throughput(int concurrency, int seconds, int size) throws Exception {
      Semaphore window = new Semaphore(concurrency);
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong sent = new AtomicLong();
      Thread writer = Thread.ofPlatform().start(() -> {
        try {
          while (!stop.get()) {
            if (window.tryAcquire(100, TimeUnit.MILLISECONDS)) {
              send(call(ids.getAndIncrement(), size));
              sent.incrementAndGet();
            }
          }
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      long done = 0;
      long t0 = System.nanoTime();
      long end = t0 + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < end) {
        byte[] line = out.readLine();
        window.release();
        done++;
        if (line == null || !contains(line, RESULT)) {
          FAILURES.relay.incrementAndGet();
        }
      }
      double elapsed = (System.nanoTime() - t0) / 1e9;
      stop.set(true);
      writer.join();
      for (long pending = sent.get() - done; pending > 0; pending--) {
        out.readLine(); // drain the window
      }
      return done / elapsed;
    }

    long pid() {
      return process.pid();
    }

    long peakRssKb() throws IOException {
      long pid = process.descendants().map(ProcessHandle::pid).findFirst().orElse(process.pid());
      for (long candidate : new long[] {process.pid(), pid}) {
        Path status = Path.of("/proc/" + candidate + "/status");
        if (Files.exists(status)) {
          for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmHWM:")) {
              return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
          }
        }
      }
      return -1;
    }

    @Override
    public void close() throws IOException {
      in.close();
      try {
        process.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** Calls that did not come back with a result during throughput runs, counted per side. */
  private record Failures(AtomicLong relay, AtomicLong direct) {}

  private static final Failures FAILURES = new Failures(new AtomicLong(), new AtomicLong());

  /** Direct calls from this JVM to the upstream, for comparison. */
  static class Direct {
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final URI url;
    private final String session;
    final AtomicLong ids = new AtomicLong(1);

    Direct(URI url) throws Exception {
      this.url = url;
      HttpResponse<String> init = client.send(request(INIT, null), HttpResponse.BodyHandlers.ofString());
      session = init.headers().firstValue("mcp-session-id").orElse(null);
    }

    /** For subclasses that speak another transport. */
    Direct() {
      this.url = null;
      this.session = null;
    }

    private HttpRequest request(String body, String sessionId) {
      HttpRequest.Builder b = HttpRequest.newBuilder(url)
          .header("Content-Type", "application/json")
          .header("Accept", "application/json, text/event-stream")
          .POST(HttpRequest.BodyPublishers.ofString(body));
      if (sessionId != null) {
        b.header("Mcp-Session-Id", sessionId).header("MCP-Protocol-Version", "2025-11-25");
      }
      return b.build();
    }

    void once(int size) throws Exception {
      HttpResponse<byte[]> r = client.send(request(call(ids.getAndIncrement(), size), session), HttpResponse.BodyHandlers.ofByteArray());
      if (r.statusCode() != 200 || !contains(r.body(), RESULT)) {
        throw new IllegalStateException("direct call failed: " + r.statusCode());
      }
    }

    double[] sequential(int n, int size) throws Exception {
      double[] ms = new double[n];
      for (int i = 0; i < n; i++) {
        long t0 = System.nanoTime();
        once(size);
        ms[i] = (System.nanoTime() - t0) / 1e6;
      }
      return ms;
    }

    double throughput(int concurrency, int seconds, int size) throws Exception {
      AtomicLong done = new AtomicLong();
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      long t0 = System.nanoTime();
      List<Thread> workers = new ArrayList<>();
      for (int i = 0; i < concurrency; i++) {
        workers.add(Thread.ofPlatform().start(() -> {
          try {
            while (System.nanoTime() < end) {
              try {
                once(size);
              } catch (IOException | IllegalStateException e) {
                // A failed call still took its time; count it so a dying worker cannot shrink the
                // comparison without showing (JDK 25's HttpClient has a rare pooled-connection race).
                FAILURES.direct.incrementAndGet();
              }
              done.incrementAndGet();
            }
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        }));
      }
      for (Thread w : workers) {
        w.join();
      }
      return done.get() / ((System.nanoTime() - t0) / 1e9);
    }
  }

  /**
   * Direct calls over HTTP+SSE (2024-11-05), as a careful client makes them: one event stream read
   * by its own thread, each answer matched to its POST by id.
   */
  static final class HttpSseDirect extends Direct {
    private final java.util.Map<String, java.util.concurrent.CompletableFuture<byte[]>> waiting =
        new java.util.concurrent.ConcurrentHashMap<>();
    private final URI endpoint;

    HttpSseDirect(URI url) throws Exception {
      HttpResponse<java.io.InputStream> stream = client.send(HttpRequest.newBuilder(url)
          .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofInputStream());
      java.util.concurrent.CompletableFuture<URI> named = new java.util.concurrent.CompletableFuture<>();
      dev.mcpstdio.wire.SseDecoder decoder = new dev.mcpstdio.wire.SseDecoder(0, event -> {
        if (event.type().equals("endpoint")) {
          named.complete(url.resolve(new String(event.data(), StandardCharsets.UTF_8)));
        } else {
          try {
            var message = dev.mcpstdio.jsonrpc.JsonRpcCodec.parse(event.data());
            if (message instanceof dev.mcpstdio.jsonrpc.JsonRpcMessage.Response r) {
              var waiter = waiting.remove(r.id().value());
              if (waiter != null) {
                waiter.complete(event.data());
              }
            }
          } catch (dev.mcpstdio.jsonrpc.MalformedMessageException e) {
            throw new IllegalStateException(e);
          }
        }
      });
      Thread.ofPlatform().daemon().start(() -> {
        byte[] buffer = new byte[64 * 1024];
        try (java.io.InputStream in = stream.body()) {
          for (int n; (n = in.read(buffer)) > 0; ) {
            decoder.feed(buffer, 0, n);
          }
        } catch (IOException e) {
          // the benchmark is over
        }
      });
      endpoint = named.get(10, TimeUnit.SECONDS);
      exchange("init", INIT);
    }

    private byte[] exchange(String id, String body) throws Exception {
      var answer = new java.util.concurrent.CompletableFuture<byte[]>();
      waiting.put(id, answer);
      HttpResponse<Void> r = client.send(HttpRequest.newBuilder(endpoint).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.discarding());
      if (r.statusCode() / 100 != 2) {
        throw new IllegalStateException("direct POST failed: " + r.statusCode());
      }
      return answer.get(30, TimeUnit.SECONDS);
    }

    @Override
    void once(int size) throws Exception {
      long id = ids.getAndIncrement();
      if (!contains(exchange(String.valueOf(id), call(id, size)), RESULT)) {
        throw new IllegalStateException("direct call failed");
      }
    }
  }
}
