package dev.mcpstdio.serve.auth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.net.OutboundHttp;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.Pkce;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client ID metadata documents, fetched over real TLS from a loopback server the test controls:
 * what a document must say, the URLs that are never fetched, and the cache.
 */
class ClientDocumentsTest {

  private static final String HOSTED = "https://claude.ai/api/mcp/auth_callback";
  private static final String LOOPBACK = "http://127.0.0.1/callback";

  @TempDir
  static Path dir;

  private static Path certificate;
  private static FakeMcpServer server;
  private static final AtomicReference<Reply> document = new AtomicReference<>();

  private final AtomicLong now = new AtomicLong(1_700_000_000_000L);
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

  @BeforeAll
  static void serve() throws Exception {
    Path keyStore = dir.resolve("server.p12");
    certificate = dir.resolve("server.pem");
    String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
    run(keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost",
        "-ext", "SAN=dns:localhost,ip:127.0.0.1", "-validity", "2", "-keystore", keyStore.toString(), "-storepass", "changeit",
        "-storetype", "PKCS12");
    run(keytool, "-exportcert", "-rfc", "-alias", "server", "-keystore", keyStore.toString(), "-storepass", "changeit",
        "-file", certificate.toString());
    server = FakeMcpServer.tls(keyStore, e -> document.get());
  }

  @AfterAll
  static void stop() {
    server.close();
  }

  private static void run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(output).isZero();
  }

  private static String url() {
    return "https://localhost:" + server.port() + "/oauth/client.json";
  }

  /** The test's document server is on loopback: only the test that checks that refusal turns this off. */
  private boolean privateHosts = true;

  private ClientDocuments documents(ClientDocuments.Resolver resolver) throws Exception {
    // generous: the first TLS handshake of a busy 2-core CI machine (trust store, key agreement) took over 5 s
    OAuthHttp http = new OAuthHttp(OutboundHttp.createWithoutCookies(new OutboundHttp.Settings(Duration.ofSeconds(30),
        List.of(certificate), Map.of())), Duration.ofSeconds(30));
    return new ClientDocuments(http, Set.of(HOSTED), now::get, new Log(logged, Log.Level.DEBUG, new Redactor()), resolver,
        privateHosts);
  }

  private ClientDocuments documents() throws Exception {
    return documents(InetAddress::getAllByName);
  }

  private static String doc(String clientId, String... redirects) {
    return "{\"client_id\":\"" + clientId + "\",\"client_name\":\"Hosted\",\"redirect_uris\":[\""
        + String.join("\",\"", redirects) + "\"]}";
  }

  private long fetches() {
    return server.exchanges().stream().filter(e -> e.path().equals("/oauth/client.json")).count();
  }

  @Test
  void aGoodDocumentIsAClientAndIsCachedForItsMaxAge() throws Exception {
    document.set(Reply.json(doc(url(), HOSTED, LOOPBACK), "Cache-Control", "max-age=120"));
    ClientDocuments d = documents();
    long before = fetches();
    ClientDocuments.Resolved r = d.resolve(url());
    assertThat(r).isInstanceOf(ClientDocuments.Resolved.Client.class);
    RegisteredClient client = ((ClientDocuments.Resolved.Client) r).client();
    assertThat(client.clientId()).isEqualTo(url());
    assertThat(client.redirectUris()).containsExactly(HOSTED, LOOPBACK);
    d.resolve(url());
    assertThat(fetches() - before).as("cached").isEqualTo(1);
    now.addAndGet(121_000);
    d.resolve(url());
    assertThat(fetches() - before).as("fetched again after max-age").isEqualTo(2);

    // and it signs a user in like a registered client
    Grants grants = new Grants(GrantSettings.DEFAULTS, Set.of(HOSTED), now::get);
    AuthorizationRequest request = new AuthorizationRequest(url(), HOSTED, "code", Pkce.create().challenge(), "S256", null,
        "https://gw.example/mcp", "alice");
    assertThat(grants.authorize(request, "https://gw.example/mcp", client)).isInstanceOf(AuthorizeOutcome.Issued.class);
    assertThat(grants.authorize(request, "https://gw.example/mcp")).as("not without its document").isInstanceOf(AuthorizeOutcome.Refused.class);
  }

  @Test
  void aDocumentThatDoesNotVouchForItselfIsRefused() throws Exception {
    Map<String, Reply> cases = Map.of(
        "another client_id", Reply.json(doc("https://evil.example/client.json", HOSTED)),
        "a redirect of its own choosing", Reply.json(doc(url(), "https://evil.example/cb")),
        "no redirect URIs", Reply.json("{\"client_id\":\"" + url() + "\",\"redirect_uris\":[]}"),
        "eleven redirect URIs", Reply.json(doc(url(), java.util.Collections.nCopies(11, LOOPBACK).toArray(String[]::new))),
        "not JSON", Reply.body(200, "application/json", "<html>"),
        "a redirect to elsewhere", Reply.status(302, "Location", "https://evil.example/client.json"),
        "not found", Reply.status(404),
        "over 64 KiB", Reply.json(doc(url(), HOSTED).replace("\"Hosted\"", "\"" + "x".repeat(70_000) + "\"")));
    for (Map.Entry<String, Reply> c : cases.entrySet()) {
      document.set(c.getValue());
      assertThat(documents().resolve(url())).as(c.getKey()).isInstanceOf(ClientDocuments.Resolved.Refused.class);
    }
  }

  @Test
  void aDocumentOnLoopbackOrAPrivateNetworkIsNeverFetched() throws Exception {
    document.set(Reply.json(doc(url(), HOSTED)));
    privateHosts = false;
    long before = fetches();
    assertThat(documents().resolve(url())).as("the same document, now on a host the gateway refuses")
        .isInstanceOf(ClientDocuments.Resolved.Refused.class);
    assertThat(fetches()).isEqualTo(before);
    for (String address : List.of("127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "100.64.0.1", "::1", "fd00::1",
        "::ffff:10.0.0.1", "::ffff:169.254.169.254")) {
      assertThat(ClientDocuments.isInternal(InetAddress.getByName(address))
          || InetAddress.getByName(address).isLinkLocalAddress()).as(address).isTrue();
    }
    for (String address : List.of("8.8.8.8", "100.128.0.1", "2606:4700::1111")) {
      assertThat(ClientDocuments.isInternal(InetAddress.getByName(address))).as(address).isFalse();
    }
  }

  @Test
  void urlsThatCouldReachInsideAreNeverFetched() throws Exception {
    document.set(Reply.json(doc(url(), HOSTED)));
    long before = fetches();
    ClientDocuments d = documents(host -> host.equals("metadata.example")
        ? new InetAddress[] {InetAddress.getByName("169.254.169.254")} : InetAddress.getAllByName(host));
    for (String bad : List.of("http://localhost:" + server.port() + "/oauth/client.json", "https://localhost:" + server.port(),
        "https://localhost:" + server.port() + "/", "https://localhost:" + server.port() + "/a/../client.json",
        "https://localhost:" + server.port() + "/client.json?x=1", "https://localhost:" + server.port() + "/client.json#f",
        "https://user@localhost:" + server.port() + "/client.json", "https://metadata.example/latest/meta-data")) {
      assertThat(d.resolve(bad)).as(bad).isInstanceOf(ClientDocuments.Resolved.Refused.class);
    }
    assertThat(d.urlRefusal("https://metadata.example/latest/meta-data")).as("refused for its address, before any fetch")
        .contains("link-local");
    assertThat(fetches()).isEqualTo(before);
  }
}
