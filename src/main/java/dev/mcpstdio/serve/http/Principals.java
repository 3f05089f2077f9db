package dev.mcpstdio.serve.http;

import org.eclipse.jetty.server.Request;

/**
 * Who sent a request, as the authentication gate decided: the owner of every 2025-era session it
 * opens (no other principal ever sees it) and the key of the 2026 era's pool (one principal's
 * requests never reach another's child). The gateway's own principals start with a NUL, which no
 * user name from an identity provider can hold, so they never collide with one.
 */
public final class Principals {

  /** The request attribute the authentication gate sets to the principal's name. */
  public static final String ATTRIBUTE = "dev.mcpstdio.serve.principal";

  /** Everyone, when the endpoint needs no authentication. */
  public static final String OPEN = "\0open";

  /** Whoever holds the static bearer token ({@code --auth-token}): one principal for all. */
  public static final String STATIC_TOKEN = "\0static-token";

  private Principals() {}

  /**
   * The principal the gate set on {@code request}. Fails closed: a request no gate let through (a
   * route added without one) is a bug, answered 500 by Jetty, never served as everyone's.
   */
  public static String of(Request request) {
    if (request.getAttribute(ATTRIBUTE) instanceof String p) {
      return p;
    }
    throw new IllegalStateException("no authentication gate named this request's principal");
  }

  /**
   * Whether {@code name} may name a signed-in user: 1 to 256 characters without control
   * characters, so that it cannot break a log line nor pass for one of the gateway's own
   * principals (which start with NUL).
   */
  public static boolean isUserName(String name) {
    return name != null && !name.isBlank() && name.length() <= 256 && name.chars().noneMatch(c -> c < 0x20 || c == 0x7F);
  }

  /**
   * Whether {@code principal} is a signed-in user (of the embedded authorization server or an
   * identity provider) rather than one of the gateway's own principals, which stand for everyone
   * who holds a shared secret, or for everyone.
   */
  public static boolean isUser(String principal) {
    return !principal.isEmpty() && principal.charAt(0) != '\0';
  }
}
