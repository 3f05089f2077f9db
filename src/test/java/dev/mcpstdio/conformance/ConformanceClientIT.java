package dev.mcpstdio.conformance;

import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The official MCP conformance suite's client scenarios (spec 2025-11-25), driven through the
 * relay: the harness starts its mock server and runs {@link ConformanceHost} with the server's
 * URL; the host spawns the packaged relay jar on that URL and speaks stdio JSON-RPC to it. What the
 * suite checks is therefore the relay's HTTP behaviour (plus the host's MCP choices).
 *
 * <p>Needs Node.js: the suite (pinned in {@code src/test/node/conformance}) and, when the
 * machine's Node is older than 22, a Node 22 binary are installed from the npm registry by {@link
 * NodePeers}. Without Node the scenarios are skipped, except under {@code CI=true}.
 *
 * <p>Artifacts under {@code target/conformance}: {@code results/<scenario>/<scenario>-<time>/}
 * (the suite's {@code checks.json}, the host's {@code stdout.txt}/{@code stderr.txt}), {@code
 * <scenario>-relay.log} (the relay's stderr at debug level) and {@code <scenario>-harness.log}.
 */
class ConformanceClientIT {

  private static final Path WORK = NodePeers.basedir().resolve("target/conformance");

  private static Path cli;
  private static ConformanceClientHarness harness;

  @BeforeAll
  static void installSuiteAndWriteHostLauncher() throws IOException {
    cli = ConformanceRuns.cli();
    harness = new ConformanceClientHarness(WORK);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"initialize", "tools_call", "elicitation-sep1034-client-defaults", "sse-retry"})
  void clientScenarioPassesThroughTheRelay(String scenario) throws Exception {
    passes(scenario);
  }

  /**
   * The authorization scenarios (2025-11-25, 2025-06-18 and the 2025-03-26 back-compatibility
   * ones): the relay signs in with {@code --oauth} (see {@link ConformanceHost}) and a browser
   * command that follows the authorization server's redirect, as the suite expects of a client.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
      "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
      "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
      "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration",
      "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback",
      // draft and extension scenarios the relay supports too
      "auth/resource-mismatch", "auth/offline-access-scope", "auth/offline-access-not-supported",
      "auth/client-credentials-basic"})
  void authorizationScenarioPassesThroughTheRelay(String scenario) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")),
        "curl plays the approving browser");
    passes(scenario, cli, "");
  }

  /**
   * The suite's pre-release (0.2.0-alpha.12, src/test/node/conformance-next) adds the RFC 9207
   * {@code iss} scenarios and an issuer-mismatch one, and runs the others against its newer
   * servers. Left out: the scenarios whose MCP server speaks the 2026-07-28 era only, which the
   * relay does not yet ({@code auth/authorization-server-migration}, {@code auth/iss-supported},
   * {@code auth/iss-not-advertised}, {@code auth/offline-access-*}: their sign-in passes, the
   * requests after it are refused without an MCP-Protocol-Version header on initialize), and the
   * extensions (private_key_jwt, DPoP, ...).
   */
  @ParameterizedTest(name = "0.2 {0}")
  @ValueSource(strings = {"auth/metadata-default", "auth/metadata-var1", "auth/metadata-var2", "auth/metadata-var3",
      "auth/basic-cimd", "auth/scope-from-www-authenticate", "auth/scope-from-scopes-supported",
      "auth/scope-omitted-when-undefined", "auth/scope-step-up", "auth/scope-retry-limit", "auth/token-endpoint-auth-basic",
      "auth/token-endpoint-auth-post", "auth/token-endpoint-auth-none", "auth/pre-registration",
      "auth/2025-03-26-oauth-metadata-backcompat", "auth/2025-03-26-oauth-endpoint-fallback", "auth/resource-mismatch",
      "auth/iss-supported-missing", "auth/iss-wrong-issuer", "auth/iss-unexpected", "auth/iss-normalized",
      "auth/metadata-issuer-mismatch", "auth/client-credentials-basic"})
  void preReleaseAuthorizationScenarioPassesThroughTheRelay(String scenario) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")),
        "curl plays the approving browser");
    passes(scenario, ConformanceRuns.cliNext(), "next-");
  }

  private void passes(String scenario) throws Exception {
    passes(scenario, cli, "");
  }

  private void passes(String scenario, Path suite, String prefix) throws Exception {
    harness.passes(scenario, suite, prefix, List.of());
  }
}
