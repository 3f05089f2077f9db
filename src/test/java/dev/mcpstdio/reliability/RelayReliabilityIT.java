package dev.mcpstdio.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.NodePeers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The short, deterministic versions of the relay's load and fault cases (the long ones are
 * benchmarks: bench/reliability.sh, docs/reliability.md), against the real launcher at its
 * default heap: every request answered exactly once, no answer for an id nobody asked, and the
 * relay gone soon after stdin closes.
 */
class RelayReliabilityIT {

  private static final Path LAUNCHER = NodePeers.basedir().resolve("mcp-stdio");
  private static final Duration LIMIT = Duration.ofMinutes(2);
  private static final Map<String, String> ENV = Map.of("MCP_STDIO_NO_CACHE", "1", "MCP_STDIO_NO_BUILD", "1");

  @Test
  void pipelinedCallsPastTheInFlightBoundAreAllAnsweredOnce() throws Exception {
    RelayLoad.Report report = RelayLoad.run(LAUNCHER, FaultyUpstream.Faults.none().delayed(50), 600, null, LIMIT, ENV);
    assertThat(report.allAnsweredOnce()).as(report.toString()).isTrue();
    assertThat(report.errors()).as(report.toString()).isEmpty();
    assertThat(report.upstreamCalls()).isEqualTo(600);
    assertThat(report.exitCode()).as(report.toString()).isZero();
  }

  @Test
  void fourConcurrentNineMegabyteAnswersAllArrive() throws Exception {
    RelayLoad.Report report =
        RelayLoad.run(LAUNCHER, FaultyUpstream.Faults.none().delayed(10).padded(9_000_000), 4, null, LIMIT, ENV);
    assertThat(report.allAnsweredOnce()).as(report.toString()).isTrue();
    assertThat(report.errors()).as(report.toString()).isEmpty();
  }

  @Test
  void aHeapTooSmallForTheAnswerGetsAnErrorThatSaysSoNotSilence() throws Exception {
    RelayLoad.Report report = RelayLoad.run(LAUNCHER, FaultyUpstream.Faults.none().padded(9_000_000), 2,
        "-Xms12m -Xmx12m", LIMIT, ENV);
    assertThat(report.allAnsweredOnce()).as(report.toString()).isTrue();
    assertThat(report.errors().keySet()).as(report.toString()).allMatch(m -> m.contains("out of memory"));
    assertThat(report.exitCode()).as(report.toString()).isZero();
  }

  @Test
  void aHostileUpstreamStillYieldsExactlyOneAnswerPerRequest() throws Exception {
    RelayLoad.Report report = RelayLoad.run(LAUNCHER, FaultyUpstream.Faults.none().delayed(5).hostile(), 200, null, LIMIT, ENV);
    assertThat(report.allAnsweredOnce()).as(report.toString()).isTrue();
    assertThat(report.unasked()).isZero();
    assertThat(report.errors()).as(report.toString()).isEmpty(); // no batch, no non-JSON on stdout
  }
}
