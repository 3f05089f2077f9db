package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.stdio.Log;
import java.util.function.LongSupplier;

/**
 * The gateway's link to one external identity provider: its metadata ({@link ProviderMetadata}),
 * fetched when first needed and then kept, and the checker of the JWTs it signs
 * ({@link JwtAccessTokens}, on its JWKS). While the metadata cannot be had, {@link #get} answers
 * null at once and asks again at most every {@link #RETRY_MILLIS}; each distinct problem is logged
 * once. One fetch runs at a time; requests that come meanwhile wait for it (bounded by the HTTP
 * timeout of each of the two places tried).
 */
final class ProviderLink {

  static final long RETRY_MILLIS = 5_000;

  /** The provider's metadata and the checker of its JWTs (null when it publishes no keys). */
  record Linked(ProviderMetadata metadata, JwtAccessTokens jwts) {}

  private final String issuer;
  private final OAuthHttp http;
  private final LongSupplier clock;
  private final Log log;
  private volatile Linked linked;
  private long lastFailure; // guarded by this
  private String logged; // the last problem logged, guarded by this

  ProviderLink(String issuer, OAuthHttp http, LongSupplier clock, Log log) {
    this.issuer = issuer;
    this.http = http;
    this.clock = clock;
    this.log = log;
  }

  String issuer() {
    return issuer;
  }

  OAuthHttp http() {
    return http;
  }

  /** The link, or null while the provider cannot be reached or used. */
  Linked get() throws InterruptedException {
    Linked l = linked;
    return l != null ? l : fetch();
  }

  private synchronized Linked fetch() throws InterruptedException {
    if (linked != null) {
      return linked;
    }
    long now = clock.getAsLong();
    if (logged != null && now - lastFailure < RETRY_MILLIS) {
      return null;
    }
    try {
      ProviderMetadata m = ProviderMetadata.fetch(http, issuer);
      Linked l = new Linked(m, m.jwksUri() == null ? null : new JwtAccessTokens(issuer, m.jwksUri(), new OAuthHttpRetriever(http)));
      log.info("identity provider " + issuer + ": " + (m.jwksUri() == null ? "no key set" : "keys at " + m.jwksUri())
          + ", " + (m.introspectionEndpoint() == null ? "no introspection endpoint" : "introspection at " + m.introspectionEndpoint()));
      linked = l;
      return l;
    } catch (ProviderMetadata.Unusable e) {
      if (!e.getMessage().equals(logged)) { // once per distinct problem, not every retry
        log.warn("identity provider " + issuer + " cannot be used yet: " + e.getMessage());
      }
      logged = e.getMessage();
      lastFailure = now;
      return null;
    }
  }
}
