package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Discovery against loopback resource and authorization servers, friendly and hostile. */
class DiscoveryTest {

  private final List<FakeMcpServer> servers = new java.util.ArrayList<>();

  private FakeMcpServer server(Function<FakeMcpServer.Exchange, Reply> script) {
    FakeMcpServer s = new FakeMcpServer(script);
    servers.add(s);
    return s;
  }

  @AfterEach
  void stop() {
    servers.forEach(FakeMcpServer::close);
  }

  private static Discovery discovery() {
    HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
    return new Discovery(new OAuthHttp(client, Duration.ofSeconds(5)));
  }

  private static String base(FakeMcpServer s) {
    return "http://127.0.0.1:" + s.port();
  }

  private static String metadata(String issuer, String extra) {
    return "{\"issuer\":\"" + issuer + "\",\"authorization_endpoint\":\"" + issuer + "/auth\",\"token_endpoint\":\"" + issuer
        + "/tok\",\"code_challenge_methods_supported\":[\"S256\"],\"token_endpoint_auth_methods_supported\":[\"none\","
        + "\"client_secret_post\"]" + extra + "}";
  }

  @Test
  void theHintLeadsToAnAuthorizationServerWithAPathFoundByPathInsertion() throws Exception {
    FakeMcpServer as = server(e -> Reply.status(404));
    String issuer = base(as) + "/realms/t1";
    as.script(e -> e.path().equals("/.well-known/oauth-authorization-server/realms/t1")
        ? Reply.json(metadata(issuer, ",\"registration_endpoint\":\"" + issuer + "/reg\","
            + "\"authorization_response_iss_parameter_supported\":true,\"scopes_supported\":[\"openid\",\"mcp\"]"))
        : Reply.status(404));
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> e.path().equals("/prm")
        ? Reply.json("{\"resource\":\"" + base(rs) + "/mcp\",\"authorization_servers\":[\"" + issuer + "\"],"
            + "\"scopes_supported\":[\"mcp\"]}")
        : Reply.status(404));

    Discovery.Result r = discovery().discover(base(rs) + "/mcp", base(rs) + "/prm");

