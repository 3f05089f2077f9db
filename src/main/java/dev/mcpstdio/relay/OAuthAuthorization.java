package dev.mcpstdio.relay;

import dev.mcpstdio.oauth.AuthChallenge;
import dev.mcpstdio.oauth.OAuthClient;
import java.util.List;
import java.util.Optional;

/** The relay's {@link Authorization} from its OAuth client: stored logins, refresh, sign-in, step-up. */
public final class OAuthAuthorization implements Authorization {

  private final OAuthClient client;
  /** Tokens kept out of the log at once, at most: the newest; older ones have expired by then. */
  static final int REDACTED_TOKENS = 8;

  private final dev.mcpstdio.stdio.Redactor redactor;
  private final java.util.LinkedHashSet<String> registered = new java.util.LinkedHashSet<>(); // guarded by itself

  /** Background refreshes are at least this far apart. */
  static final java.time.Duration MIN_REFRESH_GAP = java.time.Duration.ofSeconds(1);

  private final boolean proactive;
  private final java.time.Clock clock;
  private final java.util.concurrent.atomic.AtomicReference<Thread> refresher = new java.util.concurrent.atomic.AtomicReference<>();

  /**
   * @param redactor the relay log's: each token sent is registered with it, the newest
   *     {@link #REDACTED_TOKENS} at a time
   * @param proactive refresh in the background before the token expires
   */
  public OAuthAuthorization(OAuthClient client, dev.mcpstdio.stdio.Redactor redactor, boolean proactive, java.time.Clock clock) {
    this.client = client;
    this.redactor = redactor;
    this.proactive = proactive;
    this.clock = clock;
  }

  /**
   * Plans the background refresh of the login at hand (one at a time; a newer plan replaces an
   * older one). The thread is virtual and only sleeps until then, so a relay that exits is not
   * held up by it.
   */
  private void scheduleRefresh() {
    java.time.Instant due = proactive ? client.refreshDue() : null;
    if (due == null) {
      return;
    }
    Thread next = Thread.ofVirtual().name("oauth-refresh").unstarted(() -> {
      try {
        // at least a second apart, however short-lived the server's tokens
        Thread.sleep(Math.max(MIN_REFRESH_GAP.toMillis(), java.time.Duration.between(clock.instant(), due).toMillis()));
        if (refresher.get() != Thread.currentThread()) {
          return; // a newer plan took over while this one slept
        }
        if (client.refreshInBackground()) {
          scheduleRefresh(); // a failed one is not retried here: the next request renews the login
        }
      } catch (InterruptedException e) {
        // the relay is going away
      }
    });
    refresher.set(next); // an older plan notices and ends; a refresh under way is never cut off
    next.start();
  }

  /** The header for {@code token}, which the log is told to hide the first time it is seen. */
  private String bearer(String token) {
    synchronized (registered) {
      if (registered.add(token)) {
        redactor.addSecret(token);
        if (registered.size() > REDACTED_TOKENS) {
          String oldest = registered.iterator().next();
          registered.remove(oldest);
          redactor.removeSecret(oldest);
        }
      }
    }
    return "Bearer " + token;
  }

  /** Plans a background refresh unless one is planned already. */
  private void ensureScheduled() {
    Thread planned = refresher.get();
    if (planned == null || !planned.isAlive()) {
      scheduleRefresh();
    }
  }

  @Override
  public String header() throws Unavailable, InterruptedException {
    try {
      String token = client.token();
      ensureScheduled();
      return bearer(token);
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }

  @Override
  public String existing() throws InterruptedException {
    String token = client.existingToken();
    if (token == null) {
      return null;
    }
    ensureScheduled();
    return bearer(token);
  }

  @Override
  public String current() {
    String token = client.currentToken();
    return token == null ? null : bearer(token);
  }

  @Override
  public String renew(String rejected, int status, List<String> challenges) throws Unavailable, InterruptedException {
    String rejectedToken = rejected == null ? null : rejected.startsWith("Bearer ") ? rejected.substring("Bearer ".length()) : rejected;
    Optional<AuthChallenge> challenge = AuthChallenge.bearer(challenges);
    String hint = challenge.map(AuthChallenge::resourceMetadata).orElse(null);
    try {
      if (status == 403) {
        String scope = challenge.filter(c -> "insufficient_scope".equals(c.error())).map(AuthChallenge::scope).orElse(null);
        if (scope == null) {
          return null; // forbidden without naming a scope: more scope would not help
        }
        String stepped = client.insufficientScope(rejectedToken, scope, hint);
        scheduleRefresh(); // the new login's expiry
        return bearer(stepped);
      }
      String renewed = client.unauthorized(rejectedToken, hint, challenge.map(AuthChallenge::scope).orElse(null));
      scheduleRefresh();
      return bearer(renewed);
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }
}
