package dev.mcpstdio.bench;

import dev.mcpstdio.testing.Await;
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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * End-to-end benchmark of {@code mcp-stdio serve}: the gateway started through the launcher, as a
 * user starts it, in front of a small Node echo server ({@code src/test/node/echo-stdio-server.mjs}),
 * driven over loopback HTTP by clients in this JVM.
 *
 * <p>The 2025 era ({@code --era 2025}, the default): the gateway's idle RSS, the first call (a
 * session opened, its child started, one call), sessions opened per second, calls per second with
 * p50 and p99 at concurrency 1, 16 and 64 over 1 and 8 sessions, slow calls (the echo server's
 * {@code slow} tool) over 1 and 8 sessions, and the gateway's peak RSS (children excluded: they are
 * separate processes).
 *
 * <p>The 2026 era ({@code --era 2026}): stateless requests ({@code _meta} and the routing headers on
 * every POST, no session) from the one principal of an open endpoint: the first call (the pool's
 * first spawn, its {@code server/discover} probe, the fresh child's handshake), calls at
 * concurrency 1, 16 and 64, the same slow calls, with the pool's children counted after each
 * round. {@code --era both} runs each era against a fresh gateway and prints them side by side with
 * ratios. Clients accept event streams unless {@code --json}. Run with {@code bench/serve.sh}; the
 * figures go in docs/performance.md.
 *
 * <p>{@code --warm N} passes {@code --warm N} to the 2025-era gateway (children spawned ahead of
 * their clients); {@code --compare-warm} runs a gateway without it beside that one, the rows
 * interleaved as for the eras (the warm gateway second, or first with {@code --warm-first}), and
 * prints them side by side. The sessions row opens {@code
 * --sessions} sessions (40) one after another and gives the {@code initialize} answers' p50 and p99.
 * {@code --startups K} measures serve's own start-up instead, on K fresh gateways one after another
 * (with {@code --compare-warm}, K without {@code --warm} and K with it, in turn): spawn to
 * listening, the first {@code initialize} right after listening, the gateway's RSS once idle, and
 * an initialize on the idle gateway (with {@code --warm}: the pool full). {@code
 * --sessions-only} measures the first call and the sessions row only (after the usual warm-up round).
 */
public final class ServeBenchmark {

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"bench\",\"version\":\"1\"}}}";
  private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  private static final String ERA_2026 = "2026-07-28";

  /** The slow calls' delay in the echo server. */
  private static final int SLOW_MS = 20;

  /** The 2025 era's targets (docs/performance.md), by row. */
  private static final Map<String, String> TARGETS = Map.of(
      "concurrency 16, 1 session / the principal", "target ≥ 1700 calls/s; ",
      "concurrency 64, 8 sessions", "target p99 ≤ 70 ms; ");

  /** What one worker's calls ask the echo server for. */
  private record Tool(String name, String arguments, boolean progress) {
    static final Tool ECHO = new Tool("echo", "", false);
    static final Tool ECHO_WITH_PROGRESS = new Tool("echo", "", true);
    static final Tool SLOW_OVERLAPPING = new Tool("slow", ",\"ms\":" + SLOW_MS, false);
    static final Tool SLOW_SERIAL = new Tool("slow", ",\"ms\":" + SLOW_MS + ",\"serial\":true", false);
  }

  /** One table row: a figure (calls/s or a plain value) with its latencies where it has them. */
  private record Row(String value, double perSecond, double p50, double p99, String note) {
    static Row plain(String value) {
      return plain(value, "");
    }

    static Row plain(String value, String note) {
      return new Row(value, Double.NaN, Double.NaN, Double.NaN, note);
    }
  }

  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final boolean sse;
  private final int seconds;
  private final boolean era2026;
  /** {@code --warm} of the gateway (2025 era). */
  private final int warm;
  /** Sessions the sessions row opens one after another. */
  private final int sessionCount;
  private final Map<String, Row> rows = new LinkedHashMap<>();
  /** {@code --sessions-only}: the first call and the sessions row, nothing else. */
  private static boolean sessionsOnly;
  private URI url;
  private long servePid;

  private ServeBenchmark(boolean sse, int seconds, boolean era2026, int warm, int sessionCount) {
    this.sse = sse;
    this.seconds = seconds;
    this.era2026 = era2026;
    this.warm = warm;
    this.sessionCount = sessionCount;
  }

  private String title() {
    return era2026 ? "2026 era" : "2025 era" + (warm > 0 ? ", --warm " + warm : "");
  }

  public static void main(String[] args) throws Exception {
    String launcher = "./mcp-stdio";
    String node = "node";
    boolean sse = true;
    int seconds = 5;
    String era = "2025";
    int warm = 0;
    boolean compareWarm = false;
    boolean warmFirst = false; // with --compare-warm: the warm gateway's rows run first
    int sessionCount = 40;
    int startups = 0;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--launcher" -> launcher = args[++i];
        case "--node" -> node = args[++i];
        case "--json" -> sse = false;
        case "--seconds" -> seconds = Integer.parseInt(args[++i]);
        case "--era" -> era = args[++i];
        case "--warm" -> warm = Integer.parseInt(args[++i]);
        case "--compare-warm" -> compareWarm = true;
        case "--warm-first" -> warmFirst = true;
        case "--sessions" -> sessionCount = Integer.parseInt(args[++i]);
        case "--startups" -> startups = Integer.parseInt(args[++i]);
        case "--sessions-only" -> sessionsOnly = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (!List.of("2025", "2026", "both").contains(era)) {
      throw new IllegalArgumentException("--era takes 2025, 2026 or both");
    }
    if (compareWarm && (warm == 0 || !era.equals("2025"))) { // also with --startups
      throw new IllegalArgumentException("--compare-warm needs --warm N and the 2025 era");
    }
    if (startups > 0) {
      startups(launcher, node, compareWarm ? List.of(0, warm) : List.of(warm), startups);
      System.exit(0);
    }
    System.out.println("clients accept " + (sse ? "JSON and event streams" : "JSON only") + "; rounds of " + seconds + " s");
    List<ServeBenchmark> eras = new ArrayList<>();
    if (compareWarm && !warmFirst) {
      eras.add(new ServeBenchmark(sse, seconds, false, 0, sessionCount));
    }
    if (!era.equals("2026")) {
      eras.add(new ServeBenchmark(sse, seconds, false, warm, sessionCount));
    }
    if (compareWarm && warmFirst) { // to see whether running second in each pair weighs on a row
      eras.add(new ServeBenchmark(sse, seconds, false, 0, sessionCount));
    }
    if (!era.equals("2025")) {
      eras.add(new ServeBenchmark(sse, seconds, true, 0, sessionCount));
    }
    List<Process> gateways = new ArrayList<>();
    try {
      for (ServeBenchmark b : eras) {
        gateways.add(b.start(launcher, node));
      }
      for (ServeBenchmark b : eras) {
        b.rows.put("gateway idle RSS", Row.plain(b.rssKb("VmRSS") / 1024 + " MiB", "target ≤ 100 MiB"));
      }
      interleave(eras);
      for (ServeBenchmark b : eras) {
        b.rows.put("gateway peak RSS (VmHWM)", Row.plain(b.rssKb("VmHWM") / 1024 + " MiB"));
      }
    } finally {
      for (Process serve : gateways) {
        serve.destroy();
        serve.waitFor(15, TimeUnit.SECONDS);
      }
    }
    for (ServeBenchmark b : eras) {
      b.print(b.title());
    }
    if (eras.size() == 2) {
      printSideBySide(eras.get(0), eras.get(1));
    }
    System.exit(0);
  }

  /** One measurement, which puts its row (if any) in {@link #rows}. */
  private interface Step {
    void run() throws Exception;
  }

  /**
   * Runs each era's steps in order; with both eras, a step both have runs in one era right after
   * the other (the 2026 era's own steps follow the common step before them), so that the load of
   * a shared machine, which drifts over a run, weighs on both figures of a ratio alike.
   */
  private static void interleave(List<ServeBenchmark> eras) throws Exception {
    Map<String, Step> first = eras.getFirst().steps();
    Map<String, Step> second = eras.size() > 1 ? eras.get(1).steps() : Map.of();
    List<String> secondKeys = new ArrayList<>(second.keySet());
    int next = 0;
    for (Map.Entry<String, Step> step : first.entrySet()) {
      step.getValue().run();
      int at = secondKeys.indexOf(step.getKey());
      if (at >= next) {
        for (; next <= at || (next < secondKeys.size() && !first.containsKey(secondKeys.get(next))); next++) {
          second.get(secondKeys.get(next)).run();
        }
      }
    }
    for (; next < secondKeys.size(); next++) {
      second.get(secondKeys.get(next)).run();
    }
  }

  /** Starts the gateway in front of the echo server, healthy and (with {@code --warm}) its pool full. */
  private Process start(String launcher, String node) throws Exception {
    Process serve = startListening(launcher, node);
    System.err.println("serve at " + url + ", " + title());
    awaitHealthy();
    awaitWarm();
    return serve;
  }

  /** Starts the gateway in front of the echo server and returns once it says it listens; its URL and pid are kept. */
  private Process startListening(String launcher, String node) throws Exception {
    Path child = Path.of("src/test/node/echo-stdio-server.mjs").toAbsolutePath();
    // Default logging (an access-log line per request) is part of what a user runs, so it is kept.
    List<String> command = new ArrayList<>(List.of(launcher, "serve", "--port", "0", "--max-sessions", "500"));
    if (warm > 0) {
      command.addAll(List.of("--warm", Integer.toString(warm)));
    }
    command.addAll(List.of("--", node, child.toString()));
    Process serve = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    servePid = serve.pid(); // the launcher execs the JVM: this is the gateway's pid
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
    Thread.ofPlatform().daemon().start(() -> { // keep its stderr drained until it exits
      try {
        stderr.lines().forEach(l -> { });
      } catch (java.io.UncheckedIOException e) {
        // the stream closed with the gateway
      }
    });
    return serve;
  }

  /**
   * With {@code --warm}, waits (at most 30 s) until the pool is full again and the closed sessions'
   * children are gone: exactly {@code warm} children (called when no session is open), so a round
   * never measures, nor competes with, a refill or a close.
   */
  private void awaitWarm() throws InterruptedException {
    awaitWarm(0);
  }

  /** {@link #awaitWarm()} with {@code open} sessions open (their children counted too). */
  private void awaitWarm(int open) throws InterruptedException {
    if (warm == 0) {
      return;
    }
    boundedly("the pool refilled", Duration.ofSeconds(30), () -> children() == warm + open);
    // and the last ones spawned have started: their CPU time stands still (a Node child's start
    // takes about 100 ms of it)
    awaitQuiet("the warm children started", () -> childPids().toList(), Duration.ofMillis(100), Duration.ofSeconds(10));
  }

  /** Waits until {@code condition} holds, at most {@code timeout}; then the benchmark goes on and says so. */
  private static void boundedly(String what, Duration timeout, java.util.function.BooleanSupplier condition) {
    try {
      Await.until(what, timeout, condition);
    } catch (AssertionError e) {
      System.err.println("[serve-bench] " + e.getMessage() + "; measuring anyway");
    }
  }

  /** Waits until the CPU time of {@code pids} has not moved for {@code quiet} (clock ticks are 10 ms), at most {@code timeout}. */
  private static void awaitQuiet(String what, java.util.function.Supplier<List<Long>> pids, Duration quiet, Duration timeout) {
    long[] last = {-1, System.nanoTime()}; // CPU ms seen last, and since when
    boundedly(what, timeout, () -> {
      long cpu = 0;
      for (long pid : pids.get()) {
        try {
          cpu += CpuProbe.cpuMillis(pid);
        } catch (Exception gone) {
          // a process that ended takes no CPU
        }
      }
      long now = System.nanoTime();
      if (cpu != last[0]) {
        last[0] = cpu;
        last[1] = now;
      }
      return now - last[1] >= quiet.toNanos();
    });
  }

  private Map<String, Step> steps() {
    Map<String, Step> steps = era2026 ? steps2026() : steps2025();
    if (sessionsOnly) {
      steps.keySet().retainAll(List.of("first call", "warm-up", "sessions"));
    }
    if (warm == 0) {
      return steps;
    }
    Map<String, Step> settled = new LinkedHashMap<>();
    steps.forEach((label, step) -> settled.put(label, () -> {
      step.run();
      awaitWarm(); // the pool refills before the next row, of this gateway or the other
    }));
    return settled;
  }

  private Map<String, Step> steps2025() {
    Map<String, Step> steps = new LinkedHashMap<>();
    steps.put("first call", () -> {
      long t0 = System.nanoTime();
      String first = open();
      send(id -> post(first, call(id, Tool.ECHO)), 1);
      rows.put("first call", Row.plain(fmt((System.nanoTime() - t0) / 1e6) + " ms",
          "initialize (" + (warm > 0 ? "a warm child" : "child started") + "), initialized, one call"));
      close(first);
    });
    steps.put("warm-up", () -> {
      List<String> warm = open(4);
      measure(callers(warm, Tool.ECHO), 16, 3);
      closeAll(warm);
    });
    steps.put("sessions", this::sessionsPerSecond);
    for (int sessions : new int[] {1, 8}) {
      for (int concurrency : new int[] {1, 16, 64}) {
        loadStep2025(steps, "concurrency " + concurrency + ", " + scope(sessions), sessions, Tool.ECHO, concurrency);
      }
    }
    if (sse) {
      loadStep2025(steps, "concurrency 16, " + scope(1) + ", a progress notification first", 1, Tool.ECHO_WITH_PROGRESS, 16);
    }
    for (Tool slow : new Tool[] {Tool.SLOW_OVERLAPPING, Tool.SLOW_SERIAL}) {
      for (int sessions : new int[] {1, 8}) {
        loadStep2025(steps, slowLabel(slow) + ", concurrency 16, " + scope(sessions), sessions, slow, 16);
      }
    }
    return steps;
  }

  private void loadStep2025(Map<String, Step> steps, String label, int sessions, Tool tool, int concurrency) {
    steps.put(label, () -> {
      List<String> open = open(sessions);
      awaitWarm(sessions); // the refill behind these sessions is not part of their calls' figures
      load(label, callers(open, tool), concurrency);
      closeAll(open);
    });
  }

  private Map<String, Step> steps2026() {
    Map<String, Step> steps = new LinkedHashMap<>();
    LongFunction<HttpRequest> echo = id -> post2026(call2026(id, Tool.ECHO), "tools/call", "echo");
    steps.put("first call", () -> {
      long t0 = System.nanoTime();
      send(echo, 1);
      rows.put("first call", Row.plain(fmt((System.nanoTime() - t0) / 1e6) + " ms",
          "the pool's first spawn: server/discover probe (answered -32601), a fresh child's handshake, one call"));
    });
    steps.put("second call", () -> {
      send(echo, 2);
      long t1 = System.nanoTime();
      send(echo, 3);
      rows.put("a later single call", Row.plain(fmt((System.nanoTime() - t1) / 1e6) + " ms"));
    });
    steps.put("warm-up", () -> measure(List.of(echo), 16, 3));
    for (int concurrency : new int[] {1, 16, 64}) {
      String label = "concurrency " + concurrency + ", " + scope(1);
      steps.put(label, () -> load(label, List.of(echo), concurrency));
    }
    if (sse) {
      String label = "concurrency 16, " + scope(1) + ", a progress notification first";
      steps.put(label, () -> load(label, List.of(id -> post2026(call2026(id, Tool.ECHO_WITH_PROGRESS), "tools/call", "echo")), 16));
    }
    for (Tool slow : new Tool[] {Tool.SLOW_OVERLAPPING, Tool.SLOW_SERIAL}) {
      String label = slowLabel(slow) + ", concurrency 16, " + scope(1);
      steps.put(label, () -> load(label, List.of(id -> post2026(call2026(id, slow), "tools/call", "slow")), 16));
    }
    return steps;
  }

  /** The 2025 era's rows name sessions; the 2026 era's one principal stands where one session does. */
  private static String scope(int sessions) {
    return sessions == 1 ? "1 session / the principal" : sessions + " sessions";
  }

  private static String slowLabel(Tool slow) {
    return "slow calls (" + SLOW_MS + " ms" + (slow == Tool.SLOW_SERIAL ? ", one at a time per child)" : ", overlapping in the child)");
  }

  private void awaitHealthy() throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url.resolve("/healthz")).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException("healthz: " + r.statusCode());
    }
  }

  private String open() throws Exception {
    return open(null);
  }

  /** Opens a session; {@code initializeMillis}, when given, gets how long its initialize took to be answered. */
  private String open(Samples initializeMillis) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<String> r = http.send(post(null, INIT), HttpResponse.BodyHandlers.ofString());
    if (initializeMillis != null) {
      initializeMillis.add((System.nanoTime() - t0) / 1e6);
    }
    if (r.statusCode() != 200) {
      throw new IllegalStateException("initialize: " + r.statusCode() + " " + r.body());
    }
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    http.send(post(session, INITIALIZED), HttpResponse.BodyHandlers.discarding());
    return session;
  }

  private List<String> open(int n) throws Exception {
    List<String> sessions = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      sessions.add(open());
    }
    return sessions;
  }

  private void close(String session) throws Exception {
    http.send(HttpRequest.newBuilder(url).header("Mcp-Session-Id", session).DELETE().build(), HttpResponse.BodyHandlers.discarding());
  }

  private void closeAll(List<String> sessions) throws Exception {
    for (String s : sessions) {
      close(s);
    }
  }

  private List<LongFunction<HttpRequest>> callers(List<String> sessions, Tool tool) {
    return sessions.stream().<LongFunction<HttpRequest>>map(s -> id -> post(s, call(id, tool))).toList();
  }

  private HttpRequest.Builder request(String body) {
    return HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(60))
        .header("Content-Type", "application/json")
        .header("Accept", sse ? "application/json, text/event-stream" : "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body));
  }

  private HttpRequest post(String session, String body) {
    HttpRequest.Builder b = request(body);
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b.build();
  }

  /** A 2026-era POST: no session, the routing headers (docs/reference.md, "The 2026 era on the endpoint"). */
  private HttpRequest post2026(String body, String method, String name) {
    HttpRequest.Builder b = request(body).header("MCP-Protocol-Version", ERA_2026).header("Mcp-Method", method);
    if (name != null) {
      b.header("Mcp-Name", name);
    }
    return b.build();
  }

  private static String call(long id, Tool tool) {
    String meta = tool.progress() ? ",\"_meta\":{\"progressToken\":\"p" + id + "\"}" : "";
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool.name()
        + "\",\"arguments\":{\"text\":\"hello " + id + "\"" + tool.arguments() + "}" + meta + "}}";
  }

  private static String call2026(long id, Tool tool) {
    String meta = ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"" + ERA_2026 + "\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}" + (tool.progress() ? ",\"progressToken\":\"p" + id + "\"" : "") + "}";
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool.name()
        + "\",\"arguments\":{\"text\":\"hello " + id + "\"" + tool.arguments() + "}" + meta + "}}";
  }

  /** One call, checked; fails the run when it fails (the first calls are not part of a round). */
  private void send(LongFunction<HttpRequest> caller, long id) throws Exception {
    HttpResponse<String> r = http.send(caller.apply(id), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200 || !r.body().contains("\"hello " + id + "\"")) {
      throw new IllegalStateException("call " + id + ": " + r.statusCode() + " " + r.body());
    }
  }

  private void sessionsPerSecond() throws Exception {
    int n = sessionCount;
    Samples initialize = new Samples();
    List<String> sessions = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      sessions.add(open(initialize));
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    closeAll(sessions);
    double[] sorted = Arrays.stream(initialize.values, 0, initialize.count).sorted().toArray();
    rows.put("sessions opened per second (" + n + " one after another; initialize + initialized; p50/p99: initialize answered)",
        new Row(fmt(n / elapsed), n / elapsed, percentile(sorted, 50), percentile(sorted, 99),
            warm > 0 ? "the first " + warm + " take warm children, the rest what the refill has started" : "each child started by its initialize"));
  }

  /**
   * serve's own start-up, {@code runs} times for each of {@code warms} (one start of each in turn,
   * so that a drifting load weighs on all alike): spawn to the "serving" line, the first
   * initialize right after it, then, once idle (the pool full, a second more), the gateway's RSS
   * (its children are processes of their own) and a second initialize. Medians, with the spread.
   */
  private static void startups(String launcher, String node, List<Integer> warms, int runs) throws Exception {
    Map<Integer, List<List<Double>>> figures = new LinkedHashMap<>();
    for (int w : warms) {
      figures.put(w, List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>()));
    }
    for (int i = 0; i < runs; i++) {
      for (int w : warms) {
        List<List<Double>> f = figures.get(w);
        ServeBenchmark b = new ServeBenchmark(false, 0, false, w, 1);
        long t0 = System.nanoTime();
        Process serve = b.startListening(launcher, node);
        f.get(0).add((System.nanoTime() - t0) / 1e6);
        try {
          Samples init = new Samples();
          b.close(b.open(init));
          b.awaitWarm();
          // idle: the closed session's child gone, the gateway's CPU still for half a second
          awaitQuiet("the gateway idle", () -> List.of(b.servePid), Duration.ofMillis(500), Duration.ofSeconds(10));
          f.get(2).add(b.rssKb("VmRSS") / 1024.0);
          b.close(b.open(init));
          f.get(1).add(init.values[0]);
          f.get(3).add(init.values[1]);
        } finally {
          serve.destroy();
          serve.waitFor(15, TimeUnit.SECONDS);
        }
      }
    }
    System.out.println();
    System.out.println("### serve's start-up (" + runs + " starts each, in turn: median (min-max))");
    System.out.println();
    System.out.println("| gateway | listening | first initialize, right after | gateway RSS once idle (one session opened and closed; children apart) | an initialize on the idle gateway |");
    System.out.println("|---|---|---|---|---|");
    figures.forEach((w, f) -> System.out.println("| " + (w == 0 ? "without --warm" : "--warm " + w) + " | " + spread(f.get(0), " ms")
        + " | " + spread(f.get(1), " ms") + " | " + spread(f.get(2), " MiB") + " | " + spread(f.get(3), " ms") + " |"));
  }

  private static String spread(List<Double> values, String unit) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    return fmt(percentile(sorted, 50)) + unit + " (" + fmt(sorted[0]) + "-" + fmt(sorted[sorted.length - 1]) + ")";
  }

  private void load(String label, List<LongFunction<HttpRequest>> callers, int concurrency) throws Exception {
    String load = loadAverage();
    Result r = measure(callers, concurrency, seconds);
    String note = (era2026 ? "" : TARGETS.getOrDefault(label, "")) + "load " + load + (r.failures > 0 ? "; " + r.failures + " failed" : "")
        + (era2026 ? "; pool children after: " + children() : "");
    rows.put(label, new Row(fmt(r.perSecond), r.perSecond, r.p50, r.p99, note));
  }

  private record Result(double perSecond, double p50, double p99, long failures) {}

  /** Latencies of one worker, in milliseconds. */
  private static final class Samples {
    double[] values = new double[4096];
    int count;

    void add(double v) {
      if (count == values.length) {
        values = Arrays.copyOf(values, count * 2);
      }
      values[count++] = v;
    }
  }

  /** Worker {@code w} sends its calls back to back through {@code callers.get(w % size)} for {@code runSeconds}. */
  private Result measure(List<LongFunction<HttpRequest>> callers, int concurrency, int runSeconds) throws Exception {
    AtomicLong ids = new AtomicLong(1_000);
    AtomicLong failures = new AtomicLong();
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(runSeconds);
    List<Samples> latencies = new ArrayList<>();
    List<Thread> workers = new ArrayList<>();
    long t0 = System.nanoTime();
    for (int w = 0; w < concurrency; w++) {
      LongFunction<HttpRequest> caller = callers.get(w % callers.size());
      Samples mine = new Samples();
      latencies.add(mine);
      workers.add(Thread.ofPlatform().start(() -> {
        while (System.nanoTime() < end) {
          long id = ids.getAndIncrement();
          long start = System.nanoTime();
          try {
            HttpResponse<String> r = http.send(caller.apply(id), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200 || !r.body().contains("\"hello " + id + "\"")) {
              failures.incrementAndGet();
            }
          } catch (IOException | InterruptedException e) {
            failures.incrementAndGet();
          }
          mine.add((System.nanoTime() - start) / 1e6);
        }
      }));
    }
    for (Thread t : workers) {
      t.join();
    }
    double elapsed = (System.nanoTime() - t0) / 1e9;
    double[] sorted = latencies.stream().flatMapToDouble(s -> Arrays.stream(s.values, 0, s.count)).sorted().toArray();
    return new Result(sorted.length / elapsed, percentile(sorted, 50), percentile(sorted, 99), failures.get());
  }

  private static double percentile(double[] sorted, double p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
    return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
  }

  /** The gateway's children now, its process-tree watchdog shell not counted. */
  private long children() {
    return ProcessHandle.of(servePid).isPresent() ? childPids().count() : -1L;
  }

  private java.util.stream.Stream<Long> childPids() {
    return ProcessHandle.of(servePid).stream().flatMap(ProcessHandle::children)
        .filter(c -> !c.info().commandLine().orElse("").contains("mcp-stdio-watchdog")).map(ProcessHandle::pid);
  }

  private long rssKb(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + servePid + "/status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  private static String loadAverage() throws IOException {
    return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
  }

  private void print(String title) {
    System.out.println();
    System.out.println("### " + title);
    System.out.println();
    System.out.println("| measure | calls/s | p50 | p99 | note |");
    System.out.println("|---|---|---|---|---|");
    rows.forEach((label, r) -> System.out.println("| " + label + " | " + r.value() + " | " + ms(r.p50()) + " | " + ms(r.p99()) + " | "
        + r.note() + " |"));
  }

  /** The rows both gateways measured, with the second one's calls/s and p99 as ratios of the first one's. */
  private static void printSideBySide(ServeBenchmark first, ServeBenchmark second) {
    String a = first.title();
    String b = second.title();
    System.out.println();
    System.out.println("### side by side");
    System.out.println();
    System.out.println("| measure | " + a + " | " + b + " | calls/s second/first | p99 second/first |");
    System.out.println("|---|---|---|---|---|");
    second.rows.forEach((label, r2) -> {
      Row r1 = first.rows.get(label);
      if (r1 == null) {
        return;
      }
      boolean timed = !Double.isNaN(r2.perSecond()) && !Double.isNaN(r1.perSecond());
      System.out.println("| " + label + " | " + cell(r1) + " | " + cell(r2) + " | "
          + (timed ? String.format(Locale.ROOT, "%.2fx", r2.perSecond() / r1.perSecond()) : "") + " | "
          + (timed ? String.format(Locale.ROOT, "%.2fx", r2.p99() / r1.p99()) : "") + " |");
    });
  }

  private static String cell(Row r) {
    return Double.isNaN(r.perSecond()) ? r.value() : r.value() + "/s, p50 " + ms(r.p50()) + ", p99 " + ms(r.p99());
  }

  private static String ms(double v) {
    return Double.isNaN(v) ? "" : fmt(v) + " ms";
  }

  private static String fmt(double v) {
    return v >= 100 ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.2f", v);
  }
}
