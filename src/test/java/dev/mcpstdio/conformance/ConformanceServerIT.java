package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
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
 * --spec-version 2025-11-25}), pending ones included. A scenario passes when the CLI exits 0 and
 * no check is a FAILURE; WARNING checks (SHOULD-level advice) are reported on stderr and as test
 * report entries, and fail the test only with {@code -Dconformance.failOnWarning=true}.
 *
 * <p>Needs Node.js, like {@link ConformanceClientIT}: the suites and, when needed, a Node 22 binary
 * are installed by {@link NodePeers}; without Node the scenarios are skipped, except under {@code
 * CI=true}.
 *
 * <p>Artifacts under {@code target/conformance/server} (0.1.16) and {@code
 * target/conformance/server-next-2025} (0.2.0-alpha.12), laid out as {@link ConformanceServe}
 * describes, each with {@code fixture-classes} (the fixture's class files, copied).
 */
class ConformanceServerIT {

  static final String SPEC_VERSION = "2025-11-25";

  /** A pinned suite: its CLI, where its runs go, and the arguments every run gets. */
  enum Suite {
    RELEASED("0.1.16", "target/conformance/server", List.of()),
    NEXT("0.2.0-alpha.12", "target/conformance/server-next-2025", List.of("--spec-version", SPEC_VERSION));

    final String version;
    final Path work;
    final List<String> runArgs;

    Suite(String version, String work, List<String> runArgs) {
      this.version = version;
      this.work = NodePeers.basedir().resolve(work);
      this.runArgs = runArgs;
    }

    Path cli() {
      return this == RELEASED ? ConformanceRuns.cli() : ConformanceRuns.cliNext();
    }
  }

  private static Path node;
  private static final java.util.Map<Suite, ConformanceServe> SERVES = new java.util.EnumMap<>(Suite.class);

  @BeforeAll
  static void installNode() {
    node = NodePeers.node22();
  }

  @AfterAll
  static void stopGateways() throws IOException {
    for (ConformanceServe serve : SERVES.values()) {
      serve.stop();
    }
    SERVES.clear();
  }

  /** One serve per suite, started at its first scenario (so each suite's logs stand alone). */
  private static ConformanceServe serveFor(Suite suite) throws IOException {
    ConformanceServe serve = SERVES.get(suite);
    if (serve == null) {
      serve = ConformanceServe.start(suite.work, ConformanceServe.javaFixture(suite.work));
      SERVES.put(suite, serve);
    }
    return serve;
  }

  /** Each suite's server scenarios for {@link #SPEC_VERSION}, as its CLI lists them. */
  static Stream<Arguments> scenarios() throws IOException, InterruptedException {
    List<Arguments> all = new ArrayList<>();
    for (Suite suite : Suite.values()) {
      List<String> scenarios = ConformanceServe.listed(NodePeers.node22(), suite.cli(),
          List.of("--server", "--spec-version", SPEC_VERSION), "Server scenarios", suite.work.resolve("list.log"));
      assertThat(scenarios).as("server scenarios listed by conformance %s", suite.version)
          .contains("server-initialize", "tools-call-with-progress", "dns-rebinding-protection");
      scenarios.forEach(s -> all.add(Arguments.of(suite, s)));
    }
    return all.stream();
  }

  @ParameterizedTest(name = "{0} {1}")
  @MethodSource("scenarios")
  void serverScenarioPassesThroughTheGateway(Suite suite, String scenario, TestReporter reporter) throws Exception {
    ConformanceServe serve = serveFor(suite);
    assertThat(serve.alive()).as("serve is running; its log:\n%s", serve.logTail()).isTrue();

    ConformanceServe.ScenarioRun run = serve.run(node, suite.cli(), scenario, suite.runArgs);
    for (String warning : run.warnings()) {
      System.err.println("[conformance] " + scenario + ": " + warning);
      reporter.publishEntry("warning", warning);
    }
    assertThat(run.checks()).as("checks reported%s", run.report()).isNotEmpty();
    assertThat(run.failures()).as("checks with status FAILURE%s", run.report()).isEmpty();
    assertThat(run.exit()).as("conformance CLI exit code%s", run.report()).isZero();
    if (Boolean.getBoolean("conformance.failOnWarning")) {
      assertThat(run.warnings()).as("checks with status WARNING (-Dconformance.failOnWarning=true)%s", run.report())
          .isEmpty();
    }
  }
}
