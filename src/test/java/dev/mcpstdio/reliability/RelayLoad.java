package dev.mcpstdio.reliability;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The relay under load, as a host meets it: the real launcher ({@code ./mcp-stdio URL}, default
 * heap unless {@code --java-opts} says otherwise) spawned as a process, {@code --calls} tool calls
 * written to its stdin at once against a {@link FaultyUpstream}, every stdout line read and counted
 * per id. Reports answers exactly once, missing, duplicated and unasked ids, the errors by message,
 * the upstream's own count of calls run, the relay's peak RSS, file descriptors and threads, and
 * how long the relay takes to exit once stdin closes. A benchmark, not a test: see
 * docs/reliability.md.
 *
 * <pre>bench/reliability.sh relay --calls 10000 --delay-ms 300
 * bench/reliability.sh relay --calls 200 --cut                 # every answer's stream cut mid-event
 * bench/reliability.sh relay --calls 200 --refuse 50:503       # a burst of 503 (Retry-After: 0) first
 * bench/reliability.sh relay --calls 50 --silent --relay-arg --timeout-read --relay-arg 3   # half-open</pre>
 */
public final class RelayLoad {

  /** Extra relay arguments from the command line ({@code --relay-arg}), for main only. */
  private static final List<String> RELAY_ARGS = new java.util.ArrayList<>();

  record Report(
      int calls,
      int answeredOnce,
      int missing,
      int duplicated,
      int unasked,
      Map<String, Integer> errors,
      long upstreamCalls,
      long peakRssKb,
      int peakFds,
      int peakThreads,
      double seconds,
      int exitCode,
      double exitSeconds) {

    boolean allAnsweredOnce() {
      return answeredOnce == calls && duplicated == 0 && unasked == 0 && missing == 0;
    }

    @Override
    public String toString() {
      StringBuilder s = new StringBuilder();
      s.append(String.format("calls %d: answered exactly once %d, missing %d, duplicated %d, unasked ids %d%n",
          calls, answeredOnce, missing, duplicated, unasked));
      errors.forEach((m, n) -> s.append(String.format("  error x%d: %s%n", n, m)));
      s.append(String.format("upstream ran %d calls; %.1f s; relay peak RSS %d MiB, peak fds %d, peak threads %d%n",
          upstreamCalls, seconds, peakRssKb / 1024, peakFds, peakThreads));
      s.append(String.format("after stdin closed: exit %d in %.2f s%n", exitCode, exitSeconds));
      return s.toString();
    }
  }

