package dev.mcpstdio.relay;

import java.util.Map;

/**
 * The last link before the wire when the relay signs in itself: every attempt carries the login at
 * hand (refreshed when about to expire); without one it goes out bare, and the server's 401 leads
 * the sign-in (its resource metadata and wanted scope are in the challenge, as MCP intends). An
 * attempt refused for its token (401, or 403 {@code insufficient_scope}) is renewed and tried once
 * more; a server refuses a request it will not run, so the replay is safe even for
 * {@code tools/call}. A second refusal is the server's answer; a sign-in that fails is an error for
 * the call, in words the host can show.
 */
final class AuthLink implements Interceptor {

  private final Authorization auth;

  AuthLink(Authorization auth) {
    this.auth = auth;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    String header = auth.existing();
    Call first = header == null ? chain.call() : chain.call().withHeaders(Map.of("authorization", header));
    Outcome outcome = chain.proceed(first);
    if (!(outcome instanceof Outcome.Refused r) || !(r.status() == 401 || insufficientScope(r))) {
      return outcome;
    }
    String renewed;
    try {
      renewed = auth.renew(header, r.status(), r.headers().allValues("WWW-Authenticate"));
    } catch (Authorization.Unavailable e) {
      return Outcome.Failed.of(Outcome.Kind.UNAUTHORIZED, (header == null ? "not signed in to the server: "
          : "the server refused the login (HTTP " + r.status() + ") and signing in again failed: ") + e.getMessage());
    }
    return renewed == null ? outcome : chain.proceed(chain.call().withHeaders(Map.of("authorization", renewed)));
  }

  private static boolean insufficientScope(Outcome.Refused r) {
    return r.status() == 403 && dev.mcpstdio.oauth.AuthChallenge.bearer(r.headers().allValues("WWW-Authenticate"))
        .map(c -> "insufficient_scope".equals(c.error())).orElse(false);
  }
}
