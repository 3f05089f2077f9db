package dev.mcpstdio.conformance;

import dev.mcpstdio.testing.NodePeers;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * One batch run of the conformance suite's server scenarios against {@code mcp-stdio serve}: serve
 * starts over a stdio fixture ({@link ConformanceServe}), the suite's CLI runs once, without
 * {@code --scenario}, over every scenario its selecting options name (for example {@code --suite
 * all --spec-version V} or {@code --requirements R}), serve stops, and each scenario's verdict is
 * read from the {@code checks.json} the CLI wrote for it. One Node process for the whole set
 * instead of one per scenario: Node's start-up was most of each scenario's time.
 *
 * <p>The CLI's exit status is the whole batch's, so it decides nothing per scenario: a scenario
 * passes when it has a {@code checks.json} with at least one check and no FAILURE among them
 * ({@link ScenarioRun#passed()}).
 *
 * <p>The CLI announces each scenario on its stdout ({@code === Running scenario: S ===}, both
 * pinned suites); that line splits the CLI's output per scenario exactly and serve's stderr per
 * scenario approximately: serve's lines are cut where serve's output stood when the announcement
 * was read, so a line serve writes late (a session reaped after its idle TTL, an exchange logged
 * as the next scenario starts) lands in a later scenario's file.
 *
 * <p>Bounds: a scenario that runs longer than {@link ConformanceServe#SCENARIO_TIMEOUT} without the
 * CLI announcing the next one (or exiting) gets the CLI killed, so the batch takes at most that
 * long per scenario; the scenarios not finished by then have no checks and fail, saying so. The
 * CLI's output is kept in memory (some hundred lines per scenario) until it is split.
 *
 * <p>Writes under the work folder: {@code cli.log} (the CLI's whole output), {@code serve.log},
 * {@code results/server-<scenario>-<time>/checks.json} (the CLI's), per scenario {@code
 * <scenario>-cli.log} and {@code <scenario>-serve.log} (the slices above), and {@code summary.txt}
 * (each scenario's verdict, also printed to stderr).
 */
final class ConformanceBatch {

  private static final Pattern ANNOUNCED = Pattern.compile("^=== Running scenario: (\\S+) ===$");
  private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

  /** One scenario of the batch, as its checks report it. */
  record ScenarioRun(String scenario, long millis, List<JsonNode> checks, List<String> failures,
      List<String> warnings, String report) {

    /** The suite's verdict for one scenario: it reported checks, and none of them is a FAILURE. */
    boolean passed() {
      return !checks.isEmpty() && failures.isEmpty();
    }

    long successes() {
      return checks.stream().filter(c -> "SUCCESS".equals(c.path("status").asString(""))).count();
    }

    String verdict() {
      return (passed() ? "PASS " : "FAIL ") + scenario + " (" + successes() + " SUCCESS, " + failures.size()
          + " FAILURE, " + warnings.size() + " WARNING, " + millis + " ms)";
    }
  }

  /** Where the CLI announced a scenario: when, and how far its output and serve's stood then. */
  private record Announcement(String scenario, long nanos, int cliLine, int serveLine) {}

  final Path work;
  /** The CLI's exit status (the whole batch's), -1 when it was killed. */
  final int exit;
  final long millis;
  /** The scenarios asked for, in order, each with its result. */
  final Map<String, ScenarioRun> runs;
  /** Scenarios the CLI ran that were not asked for (reported, never judged). */
  final List<String> unasked;

  private ConformanceBatch(Path work, int exit, long millis, Map<String, ScenarioRun> runs, List<String> unasked) {
    this.work = work;
    this.exit = exit;
    this.millis = millis;
    this.runs = runs;
    this.unasked = unasked;
  }

  /**
   * Starts serve over {@code child} in {@code work}, runs the CLI at {@code cli} once ({@code server
   * --url U SELECT -o work/results}), stops serve, and returns the result of each of {@code
   * scenarios}. A serve that does not start fails every scenario with its log, not the caller.
   */
  static ConformanceBatch run(Path work, List<String> child, Path node, Path cli, List<String> select,
      List<String> scenarios) throws IOException, InterruptedException {
    ConformanceRuns.deleteRecursively(work.resolve("results"));
    ConformanceServe serve;
    try {
      serve = ConformanceServe.start(work, child);
    } catch (AssertionError e) {
      return failed(work, scenarios, "serve did not start, so no scenario ran: " + e.getMessage());
    }
    List<String> cliLines = Collections.synchronizedList(new ArrayList<>());
    List<Announcement> announced = Collections.synchronizedList(new ArrayList<>());
    long start = System.nanoTime();
    int exit;
    String killedIn = null;
    try {
      List<String> args = new ArrayList<>(List.of("server", "--url", serve.url));
      args.addAll(select);
      args.addAll(List.of("-o", work.resolve("results").toString()));
      Process process = startCli(node, cli, args);
      Thread reader = Thread.ofVirtual().start(() -> read(process, work.resolve("cli.log"), cliLines, announced, serve));
      killedIn = awaitWithWatchdog(process, announced, start);
      exit = killedIn == null ? process.exitValue() : -1;
      reader.join(Duration.ofSeconds(10));
    } finally {
      serve.stop();
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    ConformanceBatch batch = split(work, exit, millis, killedIn, scenarios, List.copyOf(cliLines), List.copyOf(announced),
        serve.stderrLines(), start);
    batch.writeSummary(cli);
    return batch;
  }

  /** A batch that ran no scenario, for {@code reason}: every scenario fails with it. */
  static ConformanceBatch failed(Path work, List<String> scenarios, String reason) {
    Map<String, ScenarioRun> runs = new LinkedHashMap<>();
    for (String scenario : scenarios) {
      runs.put(scenario, new ScenarioRun(scenario, 0, List.of(), List.of(), List.of(), "\n=== " + reason));
    }
    return new ConformanceBatch(work, -1, 0, runs, List.of());
  }

  private static Process startCli(Path node, Path cli, List<String> cliArgs) throws IOException {
    List<String> command = new ArrayList<>(List.of(node.toString(), cli.toString()));
    command.addAll(cliArgs);
    return new ProcessBuilder(command)
        .directory(NodePeers.basedir().toFile())
        .redirectErrorStream(true)
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
  }

  /** Copies the CLI's output to {@code log} and the lines list, noting each announcement as it is read. */
  private static void read(Process process, Path log, List<String> lines, List<Announcement> announced,
      ConformanceServe serve) {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        BufferedWriter out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
      for (String line; (line = in.readLine()) != null; ) {
        String plain = ANSI.matcher(line).replaceAll("");
        Matcher m = ANNOUNCED.matcher(plain.trim());
        synchronized (announced) {
          if (m.matches()) {
            announced.add(new Announcement(m.group(1), System.nanoTime(), lines.size(), serve.stderrLineCount()));
            announced.notifyAll();
          }
          lines.add(plain);
        }
        out.write(plain);
        out.newLine();
      }
    } catch (IOException e) {
      lines.add("(reading the CLI's output failed: " + e + ")");
    }
  }

  /**
   * Waits for the CLI to exit; kills it (and anything it started) once a scenario has run for
   * {@link ConformanceServe#SCENARIO_TIMEOUT} without the next being announced. Returns the scenario
   * it was killed in, or null when it exited.
   */
  private static String awaitWithWatchdog(Process process, List<Announcement> announced, long start)
      throws InterruptedException {
    long timeout = ConformanceServe.SCENARIO_TIMEOUT.toNanos();
    while (true) {
      Announcement last;
      synchronized (announced) {
        last = announced.isEmpty() ? null : announced.getLast();
      }
      long since = last == null ? start : last.nanos();
      long remaining = since + timeout - System.nanoTime();
      if (remaining > 0) {
        if (process.waitFor(remaining, TimeUnit.NANOSECONDS)) {
          return null;
        }
        continue; // woken at the deadline: look again, an announcement may have moved it
      }
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      process.waitFor(10, TimeUnit.SECONDS);
      return last == null ? "(before the first scenario)" : last.scenario();
    }
  }

  private static ConformanceBatch split(Path work, int exit, long millis, String killedIn, List<String> scenarios,
      List<String> cliLines, List<Announcement> announced, List<String> serveLines, long start) throws IOException {
    Path results = work.resolve("results");
    Files.createDirectories(results);
    long end = start + TimeUnit.MILLISECONDS.toNanos(millis);
    Map<String, Integer> position = new LinkedHashMap<>();
    for (int i = 0; i < announced.size(); i++) {
      position.putIfAbsent(announced.get(i).scenario(), i);
    }
    Map<String, ScenarioRun> runs = new LinkedHashMap<>();
    for (String scenario : scenarios) {
      String slug = scenario.replace('/', '-');
      Integer i = position.get(scenario);
      List<String> cliSlice = List.of();
      List<String> serveSlice = List.of();
      long scenarioMillis = 0;
      if (i != null) {
        Announcement a = announced.get(i);
        Announcement next = i + 1 < announced.size() ? announced.get(i + 1) : null;
        cliSlice = cliLines.subList(a.cliLine(), next == null ? cliLines.size() : next.cliLine());
        serveSlice = serveLines.subList(Math.min(a.serveLine(), serveLines.size()),
            next == null ? serveLines.size() : Math.min(next.serveLine(), serveLines.size()));
        scenarioMillis = TimeUnit.NANOSECONDS.toMillis((next == null ? end : next.nanos()) - a.nanos());
      }
      Path cliLog = work.resolve(slug + "-cli.log");
      Path serveLog = work.resolve(slug + "-serve.log");
      Files.write(cliLog, cliSlice, StandardCharsets.UTF_8);
      Files.write(serveLog, serveSlice, StandardCharsets.UTF_8);

      Path runDir = ConformanceRuns.newestRunDir(results, "server-" + slug);
      List<JsonNode> checks = runDir == null ? List.of() : ConformanceRuns.readChecks(runDir.resolve("checks.json"));
      List<String> failures = new ArrayList<>();
      List<String> warnings = new ArrayList<>();
      for (JsonNode check : checks) {
        String status = check.path("status").asString("");
        if (status.equals("FAILURE")) {
          failures.add(describe(check));
        } else if (status.equals("WARNING")) {
          warnings.add(describe(check));
        }
      }
      String missing = runDir != null ? ""
          : i == null && killedIn != null ? "\n=== no checks.json: the CLI was killed in scenario " + killedIn
              + " (no progress for " + ConformanceServe.SCENARIO_TIMEOUT.toSeconds() + " s) before it ran this one"
          : i == null ? "\n=== no checks.json: the CLI never ran this scenario (see " + work.resolve("cli.log") + ")"
          : scenario.equals(killedIn) ? "\n=== no checks.json: the CLI was killed after this scenario ran "
              + ConformanceServe.SCENARIO_TIMEOUT.toSeconds() + " s"
          : "\n=== the CLI wrote no checks.json for this scenario";
      String report = "\n=== scenario " + scenario + ": " + scenarioMillis + " ms, in one CLI run of the set (exit "
          + exit + " after " + millis + " ms)" + missing
          + "\n=== failed checks:\n  " + String.join("\n  ", failures)
          + "\n=== warnings:\n  " + String.join("\n  ", warnings)
          + "\n=== CLI output for the scenario (" + cliLog + "):\n" + ConformanceServe.tail(String.join("\n", cliSlice), 12_000)
          + "\n=== serve stderr while the CLI ran the scenario, approximately (" + serveLog + "):\n"
          + ConformanceServe.tail(String.join("\n", serveSlice), 20_000);
      runs.put(scenario, new ScenarioRun(scenario, scenarioMillis, checks, failures, warnings, report));
    }
    Set<String> unasked = new LinkedHashSet<>();
    for (Announcement a : announced) {
      if (!runs.containsKey(a.scenario())) {
        unasked.add(a.scenario());
      }
    }
    return new ConformanceBatch(work, exit, millis, Collections.unmodifiableMap(runs), List.copyOf(unasked));
  }

  /** The result of {@code scenario}, which must be one of those asked for. */
  ScenarioRun get(String scenario) {
    ScenarioRun run = runs.get(scenario);
    if (run == null) {
      throw new AssertionError("scenario not part of this batch: " + scenario);
    }
    return run;
  }

  private void writeSummary(Path cli) throws IOException {
    long passed = runs.values().stream().filter(ScenarioRun::passed).count();
    StringBuilder out = new StringBuilder(String.format(
        "[conformance] %s: %d of %d scenarios pass; one CLI run (%s), exit %d after %d s%n", work, passed, runs.size(),
        NodePeers.basedir().relativize(cli), exit, TimeUnit.MILLISECONDS.toSeconds(millis)));
    out.append(String.format("  %-50s %-6s %8s  %s%n", "scenario", "result", "ms", "checks S/F/W"));
    for (ScenarioRun r : runs.values()) {
      out.append(String.format("  %-50s %-6s %8d  %d/%d/%d%n", r.scenario(), r.passed() ? "pass" : "FAIL", r.millis(),
          r.successes(), r.failures().size(), r.warnings().size()));
    }
    if (!unasked.isEmpty()) {
      out.append("  also run by the CLI, not judged here: ").append(String.join(", ", unasked)).append('\n');
    }
    Files.writeString(work.resolve("summary.txt"), out, StandardCharsets.UTF_8);
    System.err.print(out);
  }

  private static String describe(JsonNode check) {
    JsonNode details = check.path("details");
    return check.path("status").asString("") + " " + check.path("id").asString("") + ": "
        + check.path("errorMessage").asString(check.path("description").asString(""))
        + (details.isMissingNode() ? "" : " details=" + details);
  }
}
