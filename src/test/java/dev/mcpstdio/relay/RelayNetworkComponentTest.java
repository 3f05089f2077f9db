package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** TLS trust and proxies, over real loopback sockets. */
class RelayNetworkComponentTest {

  @TempDir static Path dir;
  static Path keyStore;
  static Path certificate;

  @BeforeAll
  static void makeCertificate() throws Exception {
    keyStore = dir.resolve("server.p12");
    certificate = dir.resolve("server.pem");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    run(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1",
        "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2",
        "-keystore", keyStore.toString(), "-storepass", "changeit", "-storetype", "PKCS12");
    run(keytool, "-exportcert", "-rfc", "-alias", "server", "-keystore", keyStore.toString(),
        "-storepass", "changeit", "-file", certificate.toString());
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }

  @Test
  void anUntrustedCertificateIsRefused() {
    try (FakeMcpServer server = FakeMcpServer.tls(keyStore, FakeMcpServer::standard);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.send(RelayHarness.INITIALIZE);
      String line = relay.answerTo("0");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream request failed");
      assertThat(server.exchanges()).isEmpty();
    }
  }

  @Test
  void aCaFileMakesThePrivateCertificateTrusted() {
    try (FakeMcpServer server = FakeMcpServer.tls(keyStore, FakeMcpServer::standard);
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withNetwork(true, List.of(certificate)))) {
      assertThat(relay.initialize()).contains("\"result\"");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      assertThat(relay.answerTo("1")).contains("\"result\":{}");
      assertThat(server.posts("ping").get(0).header("mcp-session-id")).isEqualTo(FakeMcpServer.SESSION);
    }
  }

  @Test
  void aMissingCaFileFailsAtStartUp() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() ->
            dev.mcpstdio.net.TrustStores.sslContext(List.of(dir.resolve("missing.pem"))))
        .hasMessageContaining("CA file not found");
  }

  @Test
  void httpProxyFromTheEnvironmentIsUsedWithItsCredentials() {
    String expected = "Basic " + Base64.getEncoder().encodeToString("proxy-user:proxy-pass".getBytes());
    try (FakeMcpServer proxy = new FakeMcpServer(e -> expected.equals(e.header("proxy-authorization"))
            ? FakeMcpServer.standard(e)
            : Reply.status(407, "Proxy-Authenticate", "Basic realm=\"proxy\""));
        RelayHarness relay = RelayHarness.startWithEnv(URI.create("http://mcp.example.invalid:8123/mcp"),
            Map.of("HTTP_PROXY", "http://proxy-user:proxy-pass@127.0.0.1:" + proxy.port()), c -> c)) {
      assertThat(relay.initialize()).contains("\"result\"");
      FakeMcpServer.Exchange init = proxy.posts("initialize").stream()
          .filter(e -> e.header("proxy-authorization") != null).findFirst().orElseThrow();
      assertThat(init.header("host")).isEqualTo("mcp.example.invalid:8123");
      assertThat(init.path()).isEqualTo("/mcp");
      assertThat(relay.log()).doesNotContain("proxy-pass");
    }
  }

  @Test
  void noProxyAndLoopbackBypassTheProxy() {
    try (FakeMcpServer proxy = new FakeMcpServer(e -> Reply.status(502));
        FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.startWithEnv(server.url(),
            Map.of("HTTP_PROXY", "http://127.0.0.1:" + proxy.port()), c -> c)) {
      assertThat(relay.initialize()).contains("\"result\"");
      assertThat(proxy.exchanges()).isEmpty();
    }
  }

  @Test
  void keyStoreAndCertificateExist() throws Exception {
    assertThat(Files.readString(certificate)).contains("BEGIN CERTIFICATE");
  }
}
