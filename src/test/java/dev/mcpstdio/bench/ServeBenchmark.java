package dev.mcpstdio.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * End-to-end benchmark of {@code mcp-stdio serve}: the gateway started through the launcher, as a
 * user starts it, in front of a small Node echo server ({@code src/test/node/echo-stdio-server.mjs}),
 * driven over loopback HTTP by clients in this JVM.
 *
 * <p>Reports the gateway's idle RSS, sessions opened per second, calls per second with p50 and p99
 * at concurrency 1, 16 and 64 over 1 and 8 sessions, and the gateway's peak RSS (children
 * excluded: they are separate processes). Run with {@code bench/serve.sh}; the figures go in
 * docs/performance.md.
 */
public final class ServeBenchmark {

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";
  private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final boolean sse;
  private final int seconds;
  private final List<String> rows = new ArrayList<>();
  private URI url;

  private ServeBenchmark(boolean sse, int seconds) {
    this.sse = sse;
    this.seconds = seconds;
  }

  public static void main(String[] args) throws Exception {
    String launcher = "./mcp-stdio";
    String node = "node";
    boolean sse = true;
    int seconds = 5;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--launcher" -> launcher = args[++i];
        case "--node" -> node = args[++i];
        case "--json" -> sse = false;
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    new ServeBenchmark(sse, seconds).run(launcher, node);
    System.exit(0);
  }

  private void run(String launcher, String node) throws Exception {
    Path child = Path.of("src/test/node/echo-stdio-server.mjs").toAbsolutePath();
    // Default logging (an access-log line per request) is part of what a user runs, so it is kept.
    Process serve = new ProcessBuilder(launcher, "serve", "--port", "0", "--max-sessions", "500",
        "--", node, child.toString()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    BufferedReader stderr = new BufferedReader(new InputStreamReader(serve.getErrorStream(), StandardCharsets.UTF_8));
    Pattern start = Pattern.compile("serving .* at (http://\\S+/mcp) ");
    for (String line; (line = stderr.readLine()) != null; ) {
      Matcher m = start.matcher(line);
      if (m.find()) {
        url = URI.create(m.group(1));
        break;
      }
      System.err.println("[serve] " + line);
    }
    if (url == null) {
      throw new IllegalStateException("serve exited before listening");
    }
    Thread.ofPlatform().daemon().start(() -> stderr.lines().forEach(l -> { })); // keep its stderr drained
    System.err.println("serve at " + url + (sse ? " (clients accept event streams)" : " (JSON replies)"));
    try {
      awaitHealthy();
      row("gateway idle RSS (started, no session)", rssKb(serve.pid(), "VmRSS") / 1024 + " MiB", "", "", "≤ 100 MiB");
      warmUp();
      sessionsPerSecond();
      for (int sessions : new int[] {1, 8}) {
        for (int concurrency : new int[] {1, 16, 64}) {
          load(sessions, concurrency);
        }
      }
      row("gateway peak RSS (VmHWM)", rssKb(serve.pid(), "VmHWM") / 1024 + " MiB", "", "", "");
    } finally {
      serve.destroy();
      serve.waitFor(15, TimeUnit.SECONDS);
    }
    System.out.println("| measure | calls/s | p50 | p99 | target |");
    System.out.println("|---|---|---|---|---|");
    rows.forEach(System.out::println);
  }

  private void awaitHealthy() throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve("/healthz")).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("healthz: " + r.statusCode());
    }
  }

  private String open() throws Exception {
    HttpResponse<String> r = http.send(post(null, INIT), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("initialize: " + r.statusCode() + " " + r.body());
    }
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    http.send(post(session, INITIALIZED), HttpResponse.BodyHandlers.discarding());
    return session;
  }

  private void close(String session) throws Exception {
    http.send(HttpRequest.newBuilder(url).header("Mcp-Session-Id", session).DELETE().build(), HttpResponse.BodyHandlers.discarding());
  }

  private HttpRequest post(String session, String body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header("Accept", sse ? "application/json, text/event-stream" : "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b.build();
  }

  private static String call(long id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hello "
        + id + "\"}}}";
  }

  private void warmUp() throws Exception {
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      sessions.add(open());
    }
    measure(sessions, 16, 3);
    for (String s : sessions) {
      close(s);
    }
  }

  private void sessionsPerSecond() throws Exception {
    int n = 40;
    List<String> sessions = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      sessions.add(open());
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    for (String s : sessions) {
      close(s);
    }
    row("sessions opened per second (one after another; initialize + initialized, child started)",
        fmt(n / elapsed), "", "", "");
  }

  private void load(int sessionCount, int concurrency) throws Exception {
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < sessionCount; i++) {
      sessions.add(open());
    }
    Result r = measure(sessions, concurrency, seconds);
    for (String s : sessions) {
      close(s);
    }
    String target = sessionCount == 1 && concurrency == 16 ? "≥ 1700 calls/s"
        : sessionCount == 8 && concurrency == 64 ? "p99 ≤ 70 ms" : "";
    row("concurrency " + concurrency + ", " + sessionCount + (sessionCount == 1 ? " session" : " sessions")
        + (r.failures > 0 ? " (" + r.failures + " failed)" : ""), fmt(r.perSecond), fmt(r.p50) + " ms", fmt(r.p99) + " ms", target);
  }

  private record Result(double perSecond, double p50, double p99, long failures) {}

  private Result measure(List<String> sessions, int concurrency, int runSeconds) throws Exception {
    AtomicLong ids = new AtomicLong(1);
    AtomicLong failures = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(runSeconds);
    List<double[]> latencies = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int w = 0; w < concurrency; w++) {
      String session = sessions.get(w % sessions.size());
      double[] mine = new double[2_000_000];
      int[] count = new int[1];
      latencies.add(mine);
      workers.add(Thread.ofPlatform().start(() -> {
        while (System.nanoTime() < end && count[0] < mine.length) {
          long id = ids.getAndIncrement();
          long start = System.nanoTime();
          try {
            HttpResponse<String> r = http.send(post(session, call(id)), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().contains("\"hello " + id + "\"")) {
              failures.incrementAndGet();
            }
          } catch (IOException | InterruptedException e) {
            failures.incrementAndGet();
          }
          mine[count[0]++] = (System.nanoTime() - start) / 1e6;
        }
        mine[mine.length - 1] = count[0]; // the count rides in the last slot
      }));
    }
    for (Thread t : workers) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    List<Double> all = new ArrayList<>();
    for (double[] mine : latencies) {
      int n = (int) mine[mine.length - 1];
      for (int i = 0; i < n; i++) {
        all.add(mine[i]);
      }
    }
    double[] sorted = all.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return new Result(sorted.length / elapsed, percentile(sorted, 50), percentile(sorted, 99), failures.get());
  }

  private static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  private static long rssKb(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  private void row(String measure, String perSecond, String p50, String p99, String target) {
    rows.add("| " + measure + " | " + perSecond + " | " + p50 + " | " + p99 + " | " + target + " |");
  }

  private static String fmt(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }
}
