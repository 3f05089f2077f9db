package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.LineCollector;
import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The conformance suite 0.2.0-alpha.12's server scenarios at the 2026-07-28 requirements against
 * {@code mcp-stdio serve}, over two stdio fixtures with the same surface:
 *
 * <ul>
 *   <li>{@code era2025-child}: {@link ConformanceFixtureServer}, a <em>2025-era</em> server (Java
 *       SDK) whose 2026 scenario tools ({@link ConformanceFixture2026Surface}) ask the client with
 *       real server-to-client requests, so serve must bridge them into {@code input_required}
 *       rounds, stamp results, serve listen streams and so on;
 *   <li>{@code era2026-child}: {@code src/test/node/era2026/conformance-fixture.mjs}, a
 *       <em>2026-era</em> server (TypeScript SDK v2 {@code serveStdio}, 2026 only) that serve must
 *       probe with {@code server/discover} and speak 2026 to.
 * </ul>
 *
 * <p>The scenarios are what {@code list --requirements 2026-07-28} names for a server (required)
 * plus its pending server scenarios; the {@code tasks-*} extension scenarios are run by the suite
 * but never scored, and neither fixture implements tasks, so they are not judged. Per fixture, one
 * CLI run against one serve takes the whole requirement set ({@code server --requirements
 * 2026-07-28}, {@link ConformanceBatch}, the tasks scenarios with it), at the fixture's first
 * test; each scenario is then a test of its own, judged from its {@code checks.json}: it passes
 * when it reported checks and none is a FAILURE (the CLI's exit status is the whole run's).
 *
 * <p>What must pass grows with the gateway: a scenario named in {@code
 * src/test/resources/conformance/serve-2026-expected-<fixture>.txt} (one per line, {@code #}
 * comments) must pass; any other is run and its result recorded (a test report entry, and the test
 * is aborted, so it shows as skipped with the verdict as reason), so a scenario that starts
 * passing says so and can be added to the list. {@code -Dconformance.strict=true} makes every
 * scenario mandatory. {@code -Dconformance.fixtures=era2025-child} (comma-separated) runs only the
 * fixtures named, so CI can run them as separate jobs.
 *
 * <p>{@link #fixtureOfTheSecondKindPassesDirectly} checks the 2026 fixture itself first, served
 * straight over HTTP by the TypeScript SDK ({@code conformance-fixture-http.mjs}): every scenario
 * must pass there, so what fails behind serve is serve's.
 *
 * <p>Artifacts under {@code target/conformance/server-2026/<fixture>/} as {@link ConformanceBatch}
 * lays them out, {@code target/conformance/server-2026/direct/} for the direct run, and {@code
 * target/conformance/server-2026/summary.txt}: pass or fail per fixture and scenario, also printed
 * to stderr.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConformanceServer2026IT {

  static final String REQUIREMENTS = "2026-07-28";

  private static final Path WORK = NodePeers.basedir().resolve("target/conformance/server-2026");
  private static final Pattern LISTENING = Pattern.compile("^LISTENING (\\d+) (\\S+)$");

  /** A stdio fixture serve runs as its child. */
  enum Fixture {
    ERA2025_CHILD("era2025-child"),
    ERA2026_CHILD("era2026-child");

    final String slug;

    Fixture(String slug) {
      this.slug = slug;
    }

    Path work() {
      return WORK.resolve(slug);
    }

    List<String> command() throws IOException, InterruptedException {
      return switch (this) {
        case ERA2025_CHILD -> ConformanceFixtureJvm.command();
        case ERA2026_CHILD -> List.of(NodePeers.node().toString(),
            NodePeers.era2026().resolve("conformance-fixture.mjs").toString());
      };
    }

    /** The committed list of scenarios that must pass through serve with this fixture. */
    Set<String> expected() throws IOException {
      String resource = "/conformance/serve-2026-expected-" + slug + ".txt";
      try (InputStream in = ConformanceServer2026IT.class.getResourceAsStream(resource)) {
        if (in == null) {
          throw new AssertionError("expectation file missing from the test resources: " + resource);
        }
        Set<String> names = new LinkedHashSet<>();
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          String name = line.replaceFirst("#.*", "").trim();
          if (!name.isEmpty()) {
            names.add(name);
          }
        }
        return names;
      }
    }

    static List<Fixture> selected() {
      String names = System.getProperty("conformance.fixtures", "").trim();
      if (names.isEmpty()) {
        return List.of(values());
      }
      List<Fixture> chosen = new ArrayList<>();
      for (String name : names.split(",")) {
        chosen.add(Stream.of(values()).filter(f -> f.slug.equals(name.trim())).findFirst()
            .orElseThrow(() -> new AssertionError("unknown fixture in -Dconformance.fixtures: " + name)));
      }
      return chosen;
    }
  }

  /** A scenario's verdict for the summary. */
  private record Verdict(boolean passed, boolean expected, long millis, long successes, int failures, int warnings) {}

  private static Path node;
  private static Path cli;
  private static List<String> scenarioNames;
  private static final Map<Fixture, ConformanceBatch> BATCHES = new ConcurrentHashMap<>();
  private static final Map<Fixture, Map<String, Verdict>> VERDICTS = new ConcurrentHashMap<>();

  @BeforeAll
  static void installSuite() {
    node = NodePeers.node22();
    cli = ConformanceRuns.cliNext();
  }

  @AfterAll
  static void summarize() throws IOException {
    if (!VERDICTS.isEmpty()) {
      String summary = summary();
      Files.createDirectories(WORK);
      Files.writeString(WORK.resolve("summary.txt"), summary, StandardCharsets.UTF_8);
      System.err.println(summary);
    }
  }

  /** The required server scenarios of the 2026-07-28 requirements, then its pending server ones. */
  static synchronized List<String> scenarioNames() throws IOException, InterruptedException {
    if (scenarioNames == null) {
      Path cliNext = ConformanceRuns.cliNext();
      Path log = WORK.resolve("list.log");
      List<String> listArgs = List.of("--server", "--requirements", REQUIREMENTS);
      List<String> names = new ArrayList<>(ConformanceServe.listed(NodePeers.node22(), cliNext, listArgs, "Server scenarios", log));
      assertThat(names).as("required server scenarios listed by the suite").hasSizeGreaterThanOrEqualTo(37)
          .contains("server-stateless", "caching", "input-required-result-multi-round");
      List<String> pending = ConformanceServe.listed(NodePeers.node22(), cliNext, listArgs, "pending", log);
      assertThat(pending).as("pending server scenarios listed by the suite").contains("http-header-validation");
      names.addAll(pending);
      scenarioNames = List.copyOf(names);
    }
    return scenarioNames;
  }

  static Stream<Arguments> scenarios() throws IOException, InterruptedException {
    List<Arguments> all = new ArrayList<>();
    for (Fixture fixture : Fixture.selected()) {
      for (String scenario : scenarioNames()) {
        all.add(Arguments.of(fixture, scenario));
      }
    }
    return all.stream();
  }

  /**
   * The 2026 fixture itself, served directly over HTTP by the TypeScript SDK, passes every scenario
   * (one CLI run of the whole requirement set): the fixture is right, so a scenario that fails
   * behind serve fails because of serve.
   */
  @Test
  @Order(1)
  void fixtureOfTheSecondKindPassesDirectly() throws Exception {
    Assumptions.assumeTrue(Fixture.selected().contains(Fixture.ERA2026_CHILD), "era2026-child not selected");
    Path folder = NodePeers.era2026();
    Path work = WORK.resolve("direct");
    ConformanceRuns.deleteRecursively(work);
    Files.createDirectories(work);
    Process server = new ProcessBuilder(NodePeers.node().toString(), folder.resolve("conformance-fixture-http.mjs").toString(), "0")
        .directory(folder.toFile())
        .redirectError(work.resolve("fixture-http.log").toFile())
        .start();
    LineCollector stdout = new LineCollector().collect(server.getInputStream());
    try {
      Matcher m = LISTENING.matcher(stdout.next(Duration.ofSeconds(30)));
      assertThat(m.matches()).as("the HTTP fixture's first line").isTrue();
      Path log = work.resolve("cli.log");
      long start = System.nanoTime();
      int exit = ConformanceServe.runCli(node, cli,
          List.of("server", "--url", m.group(2), "--requirements", REQUIREMENTS, "-o", work.resolve("results").toString()),
          log, Duration.ofMinutes(3));
      long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
      List<String> notPassing = new ArrayList<>();
      for (String scenario : scenarioNames()) {
        Path runDir = ConformanceRuns.newestRunDir(work.resolve("results"), "server-" + scenario);
        boolean passed = runDir != null && ConformanceRuns.readChecks(runDir.resolve("checks.json")).stream()
            .noneMatch(c -> "FAILURE".equals(c.path("status").asString("")));
        if (!passed) {
          notPassing.add(scenario);
        }
      }
      System.err.printf("[conformance] 2026 fixture served directly: CLI exit %d after %d s, %d of %d scenarios pass%n",
          exit, seconds, scenarioNames().size() - notPassing.size(), scenarioNames().size());
      assertThat(notPassing).as("scenarios failing against the fixture itself; CLI output:\n%s",
          ConformanceServe.tail(ConformanceServe.readOrNote(log), 12_000)).isEmpty();
      // the CLI's own exit also counts the tasks-* extension scenarios, which it does not score
      assertThat(exit).as("conformance CLI exit code (the requirement set passes)").isZero();
    } finally {
      server.getOutputStream().close(); // the wrapper exits on stdin EOF
      if (!server.waitFor(10, TimeUnit.SECONDS)) {
        server.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("scenarios")
  @Order(2)
  void serverScenarioThroughTheGateway(Fixture fixture, String scenario, TestReporter reporter) throws Exception {
    boolean mandatory = Boolean.getBoolean("conformance.strict") || fixture.expected().contains(scenario);
    ConformanceBatch.ScenarioRun run = batchFor(fixture).get(scenario);
    VERDICTS.computeIfAbsent(fixture, f -> new ConcurrentHashMap<>()).put(scenario, new Verdict(run.passed(), mandatory,
        run.millis(), run.successes(), run.failures().size(), run.warnings().size()));
    for (String warning : run.warnings()) {
      reporter.publishEntry("warning", warning);
    }
    String verdict = fixture.slug + " " + run.verdict();
    reporter.publishEntry("result", verdict);
    if (!mandatory) {
      Assumptions.abort(verdict + (run.passed()
          ? ": passes now; add it to serve-2026-expected-" + fixture.slug + ".txt"
          : ": not yet expected (serve-2026-expected-" + fixture.slug + ".txt)"));
    }
    assertThat(run.checks()).as("checks reported%s", run.report()).isNotEmpty();
    assertThat(run.failures()).as("checks with status FAILURE%s", run.report()).isEmpty();
  }

  /** The fixture's whole scenario set, run once (serve started and stopped around it) at its first test. */
  private static synchronized ConformanceBatch batchFor(Fixture fixture) throws IOException, InterruptedException {
    ConformanceBatch batch = BATCHES.get(fixture);
    if (batch == null) {
      try {
        batch = ConformanceBatch.run(fixture.work(), fixture.command(), node, cli, List.of("--requirements", REQUIREMENTS),
          scenarioNames());
      } catch (IOException | RuntimeException | AssertionError e) {
        // kept like a result: a batch that broke is not run again for each of its scenarios
        batch = ConformanceBatch.failed(fixture.work(), scenarioNames(), "the batch run failed: " + e);
      }
      BATCHES.put(fixture, batch);
    }
    return batch;
  }

  private static String summary() {
    StringBuilder out = new StringBuilder("[conformance] serve at the 2026-07-28 requirements (" + REQUIREMENTS
        + "), conformance 0.2.0-alpha.12\n");
    for (Fixture fixture : Fixture.values()) {
      Map<String, Verdict> verdicts = VERDICTS.get(fixture);
      if (verdicts == null) {
        continue;
      }
      long passed = verdicts.values().stream().filter(Verdict::passed).count();
      ConformanceBatch batch = BATCHES.get(fixture);
      out.append(String.format("%n%s: %d of %d scenarios pass (one CLI run, %d s)%n", fixture.slug, passed, verdicts.size(),
          batch == null ? 0 : TimeUnit.MILLISECONDS.toSeconds(batch.millis)));
      out.append(String.format("  %-50s %-6s %-9s %8s  %s%n", "scenario", "result", "expected", "ms", "checks S/F/W"));
      for (String scenario : scenarioNamesOrEmpty()) {
        Verdict v = verdicts.get(scenario);
        if (v != null) {
          out.append(String.format("  %-50s %-6s %-9s %8d  %d/%d/%d%n", scenario, v.passed() ? "pass" : "FAIL",
              v.expected() ? "expected" : "-", v.millis(), v.successes(), v.failures(), v.warnings()));
        }
      }
    }
    return out.toString();
  }

  private static List<String> scenarioNamesOrEmpty() {
    return scenarioNames == null ? List.of() : scenarioNames;
  }
}
