package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.EmbeddedSignIn.REDIRECT;
import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.oauth.Pkce;
import dev.mcpstdio.serve.auth.FederationSettings;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import dev.mcpstdio.testing.CorpProvider;
import no.nav.security.mock.oauth2.token.DefaultOAuth2TokenCallback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --login-oidc}: the embedded authorization server signs its users in at a real OpenID
 * Connect provider on loopback ({@code mock-oauth2-server}), the browser following every redirect:
 * client, gateway, provider, gateway, client. The provider's ID token decides who the user is;
 * a callback nobody began, or one replayed, signs nobody in (the ID token's own rules:
 * {@code dev.mcpstdio.serve.auth.FederatedLoginTest}).
 */
class ServeFederatedLoginTest {

  private final CorpProvider idp = CorpProvider.start();

  @AfterEach
  void stop() {
    idp.close();
  }

  private String issuer() {
    return idp.issuer();
  }

  private ServeHarness serve() throws Exception {
    return ServeHarness.start(ServeHarness.config(new dev.mcpstdio.process.ChildSpec(List.of("/bin/sh", "-c", ServeSessionOwnershipTest.CHILD)))
        .withOAuth(new ServeConfig.EmbeddedOAuth(true, null, null, Set.of(), Duration.ofHours(1), null,
            new FederationSettings(issuer(), "mcp-gateway", "gateway-secret"))));
  }

  private static String location(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(302);
    return r.headers().firstValue("Location").orElseThrow();
  }

  @Test
  void aUserSignsInAtTheProviderAndTheClientGetsItsCode() throws Exception {
    idp.nextSignIn(new DefaultOAuth2TokenCallback("corp", "carol", "JWT", null, Map.of()));
    try (ServeHarness serve = serve()) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = EmbeddedSignIn.register(base);
      Pkce pkce = Pkce.create();
      HttpResponse<String> authorize = EmbeddedSignIn.get(EmbeddedSignIn.authorizeUrl(base, clientId, pkce, REDIRECT));
      String toProvider = location(authorize);
      String setCookie = authorize.headers().firstValue("Set-Cookie").orElseThrow();
      String cookie = setCookie.substring(0, setCookie.indexOf(';'));
      assertThat(toProvider).startsWith(issuer() + "/authorize?");
      Map<String, String> asked = FormEncoding.decode(URI.create(toProvider).getRawQuery());
      assertThat(asked).containsEntry("client_id", "mcp-gateway").containsEntry("redirect_uri", base + "/oidc/callback")
          .containsEntry("scope", "openid").containsEntry("code_challenge_method", "S256").containsKeys("state", "nonce");

      String toGateway = location(EmbeddedSignIn.get(toProvider));
      assertThat(toGateway).startsWith(base + "/oidc/callback?");
      assertThat(EmbeddedSignIn.get(toGateway).statusCode()).as("the answer without the browser's cookie").isEqualTo(400);
      // that refusal used the login up: begin again, in the same browser, and come back with its cookie
      authorize = EmbeddedSignIn.get(EmbeddedSignIn.authorizeUrl(base, clientId, pkce, REDIRECT));
      setCookie = authorize.headers().firstValue("Set-Cookie").orElseThrow();
      cookie = setCookie.substring(0, setCookie.indexOf(';'));
      toGateway = location(EmbeddedSignIn.get(location(authorize)));
      String toClient = location(EmbeddedSignIn.get(toGateway, "Cookie", cookie));
      assertThat(toClient).startsWith(REDIRECT + "?");
      Map<String, String> back = FormEncoding.decode(URI.create(toClient).getRawQuery());
      assertThat(back).containsEntry("state", "st-1").containsEntry("iss", base).containsKey("code");

      Map<String, String> tokens = EmbeddedSignIn.object(EmbeddedSignIn.form(base + "/token", Map.of("grant_type", "authorization_code",
          "code", back.get("code"), "client_id", clientId, "redirect_uri", REDIRECT, "code_verifier", pkce.verifier())).body());
      HttpResponse<String> init = serve.post(null, INIT, false, "Authorization", "Bearer " + tokens.get("access_token"));
      assertThat(init.statusCode()).as(init.body()).isEqualTo(200);

      HttpResponse<String> replayed = EmbeddedSignIn.get(toGateway, "Cookie", cookie);
      assertThat(replayed.statusCode()).as("the provider's answer is single use").isEqualTo(400);
      assertThat(EmbeddedSignIn.get(base + "/oidc/callback?state=made-up&code=x").statusCode()).isEqualTo(400);
    }
  }

  @Test
  void aBadRequestIsRefusedBeforeTheBrowserLeaves() throws Exception {
    try (ServeHarness serve = serve()) {
      String base = "http://127.0.0.1:" + serve.gateway.port();
      String clientId = EmbeddedSignIn.register(base);
      String plain = EmbeddedSignIn.authorizeUrl(base, clientId, Pkce.create(), REDIRECT).replace("code_challenge_method=S256",
          "code_challenge_method=plain");
      Map<String, String> back = FormEncoding.decode(URI.create(location(EmbeddedSignIn.get(plain))).getRawQuery());
      assertThat(back).containsEntry("error", "invalid_request");
      assertThat(EmbeddedSignIn.get(EmbeddedSignIn.authorizeUrl(base, "unknown-client", Pkce.create(), REDIRECT)).statusCode())
          .isEqualTo(400);
    }
  }
}
