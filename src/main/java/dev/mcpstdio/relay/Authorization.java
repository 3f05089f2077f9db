package dev.mcpstdio.relay;

import java.util.List;

/**
 * Where the relay's {@code Authorization} header comes from when it signs in itself (OAuth), and
 * what it does when the server refuses it. A static {@code --bearer-token} is a plain header and
 * needs none of this.
 */
public interface Authorization {

  /** No header could be had; the message is safe to show to the host. */
  final class Unavailable extends Exception {
    public Unavailable(String message) {
      super(message);
    }
  }

  /** The header value to send now ({@code Bearer ...}); may sign in first, which can take a while. */
  String header() throws Unavailable, InterruptedException;

  /**
   * The header of the login at hand, refreshed first when it is about to expire, but never a new
   * sign-in: null when there is no login. A request without one goes out without credentials, and
   * the server's 401 says how to sign in (its resource metadata and the scope it wants).
   */
  String existing() throws InterruptedException;

  /** The header of the login at hand, without signing in; null when there is none yet. */
  String current();

  /**
   * The server refused {@code rejected} (null: a request sent without credentials) with
   * {@code status} (401, or 403 with {@code insufficient_scope}) and these {@code WWW-Authenticate}
   * values: a new header to try once more (after a refresh or a sign-in), or null when the refusal
   * is final.
   */
  String renew(String rejected, int status, List<String> challenges) throws Unavailable, InterruptedException;
}
