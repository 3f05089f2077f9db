package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static dev.mcpstdio.serve.EmbeddedSignIn.REDIRECT;
import static dev.mcpstdio.serve.EmbeddedSignIn.authorizeUrl;
import static dev.mcpstdio.serve.EmbeddedSignIn.codeFrom;
import static dev.mcpstdio.serve.EmbeddedSignIn.form;
import static dev.mcpstdio.serve.EmbeddedSignIn.get;
import static dev.mcpstdio.serve.EmbeddedSignIn.object;
import static dev.mcpstdio.serve.EmbeddedSignIn.post;
import static dev.mcpstdio.serve.EmbeddedSignIn.register;
import static dev.mcpstdio.serve.EmbeddedSignIn.signIn;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.oauth.Pkce;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The embedded authorization server ({@code --enable-oauth}) on a real gateway, over loopback
 * HTTP: discovery from the 401's challenge to the protected-resource document to the server's
 * metadata, registration, authorization with PKCE, the token endpoint, a call with the token,
 * refresh rotation and revocation; and the hostile cases a client or browser can bring.
 */
class ServeEmbeddedOAuthTest {

  private static final dev.mcpstdio.process.ChildSpec QUIET = ServeHarness.shAfterInit("cat >/dev/null");

  private static ServeConfig.EmbeddedOAuth oauth(String devUser, String header) {
    return new ServeConfig.EmbeddedOAuth(true, devUser, header, Set.of(), Duration.ofHours(1));
  }

  @Test
  void aClientDiscoversRegistersSignsInAndCalls() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      HttpResponse<String> none = serve.post(null, INIT, false);
      assertThat(none.statusCode()).isEqualTo(401);
      String challenge = none.headers().firstValue("WWW-Authenticate").orElseThrow();
      assertThat(challenge).isEqualTo("Bearer resource_metadata=\"" + base + "/.well-known/oauth-protected-resource/mcp\"");

      Map<String, String> prm = object(get(base + "/.well-known/oauth-protected-resource/mcp").body());
      assertThat(prm.get("resource")).isEqualTo(base + "/mcp");
      assertThat(prm.get("authorization_servers")).isEqualTo("[\"" + base + "\"]");
      Map<String, String> as = object(get(base + "/.well-known/oauth-authorization-server").body());
      assertThat(as).containsEntry("issuer", base).containsEntry("authorization_endpoint", base + "/authorize")
          .containsEntry("token_endpoint", base + "/token").containsEntry("registration_endpoint", base + "/register")
          .containsEntry("code_challenge_methods_supported", "[\"S256\"]")
          .containsEntry("authorization_response_iss_parameter_supported", "true");

      String clientId = register(base);
      Pkce pkce = Pkce.create();
      HttpResponse<String> redirect = get(authorizeUrl(base, clientId, pkce, REDIRECT));
      assertThat(redirect.statusCode()).isEqualTo(302);
      URI location = URI.create(redirect.headers().firstValue("Location").orElseThrow());
      assertThat(location.toString()).startsWith(REDIRECT + "?");
      Map<String, String> back = FormEncoding.decode(location.getRawQuery());
      assertThat(back).containsEntry("state", "st-1").containsEntry("iss", base).containsKey("code");

      HttpResponse<String> tokens = form(base + "/token", Map.of("grant_type", "authorization_code", "code", back.get("code"),
          "client_id", clientId, "redirect_uri", REDIRECT, "code_verifier", pkce.verifier()));
      assertThat(tokens.statusCode()).as(tokens.body()).isEqualTo(200);
      assertThat(tokens.headers().firstValue("Cache-Control")).hasValue("no-store");
      assertThat(tokens.headers().firstValue("Pragma")).hasValue("no-cache");
      Map<String, String> t = object(tokens.body());
      assertThat(t).containsEntry("token_type", "Bearer").containsEntry("expires_in", "3599");

      HttpResponse<String> init = serve.post(null, INIT, false, "Authorization", "Bearer " + t.get("access_token"));
      assertThat(init.statusCode()).as(init.body()).isEqualTo(200);
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer " + t.get("refresh_token")).statusCode())
          .as("a refresh token is no access token").isEqualTo(401);

