package dev.mcpstdio.relay;

import java.util.Map;

/**
 * The last link before the wire when the relay signs in itself: every attempt carries the current
 * {@code Authorization} header (signing in first when there is no login), and an attempt the
 * server refuses for its token (401, or 403 {@code insufficient_scope}) is renewed and tried once
 * more. A second refusal is the server's answer. No header at all is an error for the call, in
 * words the host can show.
 */
final class AuthLink implements Interceptor {

  private final Authorization auth;

  AuthLink(Authorization auth) {
    this.auth = auth;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    String header;
    try {
      header = auth.header();
    } catch (Authorization.Unavailable e) {
      return Outcome.Failed.of(Outcome.Kind.UNAUTHORIZED, "not signed in to the server: " + e.getMessage());
    }
    Outcome outcome = chain.proceed(chain.call().withHeaders(Map.of("authorization", header)));
    if (!(outcome instanceof Outcome.Refused r) || !(r.status() == 401 || insufficientScope(r))) {
      return outcome;
    }
    String renewed;
    try {
      renewed = auth.renew(header, r.status(), r.headers().allValues("WWW-Authenticate"));
    } catch (Authorization.Unavailable e) {
      return Outcome.Failed.of(Outcome.Kind.UNAUTHORIZED, "the server refused the login (HTTP " + r.status() + ") and "
          + "signing in again failed: " + e.getMessage());
    }
    return renewed == null ? outcome : chain.proceed(chain.call().withHeaders(Map.of("authorization", renewed)));
  }

  private static boolean insufficientScope(Outcome.Refused r) {
    return r.status() == 403 && dev.mcpstdio.oauth.AuthChallenge.bearer(r.headers().allValues("WWW-Authenticate"))
        .map(c -> "insufficient_scope".equals(c.error())).orElse(false);
  }
}
