package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The official MCP conformance suite's server scenarios for spec 2025-11-25 against {@code
 * mcp-stdio serve} publishing {@link ConformanceFixtureServer} (a 2025-era stdio server, one child
 * per session), with both suites the project pins: 0.1.16 ({@code src/test/node/conformance}) and
 * the pre-release 0.2.0-alpha.12 ({@code src/test/node/conformance-next}) run at {@code
 * --spec-version 2025-11-25}. What the suite checks is the gateway's HTTP behaviour plus the
 * fixture's MCP surface; every scenario must pass, so the 2025 era stays as it is while serve
 * learns the 2026 one ({@link ConformanceServer2026IT}).
 *
 * <p>The scenarios are each suite's own list for the spec version ({@code list --server
 * --spec-version 2025-11-25}), pending ones included. Each suite runs them all in one CLI run
 * against one serve ({@code server --suite all --spec-version 2025-11-25}, {@link
 * ConformanceBatch}), at the suite's first test; each scenario is then a test of its own, judged
 * from its {@code checks.json}: it passes when it reported checks and none is a FAILURE; WARNING
 * checks (SHOULD-level advice) are reported on stderr and as test report entries, and fail the
 * test only with {@code -Dconformance.failOnWarning=true}.
 *
 * <p>Needs Node.js, like {@link ConformanceClientIT}: the suites and, when needed, a Node 22 binary
 * are installed by {@link NodePeers}; without Node the scenarios are skipped, except under {@code
 * CI=true}.
 *
 * <p>Artifacts under {@code target/conformance/server} (0.1.16) and {@code
 * target/conformance/server-next-2025} (0.2.0-alpha.12), laid out as {@link ConformanceBatch}
 * describes ({@code summary.txt}: each scenario's verdict); the fixture's jar and start-up cache
 * under {@code target/conformance/fixture} ({@link ConformanceFixtureJvm}).
 */
class ConformanceServerIT {

  static final String SPEC_VERSION = "2025-11-25";

  /** The CLI's options selecting the scenarios of {@link #SPEC_VERSION}, pending ones included. */
  static final List<String> SELECT = List.of("--suite", "all", "--spec-version", SPEC_VERSION);

  /** A pinned suite: its CLI and where its run goes. */
  enum Suite {
    RELEASED("0.1.16", "target/conformance/server"),
    NEXT("0.2.0-alpha.12", "target/conformance/server-next-2025");

    final String version;
    final Path work;

    Suite(String version, String work) {
      this.version = version;
      this.work = NodePeers.basedir().resolve(work);
    }

    Path cli() {
      return this == RELEASED ? ConformanceRuns.cli() : ConformanceRuns.cliNext();
    }
  }

  private static Path node;
  private static final Map<Suite, List<String>> SCENARIOS = new EnumMap<>(Suite.class);
  private static final Map<Suite, ConformanceBatch> BATCHES = new EnumMap<>(Suite.class);

  @BeforeAll
  static void installNode() {
    node = NodePeers.node22();
  }

  /** The suite's whole scenario set, run once (serve started and stopped around it) at its first test. */
  private static synchronized ConformanceBatch batchFor(Suite suite) throws IOException, InterruptedException {
    ConformanceBatch batch = BATCHES.get(suite);
    if (batch == null) {
      try {
        batch = ConformanceBatch.run(suite.work, ConformanceFixtureJvm.command(), node, suite.cli(), SELECT,
          SCENARIOS.get(suite));
      } catch (IOException | RuntimeException | AssertionError e) {
        // kept like a result: a batch that broke is not run again for each of its scenarios
        batch = ConformanceBatch.failed(suite.work, SCENARIOS.get(suite), "the batch run failed: " + e);
      }
      BATCHES.put(suite, batch);
    }
    return batch;
  }

  /** Each suite's server scenarios for {@link #SPEC_VERSION}, as its CLI lists them. */
  static Stream<Arguments> scenarios() throws IOException, InterruptedException {
    List<Arguments> all = new ArrayList<>();
    for (Suite suite : Suite.values()) {
      List<String> scenarios = ConformanceServe.listed(NodePeers.node22(), suite.cli(),
          List.of("--server", "--spec-version", SPEC_VERSION), "Server scenarios", suite.work.resolve("list.log"));
      assertThat(scenarios).as("server scenarios listed by conformance %s", suite.version)
          .contains("server-initialize", "tools-call-with-progress", "dns-rebinding-protection");
      SCENARIOS.put(suite, List.copyOf(scenarios));
      scenarios.forEach(s -> all.add(Arguments.of(suite, s)));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("scenarios")
  void serverScenarioPassesThroughTheGateway(Suite suite, String scenario, TestReporter reporter) throws Exception {
    ConformanceBatch.ScenarioRun run = batchFor(suite).get(scenario);
    for (String warning : run.warnings()) {
      System.err.println("[conformance] " + scenario + ": " + warning);
      reporter.publishEntry("warning", warning);
    }
    reporter.publishEntry("result", run.verdict());
    assertThat(run.checks()).as("checks reported%s", run.report()).isNotEmpty();
    assertThat(run.failures()).as("checks with status FAILURE%s", run.report()).isEmpty();
    if (Boolean.getBoolean("conformance.failOnWarning")) {
      assertThat(run.warnings()).as("checks with status WARNING (-Dconformance.failOnWarning=true)%s", run.report())
          .isEmpty();
    }
  }
}
