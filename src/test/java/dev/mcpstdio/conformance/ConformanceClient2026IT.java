package dev.mcpstdio.conformance;

import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The conformance suite's client scenarios at the 2026-07-28 wire ({@code --spec-version
 * 2026-07-28}, the pre-release 0.2.0-alpha.12 in {@code src/test/node/conformance-next}), driven
 * through the relay by {@link ConformanceHost}, which speaks the 2025 era to it: every scenario
 * here grades how the relay speaks 2026 upstream on a 2025 host's behalf (discover and version
 * retry, the per-request {@code _meta} envelope, the {@code MCP-Protocol-Version}, {@code
 * Mcp-Method}, {@code Mcp-Name} and {@code Mcp-Param-*} headers, dropping tools with invalid {@code
 * x-mcp-header} annotations, the MRTR bridge, and signing in to servers that speak 2026 only).
 * These are the scenarios {@code list --client --requirements 2026-07-28} names.
 *
 * <p>Artifacts under {@code target/conformance-2026}, laid out as {@link ConformanceClientHarness}
 * describes.
 */
class ConformanceClient2026IT {

  private static final Path WORK = NodePeers.basedir().resolve("target/conformance-2026");
  private static final List<String> AT_2026 = List.of("--spec-version", "2026-07-28");

  private static Path cli;
  private static ConformanceClientHarness harness;

  @BeforeAll
  static void installSuiteAndWriteHostLauncher() throws IOException {
    cli = ConformanceRuns.cliNext();
    harness = new ConformanceClientHarness(WORK);
  }

  @ParameterizedTest(name = "2026 {0}")
  @ValueSource(strings = {"tools_call", "request-metadata", "sep-2322-client-request-state", "http-standard-headers",
      "http-custom-headers", "http-invalid-tool-headers", "json-schema-ref-no-deref"})
  void clientScenarioPassesThroughTheRelay(String scenario) throws Exception {
    harness.passes(scenario, cli, "2026-", AT_2026);
  }

  /**
   * Every {@code auth/*} client scenario of the 2026-07-28 requirements, their MCP servers speaking
   * the 2026 era only: the relay signs in (with {@code --oauth}, as {@link ConformanceHost} starts
   * it) and then must speak 2026 to the server it signed in to.
   */
  @ParameterizedTest(name = "2026 {0}")
  @ValueSource(strings = {"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
      "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
      "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
      "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration", "auth/resource-mismatch",
      "auth/offline-access-scope", "auth/offline-access-not-supported", "auth/authorization-server-migration",
      "auth/iss-supported", "auth/iss-not-advertised", "auth/iss-supported-missing", "auth/iss-wrong-issuer",
      "auth/iss-unexpected", "auth/iss-normalized", "auth/metadata-issuer-mismatch"})
  void authorizationScenarioPassesThroughTheRelay(String scenario) throws Exception {
    Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")),
        "curl plays the approving browser");
    harness.passes(scenario, cli, "2026-", AT_2026);
  }
}
