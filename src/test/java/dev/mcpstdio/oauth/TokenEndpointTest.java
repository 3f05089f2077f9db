package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.Jsons;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Token requests and client registration against a scriptable loopback authorization server. */
class TokenEndpointTest {

  private static final String GRANT = "{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"expires_in\":60,\"refresh_token\":\"rt2\"}";

  private final FakeMcpServer as = new FakeMcpServer(e -> Reply.json(GRANT));
  private final List<String> warnings = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() {
    as.close();
  }

  private static OAuthHttp http() {
    return new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
  }

  private URI at(String path) {
    return URI.create("http://127.0.0.1:" + as.port() + path);
  }

  private static Map<String, String> form(FakeMcpServer.Exchange e) {
    return FormEncoding.decode(e.text());
  }

  private Discovery.ServerMetadata metadata(List<String> authMethods, boolean registration) {
    return new Discovery.ServerMetadata("http://127.0.0.1:" + as.port(), at("/authorize"), at("/token"),
        registration ? at("/register") : null, null, null, authMethods, List.of("S256"), List.of(), false, false, true);
  }

  @Test
  void theCodeExchangeCarriesVerifierRedirectAndResourceAndAPublicClientsId() throws Exception {
    ClientIdentity publicClient = new ClientIdentity("cid", null, null, ClientIdentity.NONE, "iss");
    TokenResponse r = new TokenEndpoint(http()).exchangeCode(at("/token"), publicClient, "the-code",
        "http://127.0.0.1:5555/callback", "verifier-86", "https://mcp.example/mcp");
    assertThat(r).isInstanceOfSatisfying(TokenResponse.Granted.class, g -> assertThat(g.refreshToken()).isEqualTo("rt2"));
    FakeMcpServer.Exchange e = as.exchanges().getFirst();
    assertThat(e.header("content-type")).isEqualTo("application/x-www-form-urlencoded");
    assertThat(e.header("authorization")).isNull();
    assertThat(form(e)).containsExactly(Map.entry("grant_type", "authorization_code"), Map.entry("code", "the-code"),
        Map.entry("redirect_uri", "http://127.0.0.1:5555/callback"), Map.entry("code_verifier", "verifier-86"),
        Map.entry("resource", "https://mcp.example/mcp"), Map.entry("client_id", "cid"));
  }

  @Test
  void aConfidentialClientAuthenticatesInTheFormOrWithBasic() throws Exception {
    TokenEndpoint tokens = new TokenEndpoint(http());
    tokens.refresh(at("/token"), new ClientIdentity("cid", "s3cret", null, ClientIdentity.POST, "iss"), "rt", null, null);
    assertThat(form(as.exchanges().getLast())).containsExactly(Map.entry("grant_type", "refresh_token"),
        Map.entry("refresh_token", "rt"), Map.entry("client_id", "cid"), Map.entry("client_secret", "s3cret"));

    tokens.clientCredentials(at("/token"), new ClientIdentity("id with:colon", "p@ss word", null, ClientIdentity.BASIC, "iss"),
        "read", "https://mcp.example/mcp");
    FakeMcpServer.Exchange e = as.exchanges().getLast();
    assertThat(new String(Base64.getDecoder().decode(e.header("authorization").substring("Basic ".length())), StandardCharsets.UTF_8))
        .isEqualTo("id+with%3Acolon:p%40ss+word"); // RFC 6749 §2.3.1: each part form-encoded first
    assertThat(form(e)).containsExactly(Map.entry("grant_type", "client_credentials"), Map.entry("scope", "read"),
        Map.entry("resource", "https://mcp.example/mcp"));
  }

  @Test
  void redirectsAreNotFollowedAndADeadEndpointIsUnreachable() throws Exception {
    FakeMcpServer elsewhere = new FakeMcpServer(e -> Reply.json(GRANT));
    try {
      as.script(e -> Reply.status(307, "Location", "http://127.0.0.1:" + elsewhere.port() + "/token"));
      ClientIdentity client = new ClientIdentity("cid", "s3cret", null, ClientIdentity.POST, "iss");
      assertThat(new TokenEndpoint(http()).refresh(at("/token"), client, "rt", null, null))
          .isInstanceOfSatisfying(TokenResponse.Unusable.class, u -> assertThat(u.reason()).contains("redirect"));
      assertThat(elsewhere.exchanges()).isEmpty(); // the secret went nowhere else
    } finally {
      elsewhere.close();
    }
    assertThat(new TokenEndpoint(http()).refresh(URI.create("http://127.0.0.1:1/token"),
        new ClientIdentity("cid", null, null, null, "iss"), "rt", null, null)).isInstanceOf(TokenResponse.Unreachable.class);
  }

