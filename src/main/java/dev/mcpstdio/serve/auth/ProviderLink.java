package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.stdio.Log;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The gateway's link to one external identity provider: its metadata ({@link ProviderMetadata}),
 * fetched when first needed and then kept, and the checker of the JWTs it signs
 * ({@link JwtAccessTokens}, on its JWKS). One fetch runs at a time, on a thread of its own, and
 * no lock is held while it runs: requests that come meanwhile wait for its outcome at most
 * {@link #WAIT_MILLIS}, then are told the provider is unavailable. After a failed fetch
 * {@link #get} answers null at once until {@link #RETRY_MILLIS} have passed since that failure;
 * each distinct problem is logged once.
 */
final class ProviderLink {

  static final long RETRY_MILLIS = 5_000;
  /** How long a request waits for a fetch in progress (each of its two places may take the HTTP timeout). */
  static final long WAIT_MILLIS = 25_000;

  /** The provider's metadata and the checker of its JWTs (null when it publishes no keys). */
  record Linked(ProviderMetadata metadata, JwtAccessTokens jwts) {}

  private final String issuer;
  private final OAuthHttp http;
  private final LongSupplier clock;
  private final Log log;
  private volatile Linked linked;
  private CompletableFuture<Linked> inFlight; // guarded by this
  private long lastFailure; // when the last fetch failed, guarded by this
  private boolean failed; // guarded by this
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
    if (l != null) {
      return l;
    }
    CompletableFuture<Linked> fetch;
    synchronized (this) {
      if (linked != null) {
        return linked;
      }
      if (inFlight == null) {
        if (failed && clock.getAsLong() - lastFailure < RETRY_MILLIS) {
          return null;
        }
        CompletableFuture<Linked> started = new CompletableFuture<>();
        inFlight = started;
        Thread.ofVirtual().name("provider-metadata").start(() -> fetch(started));
      }
      fetch = inFlight;
    }
    try {
      return fetch.get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    }
  }

  private void fetch(CompletableFuture<Linked> outcome) {
    Linked l = null;
    String problem;
    try {
      ProviderMetadata m = ProviderMetadata.fetch(http, issuer);
      l = new Linked(m, m.jwksUri() == null ? null : new JwtAccessTokens(issuer, m.jwksUri(), new OAuthHttpRetriever(http)));
      log.info("identity provider " + issuer + ": " + (m.jwksUri() == null ? "no key set" : "keys at " + m.jwksUri())
          + ", " + (m.introspectionEndpoint() == null ? "no introspection endpoint" : "introspection at " + m.introspectionEndpoint()));
      problem = null;
    } catch (ProviderMetadata.Unusable e) {
      problem = e.getMessage();
    } catch (InterruptedException e) {
      problem = "interrupted";
    } catch (RuntimeException e) {
      problem = e.toString();
    }
    synchronized (this) {
      inFlight = null;
      if (l != null) {
        linked = l;
        failed = false;
      } else {
        failed = true;
        lastFailure = clock.getAsLong(); // the pause counts from the failure, not from the start of a slow fetch
        if (!problem.equals(logged)) { // once per distinct problem, not every retry
          logged = problem;
          log.warn("identity provider " + issuer + " cannot be used yet: " + problem);
        }
      }
    }
    outcome.complete(l);
  }
}
