package dev.mcpstdio.serve.auth;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.stdio.Log;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.LongSupplier;

/**
 * Resource-server mode ({@code --oauth-issuer}): access tokens issued by an identity provider the
 * organisation runs, checked on every request with nothing shared between replicas. A JWT is
 * checked by {@link JwtAccessTokens} against the provider's published keys; any other token by
 * RFC 7662 introspection ({@link Introspection}), when the provider has an introspection endpoint
 * and the gateway client credentials for it. The principal is the token's {@code sub}; a token
 * without every {@code --require-scope} is answered 403 {@code insufficient_scope}.
 *
 * <p>The provider's metadata is fetched at the first token and kept; while it cannot be had,
 * tokens are answered 503 and it is asked again at most every {@link #RETRY_MILLIS}.
 */
public final class ExternalTokens implements AccessTokens {

  static final long RETRY_MILLIS = 5_000;

  /**
   * @param issuer the provider's issuer, exactly as its tokens and metadata name it
   * @param audience the audience its tokens must name; null for this endpoint's resource URL
   * @param requiredScopes scopes every token must carry
   * @param clientId this gateway's client at the provider, for introspection; null without
   * @param clientSecret its secret; null without
   */
  public record Settings(String issuer, String audience, List<String> requiredScopes, String clientId, String clientSecret) {
    public Settings {
      requiredScopes = List.copyOf(requiredScopes);
      if ((clientId == null) != (clientSecret == null)) {
        throw new IllegalArgumentException("a client id and its secret go together");
      }
    }

    @Override
    public String toString() { // the secret never reaches a log line through a record's toString
      return "Settings[issuer=" + issuer + ", audience=" + audience + ", requiredScopes=" + requiredScopes + ", clientId="
          + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "(hidden)") + "]";
    }
  }

  private final Settings settings;
  private final OAuthHttp http;
  private final LongSupplier clock;
  private final Log log;
  private ProviderMetadata metadata; // guarded by this
  private JwtAccessTokens jwts; // guarded by this; null when the provider publishes no keys
  private Introspection introspection; // guarded by this; null without an endpoint or credentials
  private long lastFailure = Long.MIN_VALUE; // guarded by this
  private String failure; // guarded by this
  private String logged; // the last problem logged, guarded by this

  public ExternalTokens(Settings settings, OAuthHttp http, LongSupplier clock, Log log) {
    this.settings = settings;
    this.http = http;
    this.clock = clock;
    this.log = log;
  }

  public String issuer() {
    return settings.issuer();
  }

  @Override
  public List<String> requiredScopes() {
    return settings.requiredScopes();
  }

  @Override
  public TokenVerdict verify(String token, String resource) throws InterruptedException {
    String problem = ready();
    if (problem != null) {
      return new TokenVerdict.Unavailable(problem);
    }
    String audience = settings.audience() != null ? settings.audience() : resource;
    TokenVerdict verdict;
    List<String> scopes;
    if (JwtAccessTokens.isJwt(token)) {
      if (jwts() == null) {
        return new TokenVerdict.Rejected("the provider publishes no keys (jwks_uri) to check a JWT with");
      }
      JwtAccessTokens.Checked checked = jwts().check(token, audience);
      if (checked.failure() != null) {
        return checked.failure();
      }
      String user = checked.claims().getSubject();
      if (!Principals.isUserName(user)) {
        return new TokenVerdict.Rejected("the token names no usable user (sub)");
      }
      verdict = new TokenVerdict.Accepted(user);
      scopes = scopesOf(checked.claims());
    } else {
      Introspection i = introspection();
      if (i == null) {
        return new TokenVerdict.Rejected("not a JWT, and the provider cannot be asked about other tokens"
            + " (no introspection endpoint, or no --oauth-client-id)");
      }
      Introspection.Result result = i.check(token, audience);
      verdict = result.verdict();
      scopes = result.scopes();
    }
    if (verdict instanceof TokenVerdict.Accepted && !scopes.containsAll(settings.requiredScopes())) {
      return new TokenVerdict.InsufficientScope(String.join(" ", settings.requiredScopes()));
    }
    return verdict;
  }

  /** {@code scope} (a space-separated string, RFC 9068) or {@code scp} (a list or a string, as some providers send). */
  static List<String> scopesOf(JWTClaimsSet claims) {
    Set<String> out = new LinkedHashSet<>();
    for (String name : List.of("scope", "scp")) {
      Object value = claims.getClaim(name);
      if (value instanceof String s) {
        for (String part : s.trim().split(" +")) {
          if (!part.isEmpty()) {
            out.add(part);
          }
        }
      } else if (value instanceof List<?> list) {
        list.stream().filter(String.class::isInstance).map(String.class::cast).forEach(out::add);
      }
    }
    return new ArrayList<>(out);
  }

  private synchronized JwtAccessTokens jwts() {
    return jwts;
  }

  private synchronized Introspection introspection() {
    return introspection;
  }

  /** Null once the provider's metadata is known; else why tokens cannot be checked now. */
  private synchronized String ready() throws InterruptedException {
    if (metadata != null) {
      return null;
    }
    long now = clock.getAsLong();
    if (failure != null && now - lastFailure < RETRY_MILLIS) {
      return failure;
    }
    try {
      ProviderMetadata m = ProviderMetadata.fetch(http, settings.issuer());
      jwts = m.jwksUri() == null ? null : new JwtAccessTokens(settings.issuer(), m.jwksUri(), new OAuthHttpRetriever(http));
      introspection = m.introspectionEndpoint() == null || settings.clientId() == null ? null
          : new Introspection(http, m.introspectionEndpoint(), settings.issuer(), settings.clientId(), settings.clientSecret(), clock);
      metadata = m;
      log.info("identity provider " + settings.issuer() + ": " + (jwts == null ? "no key set" : "keys at " + m.jwksUri())
          + ", " + (introspection == null ? "no introspection" : "introspection at " + m.introspectionEndpoint()));
      failure = null;
      return null;
    } catch (ProviderMetadata.Unusable e) {
      if (!e.getMessage().equals(logged)) { // once per distinct problem, not every retry
        logged = e.getMessage();
        log.warn("identity provider " + settings.issuer() + " cannot be used yet: " + e.getMessage());
      }
      failure = "the identity provider cannot be reached or used";
      lastFailure = now;
      return failure;
    }
  }
}