  @Test
  void registrationIsNativeWithTheLoopbackRedirectAndTheServersAnswerWins() throws Exception {
    as.script(e -> Reply.body(201, "application/json", "{\"client_id\":\"new-id\",\"client_secret\":\"sec\","
        + "\"client_secret_expires_at\":4102444800,\"token_endpoint_auth_method\":\"client_secret_basic\"}"));
    ClientIdentity c = new Registration(http(), warnings::add).register(metadata(List.of("client_secret_post", "private_key_jwt"), true),
        "http://127.0.0.1:4444/callback", "mcp read");
    assertThat(c).isEqualTo(new ClientIdentity("new-id", "sec", Instant.ofEpochSecond(4102444800L), ClientIdentity.BASIC,
        "http://127.0.0.1:" + as.port()));
    var body = Jsons.parse(as.exchanges().getLast().text());
    assertThat(body.get("application_type").asString()).isEqualTo("native");
    assertThat(body.get("redirect_uris").get(0).asString()).isEqualTo("http://127.0.0.1:4444/callback");
    assertThat(body.get("token_endpoint_auth_method").asString()).isEqualTo("client_secret_post");
    assertThat(body.get("grant_types").toString()).contains("authorization_code", "refresh_token");
    assertThat(body.get("scope").asString()).isEqualTo("mcp read");
    assertThat(c.toString()).doesNotContain("sec\"").contains("secret=present");
  }

  @Test
  void theDeviceFlowRegistersWithoutARedirectAndASecretThatNeverExpiresSaysZero() throws Exception {
    as.script(e -> Reply.json("{\"client_id\":\"dev-id\",\"client_secret\":\"s\",\"client_secret_expires_at\":0}"));
    ClientIdentity c = new Registration(http(), warnings::add).register(metadata(List.of(), true), null, null);
    assertThat(c.secretExpiresAt()).isNull();
    assertThat(c.authMethod()).isEqualTo(ClientIdentity.NONE); // asked for none; the server named no other
    var body = Jsons.parse(as.exchanges().getLast().text());
    assertThat(body.has("redirect_uris")).isFalse();
    assertThat(body.get("grant_types").toString()).contains("device_code");
  }

  @Test
  void authMethodsArePreferredNonePostBasicAndAnUnknownListFallsBackToNoneWithAWarning() {
    Registration r = new Registration(http(), warnings::add);
    assertThat(r.authMethod(List.of("client_secret_basic", "client_secret_post"))).isEqualTo(ClientIdentity.POST);
    assertThat(r.authMethod(List.of("client_secret_basic", "none"))).isEqualTo(ClientIdentity.NONE);
    assertThat(r.authMethod(List.of("client_secret_basic"))).isEqualTo(ClientIdentity.BASIC);
    assertThat(warnings).isEmpty();
    assertThat(r.authMethod(List.of("private_key_jwt"))).isEqualTo(ClientIdentity.NONE);
    assertThat(warnings).singleElement().asString().contains("private_key_jwt");
  }

  @Test
  void registrationFailuresSayWhatWentWrong() {
    Registration r = new Registration(http(), warnings::add);
    assertThatThrownBy(() -> r.register(metadata(List.of(), false), "http://127.0.0.1:1/callback", null))
        .hasMessageContaining("--client-id");
    as.script(e -> Reply.body(400, "application/json", "{\"error\":\"invalid_redirect_uri\",\"error_description\":\"no \\\"loopback\\\"\"}"));
    assertThatThrownBy(() -> r.register(metadata(List.of(), true), "http://127.0.0.1:1/callback", null))
        .hasMessage("client registration refused (HTTP 400, invalid_redirect_uri: no ?loopback?)");
    as.script(e -> Reply.json("{\"client_secret\":\"orphan\"}"));
    assertThatThrownBy(() -> r.register(metadata(List.of(), true), "http://127.0.0.1:1/callback", null))
        .hasMessageContaining("no client_id").hasMessageNotContaining("orphan");
  }
}