    assertThat(r.resource()).isEqualTo(new Discovery.ResourceMetadata(base(rs) + "/mcp", issuer, List.of("mcp")));
    assertThat(r.server().issuer()).isEqualTo(issuer);
    assertThat(r.server().authorizationEndpoint()).isEqualTo(URI.create(issuer + "/auth"));
    assertThat(r.server().tokenEndpoint()).isEqualTo(URI.create(issuer + "/tok"));
    assertThat(r.server().registrationEndpoint()).isEqualTo(URI.create(issuer + "/reg"));
    assertThat(r.server().issParameterSupported()).isTrue();
    assertThat(r.server().codeChallengeMethods()).containsExactly("S256");
    assertThat(r.server().fromMetadata()).isTrue();
    assertThat(r.warnings()).singleElement().asString().contains("another origin").contains("federation");
    assertThat(rs.exchanges()).extracting(FakeMcpServer.Exchange::path).containsExactly("/prm");
    assertThat(servers.stream().flatMap(s -> s.exchanges().stream()))
        .allSatisfy(e -> assertThat(e.header("authorization")).isNull()); // discovery carries no credentials
  }

  @Test
  void withoutAHintThePathAwareWellKnownIsTriedFirstAndOidcIsAFallback() throws Exception {
    FakeMcpServer as = server(e -> Reply.status(404));
    String issuer = base(as) + "/tenant";
    as.script(e -> e.path().equals("/tenant/.well-known/openid-configuration") ? Reply.json(metadata(issuer, "")) : Reply.status(404));
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> e.path().equals("/.well-known/oauth-protected-resource/api/mcp")
        ? Reply.json("{\"resource\":\"" + base(rs) + "/api/mcp\",\"authorization_servers\":[\"" + issuer + "\"]}")
        : Reply.status(404));

    Discovery.Result r = discovery().discover(base(rs) + "/api/mcp/", null);

    assertThat(r.server().tokenEndpoint()).isEqualTo(URI.create(issuer + "/tok"));
    assertThat(as.exchanges()).extracting(FakeMcpServer.Exchange::path).containsExactly(
        "/.well-known/oauth-authorization-server/tenant", "/.well-known/openid-configuration/tenant",
        "/tenant/.well-known/openid-configuration");
  }

  @Test
  void aServerWithoutResourceMetadataIsItsOwnAuthorizationServer() throws Exception {
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> e.path().equals("/.well-known/oauth-authorization-server") ? Reply.json(metadata(base(rs), "")) : Reply.status(404));
    Discovery.Result r = discovery().discover(base(rs) + "/mcp", null);
    assertThat(r.resource()).isNull();
    assertThat(r.server().issuer()).isEqualTo(base(rs));
    assertThat(r.warnings()).isEmpty();
  }

  @Test
  void withNoMetadataAnywhereTheDefaultEndpointsAreUsedWithTheIssuerPinned() throws Exception {
    FakeMcpServer rs = server(e -> Reply.status(404));
    Discovery.Result r = discovery().discover(base(rs) + "/mcp", null);
    assertThat(r.server()).isEqualTo(Discovery.defaults(base(rs)));
    assertThat(r.server().tokenEndpoint()).isEqualTo(URI.create(base(rs) + "/token"));
    assertThat(r.server().issuer()).isEqualTo(base(rs));
    assertThat(r.warnings()).singleElement().asString().contains("default endpoints");
  }

  @Test
  void hostileDocumentsAreSkippedPieceByPiece() throws Exception {
    FakeMcpServer evil = server(e -> Reply.json(metadata("http://127.0.0.1:1/evil", "")));
    FakeMcpServer as = server(e -> Reply.status(404));
    String issuer = base(as);
    as.script(e -> switch (e.path()) {
      case "/.well-known/oauth-authorization-server" -> Reply.json("{\"issuer\":\"" + base(evil) + "\"}"); // mix-up
      case "/.well-known/openid-configuration" -> Reply.json("{\"issuer\":\"" + issuer + "\",\"authorization_endpoint\":"
          + "\"https://user:pw@login.example/auth\",\"token_endpoint\":\"http://login.example/token\","
          + "\"registration_endpoint\":\"javascript:alert(1)\",\"device_authorization_endpoint\":\"" + issuer + "/device\"}");
      default -> Reply.status(404);
    });
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> switch (e.path()) {
      case "/moved" -> Reply.status(302, "Location", base(evil) + "/prm"); // never followed
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"authorization_servers\":[\"http://as.example\","
          + "\"https://user:pw@as.example\",\"ftp://as.example\",\"" + issuer + "\"]}");
      default -> Reply.status(404);
    });

    Discovery.Result r = discovery().discover(base(rs) + "/mcp", base(rs) + "/moved");

    assertThat(r.resource().authorizationServer()).isEqualTo(issuer);
    assertThat(r.server().issuer()).isEqualTo(issuer);
    assertThat(r.server().authorizationEndpoint()).isEqualTo(URI.create(issuer + "/authorize"));
    assertThat(r.server().tokenEndpoint()).isEqualTo(URI.create(issuer + "/token"));
    assertThat(r.server().registrationEndpoint()).isNull();
    assertThat(r.server().deviceAuthorizationEndpoint()).isEqualTo(URI.create(issuer + "/device"));
    assertThat(evil.exchanges()).isEmpty();
    assertThat(String.join("\n", r.warnings()))
        .contains("skipping authorization server http://as.example: plain http")
        .contains("skipping authorization server https://user:pw@as.example: carries userinfo")
        .contains("its issuer " + base(evil) + " is on another origin")
        .contains("authorization_endpoint is unusable (carries userinfo)")
        .contains("token_endpoint is unusable (plain http")
        .contains("ignoring the registration_endpoint");
  }

  @Test
  void aHintThatFailsTheGuardIsNotFetched() throws Exception {
    FakeMcpServer rs = server(e -> Reply.status(404));
    Discovery.Result r = discovery().discover(base(rs) + "/mcp", "http://metadata.internal/prm");
    assertThat(r.warnings()).anySatisfy(w -> assertThat(w).contains("ignoring the resource_metadata hint: plain http"));
  }

  @Test
  void withoutAHintTheServersOwn401NamesItsMetadata() throws Exception {
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> switch (e.path()) {
      case "/mcp" -> e.header("authorization") == null
          ? Reply.status(401, "WWW-Authenticate", "Negotiate, Bearer resource_metadata=\"" + base(rs) + "/custom/prm\"")
          : Reply.status(500);
      case "/custom/prm" -> Reply.json("{\"authorization_servers\":[\"" + base(rs) + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(metadata(base(rs), ""));
      default -> Reply.status(404);
    });
    Discovery.Result r = discovery().discover(base(rs) + "/mcp", null);
    assertThat(r.resource().authorizationServer()).isEqualTo(base(rs));
    assertThat(rs.exchanges()).extracting(FakeMcpServer.Exchange::path)
        .containsExactly("/mcp", "/custom/prm", "/.well-known/oauth-authorization-server");
    assertThat(rs.exchanges().getFirst().text()).contains("\"method\":\"initialize\"");
  }

  @Test
  void metadataForAnotherResourceIsRefusedUnlessTheOperatorNamedIt() throws Exception {
    FakeMcpServer rs = server(e -> Reply.status(404));
    rs.script(e -> switch (e.path()) {
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"resource\":\"https://api.example/v2\","
          + "\"authorization_servers\":[\"" + base(rs) + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(metadata(base(rs), ""));
      default -> Reply.status(404);
    });
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> discovery().discover(base(rs) + "/mcp", null))
        .isInstanceOf(Discovery.Refused.class).hasMessageContaining("https://api.example/v2").hasMessageContaining("RFC 9728");
    assertThat(discovery().discover(base(rs) + "/mcp", null, "https://API.example/v2/").server().issuer()).isEqualTo(base(rs));
    rs.script(e -> switch (e.path()) { // the same resource, spelled differently: accepted
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"resource\":\"" + base(rs).toUpperCase(java.util.Locale.ROOT)
          .replace("HTTP://", "http://") + "/mcp/\",\"authorization_servers\":[\"" + base(rs) + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(metadata(base(rs), ""));
      default -> Reply.status(404);
    });
    assertThat(discovery().discover(base(rs) + "/mcp", null).resource()).isNotNull();
    for (String other : new String[] {"/mcp-other", "/api", "http://127.0.0.1:1/mcp"}) { // beside it, or elsewhere
      String named = other.startsWith("http") ? other : base(rs) + other;
      rs.script(e -> e.path().equals("/.well-known/oauth-protected-resource/mcp")
          ? Reply.json("{\"resource\":\"" + named + "\",\"authorization_servers\":[\"" + base(rs) + "\"]}")
          : Reply.status(404));
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> discovery().discover(base(rs) + "/mcp", null)).as(named)
          .isInstanceOf(Discovery.Refused.class);
    }
    rs.script(e -> switch (e.path()) { // a document at the host's root names the origin: it contains the server
      case "/.well-known/oauth-protected-resource" -> Reply.json("{\"resource\":\"" + base(rs) + "\","
          + "\"authorization_servers\":[\"" + base(rs) + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(metadata(base(rs), ""));
      default -> Reply.status(404);
    });
    assertThat(discovery().discover(base(rs) + "/mcp", null).resource().resource()).isEqualTo(base(rs));
  }
}