      HttpResponse<String> rotated = form(base + "/token", Map.of("grant_type", "refresh_token", "refresh_token", t.get("refresh_token"),
          "client_id", clientId));
      assertThat(rotated.statusCode()).isEqualTo(200);
      Map<String, String> next = object(rotated.body());
      assertThat(next.get("refresh_token")).isNotEqualTo(t.get("refresh_token"));

      assertThat(form(base + "/revoke", Map.of("token", next.get("refresh_token"), "client_id", clientId)).statusCode()).isEqualTo(200);
      HttpResponse<String> after = serve.post(null, INIT, false, "Authorization", "Bearer " + next.get("access_token"));
      assertThat(after.statusCode()).isEqualTo(401);
      assertThat(after.headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Bearer error=\"invalid_token\"");
      assertThat(serve.log()).doesNotContain(t.get("access_token")).doesNotContain(next.get("refresh_token")).doesNotContain(back.get("code"));
    }
  }

  @Test
  void anUnknownClientOrAForeignRedirectIsAnsweredHereNeverRedirected() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = register(base);
      Pkce pkce = Pkce.create();
      for (String url : List.of(authorizeUrl(base, "unknown", pkce, REDIRECT), authorizeUrl(base, clientId, pkce, "https://evil.example/cb"),
          authorizeUrl(base, clientId, pkce, REDIRECT + "x"))) {
        HttpResponse<String> r = get(url);
        assertThat(r.statusCode()).as(url).isEqualTo(400);
        assertThat(r.headers().firstValue("Location")).isEmpty();
      }
      HttpResponse<String> plain = get(authorizeUrl(base, clientId, pkce, REDIRECT).replace("code_challenge_method=S256", "code_challenge_method=plain"));
      assertThat(plain.statusCode()).isEqualTo(302);
      assertThat(FormEncoding.decode(URI.create(plain.headers().firstValue("Location").orElseThrow()).getRawQuery()))
          .containsEntry("error", "invalid_request").containsEntry("state", "st-1").containsEntry("iss", base);
    }
  }

  @Test
  void withoutASignedInUserTheAuthorizationIsDenied() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth(null, "X-Forwarded-User")))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = register(base);
      Pkce pkce = Pkce.create();
      HttpResponse<String> nobody = get(authorizeUrl(base, clientId, pkce, REDIRECT));
      assertThat(FormEncoding.decode(URI.create(nobody.headers().firstValue("Location").orElseThrow()).getRawQuery()))
          .containsEntry("error", "access_denied").doesNotContainKey("code");
      HttpResponse<String> broken = get(authorizeUrl(base, clientId, pkce, REDIRECT), "X-Forwarded-User", " ");
      assertThat(broken.headers().firstValue("Location").orElseThrow()).contains("error=access_denied");
      HttpResponse<String> bob = get(authorizeUrl(base, clientId, pkce, REDIRECT), "X-Forwarded-User", "bob");
      assertThat(FormEncoding.decode(URI.create(bob.headers().firstValue("Location").orElseThrow()).getRawQuery())).containsKey("code");
    }
  }

  @Test
  void badRegistrationsAndTokenRequestsGetOAuthErrors() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      assertThat(object(post(base + "/register", "application/json", "not json").body())).containsEntry("error", "invalid_client_metadata");
      assertThat(object(post(base + "/register", "application/json", "{\"redirect_uris\":[]}").body()))
          .containsEntry("error", "invalid_client_metadata");
      HttpResponse<String> evil = post(base + "/register", "application/json", "{\"redirect_uris\":[\"https://evil.example/cb\"]}");
      assertThat(evil.statusCode()).isEqualTo(400);
      assertThat(object(evil.body())).containsEntry("error", "invalid_redirect_uri");
      assertThat(serve.log()).contains("registration refused").contains("https://evil.example/cb");
      HttpResponse<String> json = post(base + "/token", "application/json", "{\"grant_type\":\"authorization_code\"}");
      assertThat(json.statusCode()).isEqualTo(400);
      assertThat(object(form(base + "/token", Map.of("grant_type", "password")).body())).containsEntry("error", "unsupported_grant_type");
      assertThat(object(form(base + "/token", Map.of("grant_type", "authorization_code", "code", "forged")).body()))
          .containsEntry("error", "invalid_grant");
      HttpResponse<String> big = post(base + "/register", "application/json", "{\"x\":\"" + "a".repeat(70_000) + "\"}");
      assertThat(big.statusCode()).isEqualTo(413);
      assertThat(get(base + "/token").statusCode()).isEqualTo(405);
    }
  }

  @Test
  void theStaticBearerAndOAuthWorkTogether() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("static-secret").withOAuth(oauth("alice", null)))) {
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer static-secret").statusCode()).isEqualTo(200);
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer forged").statusCode()).isEqualTo(401);
      assertThat(serve.post(null, INIT, false).statusCode()).isEqualTo(401);
    }
  }

  @Test
  void withoutEnableOAuthTheServerIsNotThere() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("t"))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      assertThat(get(base + "/.well-known/oauth-authorization-server").statusCode()).isEqualTo(404);
      assertThat(get(base + "/authorize").statusCode()).isEqualTo(404);
      assertThat(object(get(base + "/.well-known/oauth-protected-resource/mcp").body())).doesNotContainKey("authorization_servers");
    }
  }

  @Test
  void aHostHeaderCannotInjectIntoTheMetadataAndNoCacheKeepsIt() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null))
        .withOrigins(List.of(), null).withTrustProxyHeaders(true))) {
      String quoted = ServeSecurityTest.raw(serve, "GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: localhost:"
          + serve.gateway.port() + "\"x\r\nConnection: close\r\n\r\n");
      assertThat(quoted).as("Jetty refuses such a Host before any handler").startsWith("HTTP/1.1 400").doesNotContain("issuer");
      String forwarded = ServeSecurityTest.raw(serve, "GET /.well-known/oauth-authorization-server HTTP/1.1\r\nHost: localhost:"
          + serve.gateway.port() + "\r\nX-Forwarded-Host: a\"b,evil\r\nX-Forwarded-Proto: https\r\nConnection: close\r\n\r\n");
      assertThat(forwarded).startsWith("HTTP/1.1 200").contains("\"issuer\":\"https://ab\"").contains("\"token_endpoint\":\"https://ab/token\"")
          .doesNotContain("evil").containsIgnoringCase("Cache-Control: no-store").containsIgnoringCase("Vary: Host");
      HttpResponse<String> prm = get("http://127.0.0.1:" + serve.gateway.port() + "/.well-known/oauth-protected-resource/mcp");
      assertThat(prm.headers().firstValue("Cache-Control")).hasValue("no-store");
    }
  }

  @Test
  void aCodeReplayedAfterTheGraceRevokesWhatItBought() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = register(base);
      Pkce pkce = Pkce.create();
      String code = codeFrom(get(authorizeUrl(base, clientId, pkce, REDIRECT)));
      Map<String, String> redeem = Map.of("grant_type", "authorization_code", "code", code, "client_id", clientId,
          "redirect_uri", REDIRECT, "code_verifier", pkce.verifier());
      Map<String, String> t = object(form(base + "/token", redeem).body());
      HttpResponse<String> again = form(base + "/token", redeem);
      assertThat(again.statusCode()).isEqualTo(400);
      assertThat(object(again.body())).containsEntry("error", "invalid_grant");
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer " + t.get("access_token")).statusCode())
          .as("within the grace the tokens stay").isEqualTo(200);
    }
  }

  @Test
  void aRepeatedParameterIsRefused() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = register(base);
      HttpResponse<String> twice = get(authorizeUrl(base, clientId, Pkce.create(), REDIRECT) + "&redirect_uri="
          + java.net.URLEncoder.encode("https://evil.example/cb", StandardCharsets.UTF_8));
      assertThat(twice.statusCode()).isEqualTo(400);
      assertThat(twice.headers().firstValue("Location")).isEmpty();
      HttpResponse<String> token = post(base + "/token", "application/x-www-form-urlencoded", "grant_type=refresh_token&grant_type=password");
      assertThat(object(token.body())).containsEntry("error", "invalid_request");
    }
  }

  @Test
  void aTrustedUserHeaderThatComesTwiceNamesNobody() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth(null, "X-Forwarded-User")))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = register(base);
      String path = authorizeUrl(base, clientId, Pkce.create(), REDIRECT).substring(base.length());
      String reply = ServeSecurityTest.raw(serve, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + serve.gateway.port()
          + "\r\nX-Forwarded-User: mallory\r\nX-Forwarded-User: alice\r\nConnection: close\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 302").contains("error=access_denied").doesNotContain("code=");
    }
  }

  @Test
  void anOAuthTokenWorksBesideTheStaticBearer() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("static-secret").withOAuth(oauth("alice", null)))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      Map<String, String> t = signIn(base);
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer " + t.get("access_token")).statusCode()).isEqualTo(200);
      assertThat(serve.post(null, INIT, false, "Authorization", "Bearer static-secret").statusCode()).isEqualTo(200);
    }
  }

  @Test
  void withATokenStoreARestartedGatewayKnowsItsUsers(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    ServeConfig.EmbeddedOAuth stored = new ServeConfig.EmbeddedOAuth(true, "alice", null, Set.of(), Duration.ofHours(1),
        dir.resolve("grants.json"));
    ServeConfig config = ServeHarness.config(QUIET).withOAuth(stored).withPort(0);
    Map<String, String> t;
    int port;
    try (ServeHarness serve = ServeHarness.start(config)) {
      port = serve.gateway.port();
      t = signIn("http://127.0.0.1:" + port);
    }
    // the same origin again (the token is bound to this resource URL)
    try (ServeHarness again = ServeHarness.startOn(config, port)) {
      assertThat(again.post(null, INIT, false, "Authorization", "Bearer " + t.get("access_token")).statusCode()).isEqualTo(200);
      assertThat(again.log()).contains("1 clients, 1 grants, 1 access tokens");
    }
    try (ServeHarness first = ServeHarness.start(config)) {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> ServeHarness.start(config))
          .hasMessageContaining("in use by another process");
    }
  }

  @Test
  void aPathScopedIssuerIsWhereTheRelaysDiscoveryLooksForIt() throws Exception {
    URI publicUrl = URI.create("https://gw.example/team-a");
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withOAuth(oauth("alice", null))
        .withOrigins(List.of(), publicUrl))) {
      // what a client derives from the endpoint https://gw.example/team-a/mcp (RFC 9728 section 3.1, RFC 8414 section 3.1)
      String prm = ServeSecurityTest.raw(serve, "GET /.well-known/oauth-protected-resource/team-a/mcp HTTP/1.1\r\nHost: gw.example\r\n"
          + "Connection: close\r\n\r\n");
      assertThat(prm).startsWith("HTTP/1.1 200");
      Map<String, String> resource = object(prm.substring(prm.indexOf("\r\n\r\n") + 4));
      assertThat(resource).containsEntry("resource", "https://gw.example/team-a/mcp")
          .containsEntry("authorization_servers", "[\"https://gw.example/team-a\"]");
      String as = ServeSecurityTest.raw(serve, "GET /.well-known/oauth-authorization-server/team-a HTTP/1.1\r\nHost: gw.example\r\n"
          + "Connection: close\r\n\r\n");
      assertThat(as).startsWith("HTTP/1.1 200");
      Map<String, String> metadata = object(as.substring(as.indexOf("\r\n\r\n") + 4));
      assertThat(metadata).containsEntry("issuer", "https://gw.example/team-a")
          .containsEntry("authorization_endpoint", "https://gw.example/team-a/authorize")
          .containsEntry("token_endpoint", "https://gw.example/team-a/token")
          .containsEntry("registration_endpoint", "https://gw.example/team-a/register");
      String challenge = ServeSecurityTest.raw(serve, "POST /mcp HTTP/1.1\r\nHost: gw.example\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + INIT.length() + "\r\nConnection: close\r\n\r\n" + INIT);
      assertThat(challenge).startsWith("HTTP/1.1 401")
          .contains("resource_metadata=\"https://gw.example/.well-known/oauth-protected-resource/team-a/mcp\"");
    }
  }
}
