package dev.mcpstdio.serve.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.PlainJWT;
import com.nimbusds.jwt.SignedJWT;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * Resource-server mode against an identity provider on loopback whose keys, metadata and
 * introspection answers the test controls: every rule of a JWT's check, key rotation, a provider
 * that is down, introspection and its cache, and scopes.
 */
class ExternalTokensTest {

  private static final String AUDIENCE = "https://mcp.example/mcp";

  private final AtomicReference<String> keys = new AtomicReference<>();
  private final AtomicReference<Reply> introspection = new AtomicReference<>(Reply.status(404));
  private final AtomicReference<String> declaredIssuer = new AtomicReference<>();
  private final AtomicLong now = new AtomicLong(System.currentTimeMillis());
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
  private FakeMcpServer provider;
  private RSAKey key;

  @BeforeEach
  void start() throws Exception {
    key = new RSAKeyGenerator(2048).keyID("k1").generate();
    keys.set(new JWKSet(key.toPublicJWK()).toString());
    provider = new FakeMcpServer("/", e -> switch (e.path()) {
      case "/realm/.well-known/openid-configuration" -> Reply.json("{\"issuer\":\"" + (declaredIssuer.get() != null ? declaredIssuer.get() : issuer())
          + "\",\"jwks_uri\":\"" + issuer() + "/keys\",\"introspection_endpoint\":\"" + issuer() + "/introspect\"}");
      case "/realm/keys" -> keys.get() == null ? Reply.status(503) : Reply.json(keys.get());
      case "/realm/introspect" -> introspection.get();
      default -> Reply.status(404);
    });
  }

  @AfterEach
  void stop() {
    provider.close();
  }

  private String issuer() {
    return "http://127.0.0.1:" + provider.port() + "/realm";
  }