  public static void main(String[] args) throws Exception {
    int calls = 3000;
    long delay = 300;
    int answerBytes = 0;
    boolean hostile = false;
    boolean silent = false;
    boolean cut = false;
    int refuse = 0;
    int refuseStatus = 503;
    List<String> relayArgs = new java.util.ArrayList<>();
    String javaOpts = null;
    long seconds = 180;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--calls" -> calls = Integer.parseInt(args[++i]);
        case "--delay-ms" -> delay = Long.parseLong(args[++i]);
        case "--answer-bytes" -> answerBytes = Integer.parseInt(args[++i]);
        case "--hostile" -> hostile = true;
        case "--silent" -> silent = true;
        case "--cut" -> cut = true;
        case "--refuse" -> { // N:STATUS, e.g. 50:503
          String[] r = args[++i].split(":");
          refuse = Integer.parseInt(r[0]);
          refuseStatus = Integer.parseInt(r[1]);
        }
        case "--relay-arg" -> relayArgs.add(args[++i]);
        case "--java-opts" -> javaOpts = args[++i];
        case "--seconds" -> seconds = Long.parseLong(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    FaultyUpstream.Faults faults = FaultyUpstream.Faults.none().delayed(delay).padded(answerBytes);
    if (hostile) {
      faults = faults.hostile();
    }
    if (silent) {
      faults = faults.silent();
    }
    if (cut) {
      faults = faults.cutting();
    }
    if (refuse > 0) {
      faults = faults.refusing(refuse, refuseStatus);
    }
    RELAY_ARGS.addAll(relayArgs);
    System.out.print(run(Path.of("mcp-stdio"), faults, calls, javaOpts, Duration.ofSeconds(seconds), Map.of()));
  }

  /**
   * @param env added to the relay's environment
   */
  static Report run(Path launcher, FaultyUpstream.Faults faults, int calls, String javaOpts, Duration limit,
      Map<String, String> env) throws Exception {
    try (FaultyUpstream upstream = new FaultyUpstream(faults)) {
      List<String> command = new java.util.ArrayList<>(List.of(launcher.toAbsolutePath().toString()));
      command.addAll(RELAY_ARGS);
      command.add(upstream.url().toString());
      ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.appendTo(
          Path.of("target", "reliability-relay.log").toFile()));
      if (javaOpts != null) {
        builder.environment().put("MCP_STDIO_JAVA_OPTS", javaOpts);
      }
      builder.environment().putAll(env);
      Files.createDirectories(Path.of("target"));
      Process relay = builder.start();
      System.err.println("relay pid " + relay.pid());
      Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
      Map<String, Integer> errors = new ConcurrentHashMap<>();
      Thread reader = Thread.ofPlatform().daemon().name("stdout").start(() -> read(relay, answers, errors));
      OutputStream in = relay.getOutputStream();
      long start = System.nanoTime();
      write(in, "{\"jsonrpc\":\"2.0\",\"id\":\"init\",\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"load\",\"version\":\"1\"}}}");
      write(in, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      Thread writer = Thread.ofPlatform().daemon().name("stdin").start(() -> {
        try {
          for (int i = 1; i <= calls; i++) {
            write(in, "{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                + "\"arguments\":{\"text\":\"x\"}}}");
          }
          in.flush();
        } catch (IOException e) {
          System.err.println("writing to the relay failed: " + e);
        }
      });
      Sampler sampler = new Sampler(relay.pid());
      long deadline = System.nanoTime() + limit.toNanos();
      while (System.nanoTime() < deadline && answered(answers) < calls && relay.isAlive()) {
        sampler.sample();
        TimeUnit.MILLISECONDS.sleep(100);
      }
      double elapsed = (System.nanoTime() - start) / 1e9;
      sampler.sample();
      writer.join(TimeUnit.SECONDS.toMillis(1));
      long closedAt = System.nanoTime();
      Thread.ofPlatform().daemon().start(() -> { // may block on a full pipe if the relay stopped reading
        try {
          in.close();
        } catch (IOException e) {
          // the relay is gone
        }
      });
      int exit;
      if (relay.waitFor(30, TimeUnit.SECONDS)) {
        exit = relay.exitValue();
      } else {
        exit = -1;
        relay.destroyForcibly().waitFor();
      }
      double exitSeconds = (System.nanoTime() - closedAt) / 1e9;
      reader.join(TimeUnit.SECONDS.toMillis(5));
      int once = 0;
      int duplicated = 0;
      int unasked = 0;
      for (Map.Entry<String, AtomicInteger> e : answers.entrySet()) {
        int id = parseId(e.getKey());
        if (id < 1 || id > calls) {
          if (!e.getKey().equals("\"init\"")) {
            unasked += e.getValue().get();
          }
        } else if (e.getValue().get() == 1) {
          once++;
        } else {
          duplicated++;
        }
      }
      int missing = calls - once - duplicated;
      return new Report(calls, once, missing, duplicated, unasked, new TreeMap<>(errors), upstream.calls(),
          sampler.peakRssKb, sampler.peakFds, sampler.peakThreads, elapsed, exit, exitSeconds);
    }
  }

  private static int answered(Map<String, AtomicInteger> answers) {
    return answers.size() - (answers.containsKey("\"init\"") ? 1 : 0);
  }

  private static int parseId(String json) {
    try {
      return Integer.parseInt(json);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static void read(Process relay, Map<String, AtomicInteger> answers, Map<String, Integer> errors) {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = out.readLine()) != null) {
        JsonRpcMessage message;
        try {
          message = JsonRpcCodec.parse(line.getBytes(StandardCharsets.UTF_8));
        } catch (dev.mcpstdio.jsonrpc.MalformedMessageException e) {
          errors.merge("(not JSON on stdout)", 1, Integer::sum);
          continue;
        }
        if (message instanceof JsonRpcMessage.Response r) {
          answers.computeIfAbsent(r.id() == null ? "null" : r.id().json(), k -> new AtomicInteger()).incrementAndGet();
          int at = line.indexOf("\"message\":");
          if (line.contains("\"error\"") && at >= 0) {
            String text = line.substring(at + 10, Math.min(line.length(), at + 130));
            errors.merge(text, 1, Integer::sum);
          }
        } else if (message instanceof JsonRpcMessage.Batch) {
          errors.merge("(a batch on stdout)", 1, Integer::sum);
        }
      }
    } catch (IOException e) {
      System.err.println("reading the relay failed: " + e);
    }
  }

  private static void write(OutputStream in, String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
  }

  /** Peak RSS, file descriptors and threads of one process, from /proc (Linux). */
  static final class Sampler {
    private final long pid;
    long peakRssKb;
    int peakFds;
    int peakThreads;

    Sampler(long pid) {
      this.pid = pid;
    }

    void sample() {
      try {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
          if (line.startsWith("VmHWM:")) {
            peakRssKb = Math.max(peakRssKb, Long.parseLong(line.replaceAll("[^0-9]", "")));
          } else if (line.startsWith("Threads:")) {
            peakThreads = Math.max(peakThreads, Integer.parseInt(line.replaceAll("[^0-9]", "")));
          }
        }
        String[] fds = new java.io.File("/proc/" + pid + "/fd").list();
        if (fds != null) {
          peakFds = Math.max(peakFds, fds.length);
        }
      } catch (IOException | RuntimeException e) {
        // the process is gone
      }
    }
  }

  private RelayLoad() {}
}
