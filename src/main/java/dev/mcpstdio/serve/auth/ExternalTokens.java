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
 * checked by {@link JwtAccessTokens} against the provider's published keys (an ID token, which
 * carries a {@code nonce} or {@code at_hash}, is refused: it is no access token); any other token by
 * RFC 7662 introspection ({@link Introspection}), when the provider has an introspection endpoint
 * and the gateway client credentials for it. The principal is the token's {@code sub}; a token
 * without every {@code --require-scope} is answered 403 {@code insufficient_scope}.
 *
 * <p>The provider's metadata is fetched at the first token and kept ({@link ProviderLink}); while it
 * cannot be had, tokens are answered 503 and it is asked again at most every
 * {@link ProviderLink#RETRY_MILLIS}.
 */
public final class ExternalTokens implements AccessTokens {

  /**
   * @param issuer the provider's issuer, exactly as its tokens and metadata name it
   * @param audience the audience its tokens must name; null for this endpoint's resource URL
   * @param requiredScopes scopes every token must carry
   * @param clientId this gateway's client at the provider, for introspection; null without
   * @param clientSecret its secret; null without
   */
  public record Settings(String issuer, String audience, List<String> requiredScopes, String clientId, String clientSecret) {
    /** A scope token (RFC 6749 section 3.3): printable ASCII but space, {@code "} and {@code \\} (it goes into a header). */
    public static final java.util.regex.Pattern SCOPE = java.util.regex.Pattern.compile("[\\x21\\x23-\\x5B\\x5D-\\x7E]{1,256}");

    public Settings {
      requiredScopes = List.copyOf(requiredScopes);
      for (String scope : requiredScopes) {
        if (!SCOPE.matcher(scope).matches()) {
          throw new IllegalArgumentException("not a scope: printable ASCII but space, '\"' and '\\'");
        }
      }
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
  private final ProviderLink link;
  private final LongSupplier clock;
  private volatile Introspection introspection; // made with the link, when it has an endpoint and credentials

  public ExternalTokens(Settings settings, OAuthHttp http, LongSupplier clock, Log log) {
    this.settings = settings;
    this.link = new ProviderLink(settings.issuer(), http, clock, log);
    this.clock = clock;
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
    ProviderLink.Linked linked = link.get();
    if (linked == null) {
      return new TokenVerdict.Unavailable("the identity provider cannot be reached or used");
    }
    String audience = settings.audience() != null ? settings.audience() : resource;
    TokenVerdict verdict;
    List<String> scopes;
    if (JwtAccessTokens.isJwt(token)) {
      if (linked.jwts() == null) {
        return new TokenVerdict.Rejected("the provider publishes no keys (jwks_uri) to check a JWT with");
      }
      JwtAccessTokens.Checked checked = linked.jwts().check(token, audience);
      if (checked.failure() != null) {
        return checked.failure();
      }
      if (checked.claims().getClaim("nonce") != null || checked.claims().getClaim("at_hash") != null) {
        // an ID token names its client as audience: with --oauth-audience set to a client id it would pass for an access token
        return new TokenVerdict.Rejected("an ID token (nonce or at_hash) is not an access token");
      }
      String user = checked.claims().getSubject();
      if (!Principals.isUserName(user)) {
        return new TokenVerdict.Rejected("the token names no usable user (sub)");
      }
      verdict = new TokenVerdict.Accepted(user);
      scopes = scopesOf(checked.claims());
    } else {
      Introspection i = introspection(linked.metadata());
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

  /** The introspection of the provider's endpoint with this gateway's credentials; null without either. */
  private Introspection introspection(ProviderMetadata metadata) {
    Introspection i = introspection;
    if (i == null && metadata.introspectionEndpoint() != null && settings.clientId() != null) {
      synchronized (this) {
        if (introspection == null) {
          introspection = new Introspection(link.http(), metadata.introspectionEndpoint(), settings.issuer(), settings.clientId(),
              settings.clientSecret(), clock);
        }
        i = introspection;
      }
    }
    return i;
  }
}
