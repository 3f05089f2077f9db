package dev.mcpstdio.serve.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.Pkce;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --login-oidc}'s checks of the provider's answer, against a provider on loopback whose ID
 * tokens the test forges: only a token signed by the provider's key, for this client, from this
 * issuer, live, and carrying the nonce the gateway sent signs its subject in.
 */
class FederatedLoginTest {

  private static final String RESOURCE = "https://gw.example/mcp";
  private static final String ISS = "https://gw.example";
  private static final String REDIRECT = "http://127.0.0.1:53682/callback";

  private FakeMcpServer provider;
  private RSAKey key;
  /** What the token endpoint puts in its ID token, from the nonce the gateway sent. */
  private final AtomicReference<BiFunction<String, JWTClaimsSet.Builder, String>> idToken = new AtomicReference<>();
  private final AtomicReference<String> lastNonce = new AtomicReference<>();
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private final Grants grants = new Grants(GrantSettings.DEFAULTS, Set.of(), System::currentTimeMillis);

  @BeforeEach
  void start() throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    provider = new FakeMcpServer("/", e -> switch (e.path()) {
      case "/idp/.well-known/openid-configuration" -> Reply.json("{\"issuer\":\"" + issuer() + "\",\"authorization_endpoint\":\""
          + issuer() + "/authorize\",\"token_endpoint\":\"" + issuer() + "/token\",\"jwks_uri\":\"" + issuer() + "/keys\"}");
      case "/idp/keys" -> Reply.json(new JWKSet(key.toPublicJWK()).toString());
      case "/idp/token" -> {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder().issuer(issuer()).audience("gw").subject("carol")
            .expirationTime(new Date(System.currentTimeMillis() + 300_000)).claim("nonce", lastNonce.get());
        yield Reply.json("{\"access_token\":\"at\",\"token_type\":\"Bearer\",\"id_token\":\"" + idToken.get().apply(lastNonce.get(), claims) + "\"}");
      }
      default -> Reply.status(404);
    });
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private String issuer() {
    return "http://127.0.0.1:" + provider.port() + "/idp";
  }

  private String signed(RSAKey with, JWTClaimsSet claims) {
    try {
      SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID("k1").build(), claims);
      jwt.sign(new RSASSASigner(with));
      return jwt.serialize();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** One sign-in from the client's request to what the client is told: the redirect's parameters. */
  private Map<String, String> signIn() throws Exception {
    FederatedLogin login = new FederatedLogin(new FederationSettings(issuer(), "gw", "secret"),
        new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(30)), grants,
        System::currentTimeMillis, new Log(logged, Log.Level.DEBUG, new Redactor()));
    RegisteredClient client = grants.register(List.of(REDIRECT));
    AuthorizationRequest r = new AuthorizationRequest(client.clientId(), REDIRECT, "code", Pkce.create().challenge(), "S256", null,
        RESOURCE, null);
    FederatedLogin.Step.Redirect out = (FederatedLogin.Step.Redirect) login.begin(r, client, "client-state", ISS, RESOURCE);
    Map<String, String> asked = FormEncoding.decode(URI.create(out.location()).getRawQuery());
    lastNonce.set(asked.get("nonce"));
    assertThat(out.setCookie()).contains("HttpOnly").contains("SameSite=Lax").contains("Secure").contains("Path=/oidc/callback");
    String cookie = out.setCookie().substring(0, out.setCookie().indexOf(';'));
    Map<String, String> browser = Map.of(cookie.substring(0, cookie.indexOf('=')), cookie.substring(cookie.indexOf('=') + 1));
    FederatedLogin.Step back = login.callback(Map.of("state", asked.get("state"), "code", "provider-code"), browser);
    String location = ((FederatedLogin.Step.Redirect) back).location();
    assertThat(location).startsWith(REDIRECT + "?");
    return FormEncoding.decode(URI.create(location).getRawQuery());
  }

  @Test
  void aGoodIdTokenSignsItsSubjectIn() throws Exception {
    idToken.set((nonce, claims) -> signed(key, claims.build()));
    Map<String, String> back = signIn();
    assertThat(back).containsKey("code").containsEntry("state", "client-state").containsEntry("iss", ISS);
    List<FakeMcpServer.Exchange> redeemed = provider.exchanges().stream().filter(e -> e.path().equals("/idp/token")).toList();
    assertThat(redeemed.getFirst().text()).contains("code=provider-code").contains("code_verifier=")
        .contains("redirect_uri=" + java.net.URLEncoder.encode(ISS + "/oidc/callback", java.nio.charset.StandardCharsets.UTF_8));
    assertThat(redeemed.getFirst().header("Authorization")).startsWith("Basic ");
  }

  @Test
  void anAnswerBroughtByAnotherBrowserSignsNobodyIn() throws Exception {
    idToken.set((nonce, claims) -> signed(key, claims.build()));
    FederatedLogin login = new FederatedLogin(new FederationSettings(issuer(), "gw", "secret"),
        new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(30)), grants,
        System::currentTimeMillis, new Log(logged, Log.Level.DEBUG, new Redactor()));
    RegisteredClient client = grants.register(List.of(REDIRECT));
    AuthorizationRequest r = new AuthorizationRequest(client.clientId(), REDIRECT, "code", Pkce.create().challenge(), "S256", null,
        RESOURCE, null);
    FederatedLogin.Step.Redirect out = (FederatedLogin.Step.Redirect) login.begin(r, client, "client-state", ISS, RESOURCE);
    String state = FormEncoding.decode(URI.create(out.location()).getRawQuery()).get("state");
    String name = FederatedLogin.cookieName(state);
    for (Map<String, String> cookies : List.of(Map.<String, String>of(), Map.of(name, "a-guess"))) {
      FederatedLogin.Step back = login.callback(Map.of("state", state, "code", "provider-code"), cookies);
      assertThat(back).as("cookies %s", cookies).isInstanceOf(FederatedLogin.Step.Refused.class);
    }
    assertThat(provider.exchanges().stream().filter(e -> e.path().equals("/idp/token"))).as("no code redeemed").isEmpty();
  }

  @Test
  void everyOtherIdTokenSignsNobodyIn() throws Exception {
    RSAKey stranger = new RSAKeyGenerator(2048).keyID("k1").generate();
    Map<String, BiFunction<String, JWTClaimsSet.Builder, String>> cases = Map.of(
        "another client's", (n, c) -> signed(key, c.audience("another-client").build()),
        "another nonce", (n, c) -> signed(key, c.claim("nonce", "not-the-one").build()),
        "no nonce", (n, c) -> signed(key, c.claim("nonce", null).build()),
        "another issuer", (n, c) -> signed(key, c.issuer("https://evil.example").build()),
        "expired", (n, c) -> signed(key, c.expirationTime(new Date(System.currentTimeMillis() - 600_000)).build()),
        "signed by a stranger", (n, c) -> signed(stranger, c.build()),
        "unsigned", (n, c) -> new com.nimbusds.jwt.PlainJWT(c.build()).serialize());
    for (Map.Entry<String, BiFunction<String, JWTClaimsSet.Builder, String>> c : cases.entrySet()) {
      idToken.set(c.getValue());
      Map<String, String> back = signIn();
      assertThat(back).as(c.getKey()).containsEntry("error", "access_denied").doesNotContainKey("code");
    }
  }
}