  private static OAuthHttp http() {
    return new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(30));
  }

  private ExternalTokens tokens(List<String> scopes, String clientId) {
    return new ExternalTokens(new ExternalTokens.Settings(issuer(), AUDIENCE, scopes, clientId, clientId == null ? null : "s3cret:/"),
        http(), now::get, new Log(logged, Log.Level.DEBUG, new Redactor()));
  }

  private JWTClaimsSet.Builder claims() {
    Date t = new Date();
    return new JWTClaimsSet.Builder().issuer(issuer()).audience(AUDIENCE).subject("alice").issueTime(t)
        .expirationTime(new Date(t.getTime() + 300_000));
  }

  private static String sign(RSAKey with, JWTClaimsSet claims) throws Exception {
    SignedJWT jwt = new SignedJWT(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(with.getKeyID()).type(JOSEObjectType.JWT).build(), claims);
    jwt.sign(new RSASSASigner(with));
    return jwt.serialize();
  }

  private String sign(JWTClaimsSet claims) throws Exception {
    return sign(key, claims);
  }

  @Nested
  class Jwts {

    @Test
    void aGoodTokenIsItsSubjects() throws Exception {
      assertThat(tokens(List.of(), null).verify(sign(claims().build()), "ignored: the audience is configured"))
          .isEqualTo(new TokenVerdict.Accepted("alice"));
    }

    @Test
    void theAudienceDefaultsToTheResource() throws Exception {
      ExternalTokens byResource = new ExternalTokens(new ExternalTokens.Settings(issuer(), null, List.of(), null, null), http(), now::get,
          new Log(logged, Log.Level.DEBUG, new Redactor()));
      assertThat(byResource.verify(sign(claims().build()), AUDIENCE)).isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(byResource.verify(sign(claims().build()), "https://other.example/mcp")).isInstanceOf(TokenVerdict.Rejected.class);
    }

    @Test
    void everyBrokenRuleIsRefused() throws Exception {
      ExternalTokens t = tokens(List.of(), null);
      long s = System.currentTimeMillis();
      RSAKey stranger = new RSAKeyGenerator(2048).keyID("k1").generate(); // same key id, another key
      RSAKey unknown = new RSAKeyGenerator(2048).keyID("k9").generate();
      Map<String, String> cases = new java.util.LinkedHashMap<>();
      cases.put("alg none", new PlainJWT(claims().build()).serialize());
      cases.put("signed by a stranger under a known key id", sign(stranger, claims().build()));
      cases.put("signed by an unknown key", sign(unknown, claims().build()));
      cases.put("expired past the skew", sign(claims().expirationTime(new Date(s - 120_000)).build()));
      cases.put("not valid for two minutes yet", sign(claims().notBeforeTime(new Date(s + 120_000)).build()));
      cases.put("another audience", sign(claims().audience("https://other.example/mcp").build()));
      cases.put("another issuer", sign(claims().issuer(issuer() + "2").build()));
      cases.put("no expiry", sign(claims().expirationTime(null).build()));
      cases.put("no subject", sign(claims().subject(null).build()));
      cases.put("a subject with a control character", sign(claims().subject("al\nice").build()));
      SignedJWT hmac = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims().build());
      hmac.sign(new MACSigner(key.toPublicJWK().toRSAPublicKey().getEncoded()));
      cases.put("HS256 keyed with the public key (algorithm confusion)", hmac.serialize());
      String good = sign(claims().build());
      String[] parts = good.split("\\.");
      String forged = Base64.getUrlEncoder().withoutPadding().encodeToString(
          claims().subject("mallory").build().toString().getBytes(StandardCharsets.UTF_8));
      cases.put("claims swapped under a good signature", parts[0] + "." + forged + "." + parts[2]);
      cases.put("garbage in three parts", "a.b.c");
      for (Map.Entry<String, String> c : cases.entrySet()) {
        assertThat(t.verify(c.getValue(), AUDIENCE)).as(c.getKey()).isInstanceOf(TokenVerdict.Rejected.class);
      }
      assertThat(t.verify(sign(claims().expirationTime(new Date(s - 20_000)).build()), AUDIENCE))
          .as("expired within the 60 s skew").isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(t.verify(good, AUDIENCE)).isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(JwtAccessTokens.ALGORITHMS).as("asymmetric algorithms only: a public key is no secret")
          .noneMatch(a -> a.getName().startsWith("HS") || a.getName().equals("none"));
    }

    @Test
    void anIdTokenIsNoAccessTokenEvenForItsAudience() throws Exception {
      ExternalTokens t = tokens(List.of(), null);
      assertThat(t.verify(sign(claims().claim("nonce", "n-1").build()), AUDIENCE)).isInstanceOf(TokenVerdict.Rejected.class);
      assertThat(t.verify(sign(claims().claim("at_hash", "h").build()), AUDIENCE)).isInstanceOf(TokenVerdict.Rejected.class);
    }

    @Test
    void aScopeThatWouldBreakTheChallengeHeaderIsRefused() {
      for (String bad : List.of("a\"b", "a b", "a\\b", "a\r\nX: y", "")) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new ExternalTokens.Settings(issuer(), null, List.of(bad), null, null))
            .as(bad).isInstanceOf(IllegalArgumentException.class);
      }
    }

    @Test
    void aRotatedKeyIsFetchedWhenATokenNamesIt() throws Exception {
      JwtAccessTokens jwts = new JwtAccessTokens(issuer(), URI.create(issuer() + "/keys"), new OAuthHttpRetriever(http()), 1);
      assertThat(jwts.check(sign(claims().build()), AUDIENCE).failure()).isNull();
      RSAKey next = new RSAKeyGenerator(2048).keyID("k2").generate();
      keys.set(new JWKSet(next.toPublicJWK()).toString()); // the provider rotates: k1 is gone, k2 signs
      String signedByNext = sign(next, claims().build());
      // the 1 ms rate limit lets the refetch for the unknown key id through
      dev.mcpstdio.testing.Await.until("the rotated key to be fetched", Duration.ofSeconds(10),
          () -> jwts.check(signedByNext, AUDIENCE).failure() == null);
      assertThat(jwts.check(sign(key, claims().build()), AUDIENCE).failure()).as("the retired key").isInstanceOf(TokenVerdict.Rejected.class);
    }

    @Test
    void aKeySetThatCannotBeFetchedMakesTheTokenUncheckableNotBad() throws Exception {
      keys.set(null);
      assertThat(tokens(List.of(), null).verify(sign(claims().build()), AUDIENCE)).isInstanceOf(TokenVerdict.Unavailable.class);
    }

    @Test
    void aProviderThatIsDownOrNamesAnotherIssuerIsUnavailable() throws Exception {
      declaredIssuer.set("https://evil.example/realm");
      ExternalTokens t = tokens(List.of(), null);
      assertThat(t.verify(sign(claims().build()), AUDIENCE)).isInstanceOf(TokenVerdict.Unavailable.class);
      assertThat(logged.toString()).contains("names issuer 'https://evil.example/realm'");
      declaredIssuer.set(null);
      assertThat(t.verify(sign(claims().build()), AUDIENCE)).as("within the retry pause").isInstanceOf(TokenVerdict.Unavailable.class);
      now.addAndGet(ProviderLink.RETRY_MILLIS);
      assertThat(t.verify(sign(claims().build()), AUDIENCE)).as("after it").isInstanceOf(TokenVerdict.Accepted.class);
    }

    @Test
    void aMissingScopeIsInsufficientAndScpCounts() throws Exception {
      ExternalTokens t = tokens(List.of("mcp:tools", "mcp:read"), null);
      assertThat(t.verify(sign(claims().claim("scope", "mcp:read openid").build()), AUDIENCE))
          .isEqualTo(new TokenVerdict.InsufficientScope("mcp:tools mcp:read"));
      assertThat(t.verify(sign(claims().claim("scope", "openid mcp:tools mcp:read").build()), AUDIENCE))
          .isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(t.verify(sign(claims().claim("scp", List.of("mcp:tools", "mcp:read")).build()), AUDIENCE))
          .isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(t.verify(sign(claims().audience("x").claim("scope", "mcp:tools mcp:read").build()), AUDIENCE))
          .as("a bad token is bad before its scopes count").isInstanceOf(TokenVerdict.Rejected.class);
    }
  }

  @Nested
  class Opaque {

    private String active(String aud, long expSeconds) {
      return "{\"active\":true,\"sub\":\"bob\",\"aud\":" + aud + ",\"iss\":\"" + issuer() + "\",\"exp\":" + expSeconds
          + ",\"scope\":\"mcp:tools\"}";
    }

    @Test
    void anActiveTokenForThisAudienceIsItsSubjectsAndTheAnswerIsCached() throws Exception {
      introspection.set(Reply.json(active("[\"" + AUDIENCE + "\",\"other\"]", now.get() / 1000 + 3600)));
      ExternalTokens t = tokens(List.of("mcp:tools"), "gateway");
      assertThat(t.verify("opaque-token-1", AUDIENCE)).isEqualTo(new TokenVerdict.Accepted("bob"));
      assertThat(t.verify("opaque-token-1", AUDIENCE)).isEqualTo(new TokenVerdict.Accepted("bob"));
      List<FakeMcpServer.Exchange> asked = provider.exchanges().stream().filter(e -> e.path().equals("/realm/introspect")).toList();
      assertThat(asked).as("one introspection, then the cache").hasSize(1);
      assertThat(asked.getFirst().text()).contains("token=opaque-token-1").contains("token_type_hint=access_token");
      assertThat(asked.getFirst().header("Authorization"))
          .isEqualTo("Basic " + Base64.getEncoder().encodeToString("gateway:s3cret%3A%2F".getBytes(StandardCharsets.UTF_8)));
      now.addAndGet(Introspection.MAX_CACHE_MILLIS);
      t.verify("opaque-token-1", AUDIENCE);
      assertThat(provider.exchanges().stream().filter(e -> e.path().equals("/realm/introspect"))).as("asked again after the cache life").hasSize(2);
    }

    @Test
    void aVerdictCachedForOneAudienceIsNotTakenForAnother() throws Exception {
      ExternalTokens byResource = new ExternalTokens(new ExternalTokens.Settings(issuer(), null, List.of(), "gateway", "s"), http(),
          now::get, new Log(logged, Log.Level.DEBUG, new Redactor()));
      introspection.set(Reply.json(active("\"" + AUDIENCE + "\"", now.get() / 1000 + 3600)));
      assertThat(byResource.verify("opaque-token-2", AUDIENCE)).isInstanceOf(TokenVerdict.Accepted.class);
      assertThat(byResource.verify("opaque-token-2", "https://other.example/mcp")).isInstanceOf(TokenVerdict.Rejected.class);
    }

    @Test
    void aUsernameWithoutASubjectNamesNobody() throws Exception {
      introspection.set(Reply.json("{\"active\":true,\"username\":\"bob\",\"aud\":\"" + AUDIENCE + "\"}"));
      assertThat(tokens(List.of(), "gateway").verify("opaque-token-3", AUDIENCE)).isInstanceOf(TokenVerdict.Rejected.class);
    }

    @Test
    void inactiveForeignExpiredOrAudiencelessTokensAreRefused() throws Exception {
      ExternalTokens t = tokens(List.of(), "gateway");
      long in1h = now.get() / 1000 + 3600;
      Map<String, String> answers = Map.of(
          "inactive", "{\"active\":false}",
          "another audience", active("\"https://other.example\"", in1h),
          "no audience", "{\"active\":true,\"sub\":\"bob\",\"exp\":" + in1h + "}",
          "expired", active("\"" + AUDIENCE + "\"", now.get() / 1000 - 600),
          "another issuer", "{\"active\":true,\"sub\":\"bob\",\"aud\":\"" + AUDIENCE + "\",\"iss\":\"https://x.example\"}");
      int i = 0;
      for (Map.Entry<String, String> a : answers.entrySet()) {
        introspection.set(Reply.json(a.getValue()));
        assertThat(t.verify("opaque-" + i++, AUDIENCE)).as(a.getKey()).isInstanceOf(TokenVerdict.Rejected.class);
      }
    }

    @Test
    void anIntrospectionEndpointThatIsDownMakesTheTokenUncheckable() throws Exception {
      introspection.set(Reply.status(500));
      ExternalTokens t = tokens(List.of(), "gateway");
      assertThat(t.verify("opaque-token", AUDIENCE)).isInstanceOf(TokenVerdict.Unavailable.class);
      introspection.set(Reply.json(active("\"" + AUDIENCE + "\"", now.get() / 1000 + 3600)));
      assertThat(t.verify("opaque-token", AUDIENCE)).as("an outage is not cached").isInstanceOf(TokenVerdict.Accepted.class);
    }

    @Test
    void withoutClientCredentialsAnOpaqueTokenIsRefused() throws Exception {
      introspection.set(Reply.json(active("\"" + AUDIENCE + "\"", now.get() / 1000 + 3600)));
      assertThat(tokens(List.of(), null).verify("opaque-token", AUDIENCE)).isInstanceOf(TokenVerdict.Rejected.class);
      assertThat(provider.exchanges().stream().filter(e -> e.path().equals("/realm/introspect"))).isEmpty();
    }
  }
}
