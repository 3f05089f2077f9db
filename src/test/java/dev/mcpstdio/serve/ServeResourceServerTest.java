package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.auth.ExternalTokens;
import java.net.InetAddress;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import dev.mcpstdio.testing.CorpProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Resource-server mode ({@code --oauth-issuer}) against a real identity provider on loopback
 * ({@code mock-oauth2-server}: OpenID Connect discovery, a JWKS, RS256 JWTs): two gateways that
 * share nothing take the same tokens; discovery names the provider; a wrong audience, a missing
 * token or scope, and another user's session are refused as the inventory says.
 */
class ServeResourceServerTest {

  private static final String AUDIENCE = "mcp-cluster";
  private final CorpProvider idp = CorpProvider.start();

  @AfterEach
  void stop() {
    idp.close();
  }

  private String issuer() {
    return idp.issuer();
  }

  private ServeConfig config(List<String> scopes) {
    return ServeHarness.config(new ChildSpec(List.of("/bin/sh", "-c", ServeSessionOwnershipTest.CHILD)))
        .withIdentityProvider(new ExternalTokens.Settings(issuer(), AUDIENCE, scopes, null, null));
  }

  private String token(String user, String audience, Map<String, Object> claims) {
    return idp.token(user, audience, claims);
  }

  private static String[] bearer(String token) {
    return new String[] {"Authorization", "Bearer " + token};
  }

  @Test
  void twoGatewaysThatShareNothingTakeTheSameTokensAndKeepUsersApart() throws Exception {
    try (ServeHarness a = ServeHarness.start(config(List.of())); ServeHarness b = ServeHarness.start(config(List.of()))) {
      String alice = token("alice", AUDIENCE, Map.of());
      String bob = token("bob", AUDIENCE, Map.of());
      HttpResponse<String> onA = a.post(null, INIT, false, bearer(alice));
      HttpResponse<String> onB = b.post(null, INIT, false, bearer(alice));
      assertThat(onA.statusCode()).as(onA.body()).isEqualTo(200);
      assertThat(onB.statusCode()).as(onB.body()).isEqualTo(200);
      String session = onA.headers().firstValue("Mcp-Session-Id").orElseThrow();
      String ping = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}";
      assertThat(a.post(session, ping, false, bearer(bob)).statusCode()).as("bob, with alice's session").isEqualTo(404);
      assertThat(a.post(session, ping, false, bearer(alice)).statusCode()).isEqualTo(200);
      assertThat(a.log()).contains("identity provider " + issuer() + ": keys at ");
      assertThat(a.log()).doesNotContain(alice);
    }
  }

  @Test
  void discoveryNamesTheProviderAndBadTokensAreRefused() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(List.of("mcp:tools")))) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      HttpResponse<String> none = serve.post(null, INIT, false);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.headers().firstValue("WWW-Authenticate")).hasValue("Bearer scope=\"mcp:tools\", resource_metadata=\""
          + base + "/.well-known/oauth-protected-resource/mcp\"");
      Map<String, String> prm = EmbeddedSignIn.object(EmbeddedSignIn.get(base + "/.well-known/oauth-protected-resource/mcp").body());
      assertThat(prm).containsEntry("resource", base + "/mcp").containsEntry("authorization_servers", "[\"" + issuer() + "\"]")
          .containsEntry("scopes_supported", "[\"mcp:tools\"]");

      HttpResponse<String> otherAudience = serve.post(null, INIT, false, bearer(token("alice", "another-api", Map.of("scope", "mcp:tools"))));
      assertThat(otherAudience.statusCode()).isEqualTo(401);
      assertThat(otherAudience.headers().firstValue("WWW-Authenticate").orElseThrow()).startsWith("Bearer error=\"invalid_token\"");

      HttpResponse<String> noScope = serve.post(null, INIT, false, bearer(token("alice", AUDIENCE, Map.of("scope", "openid"))));
      assertThat(noScope.statusCode()).isEqualTo(403);
      assertThat(noScope.headers().firstValue("WWW-Authenticate")).hasValue("Bearer error=\"insufficient_scope\", error_description="
          + "\"the access token lacks a required scope\", scope=\"mcp:tools\", resource_metadata=\"" + base
          + "/.well-known/oauth-protected-resource/mcp\"");

      assertThat(serve.post(null, INIT, false, bearer(token("alice", AUDIENCE, Map.of("scope", "openid mcp:tools")))).statusCode())
          .isEqualTo(200);
    }
  }

  @Test
  void withoutAnAudienceTheEndpointsOwnUrlIsItAndNoHostHeaderChangesThat() throws Exception {
    ServeConfig byUrl = config(List.of()).withIdentityProvider(new ExternalTokens.Settings(issuer(), null, List.of(), null, null));
    try (ServeHarness serve = ServeHarness.start(byUrl)) {
      String own = serve.url.toString();
      assertThat(serve.post(null, INIT, false, bearer(token("alice", own, Map.of()))).statusCode()).isEqualTo(200);
      String other = token("alice", "http://localhost:3000/mcp", Map.of()); // another local resource's token
      String reply = ServeSecurityTest.raw(serve, "POST /mcp HTTP/1.1\r\nHost: localhost:3000\r\nAuthorization: Bearer " + other
          + "\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: " + INIT.length()
          + "\r\nConnection: close\r\n\r\n" + INIT);
      assertThat(reply).as("a Host a client chose is no audience").startsWith("HTTP/1.1 401");
    }
  }

  @Test
  void aProviderThatCannotBeReachedIsA503NotA401() throws Exception {
    String token = token("alice", AUDIENCE, Map.of());
    java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    String nowhere = "http://127.0.0.1:" + closed.getLocalPort() + "/corp";
    closed.close(); // nothing listens there now
    ServeConfig config = config(List.of()).withIdentityProvider(new ExternalTokens.Settings(nowhere, AUDIENCE, List.of(), null, null));
    try (ServeHarness serve = ServeHarness.start(config)) {
      HttpResponse<String> r = serve.post(null, INIT, false, bearer(token));
      assertThat(r.statusCode()).as(r.body()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).hasValue("5");
      assertThat(serve.log()).contains("cannot be used yet");
    }
  }
}
