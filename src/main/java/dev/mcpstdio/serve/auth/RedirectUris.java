package dev.mcpstdio.serve.auth;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * Which redirect URIs a client may register and how a presented one matches a registered one.
 * Registrable: a loopback URI as RFC 8252 section 7.3 describes it ({@code http://127.0.0.1},
 * {@code http://[::1]} or {@code http://localhost}, any port, a path, no query, fragment or user
 * information, no {@code .} or {@code ..} segments), or one of the operator's exact {@code --allow-redirect-uri} entries (a hosted
 * client's https callback). Matching is exact, byte for byte, except that a loopback URI's port
 * may differ (the client picks a free port per login, RFC 8252 section 7.3).
 */
public final class RedirectUris {

  private static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "[::1]", "localhost");

  /** Longest URI accepted; a longer one is refused rather than stored. */
  static final int MAX_LENGTH = 2048;

  private RedirectUris() {}

  /** Whether {@code uri} may be registered, given the operator's exact allow-list. */
  public static boolean registrable(String uri, Set<String> allowed) {
    if (uri == null || uri.length() > MAX_LENGTH || hasControlOrSpace(uri)) {
      return false;
    }
    return allowed.contains(uri) || loopback(uri) != null;
  }

  /** Whether {@code presented} is {@code registered}, up to a loopback URI's port. */
  public static boolean matches(String registered, String presented) {
    if (presented == null || registered == null) {
      return false;
    }
    if (registered.equals(presented)) {
      return true;
    }
    String a = loopback(registered);
    return a != null && a.equals(loopback(presented));
  }

  /** The URI without its port when it is a well-formed loopback redirect URI; else null. */
  private static String loopback(String uri) {
    if (!uri.startsWith("http://") || hasControlOrSpace(uri)) {
      return null;
    }
    URI u;
    try {
      u = new URI(uri);
    } catch (URISyntaxException e) {
      return null;
    }
    String host = u.getHost();
    if (host == null || u.getRawUserInfo() != null || u.getRawQuery() != null || u.getRawFragment() != null
        || !LOOPBACK_HOSTS.contains(host.toLowerCase(Locale.ROOT)) || !host.equals(host.toLowerCase(Locale.ROOT))) {
      return null;
    }
    String path = u.getRawPath() == null ? "" : u.getRawPath();
    for (String segment : path.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..")) {
        return null; // a browser would resolve it: the URI redirected to would not be the one registered
      }
    }
    // the authority must be exactly host[:port]: nothing a lenient parser reads differently
    String authority = u.getRawAuthority();
    String port = u.getPort() < 0 ? "" : ":" + u.getPort();
    if (authority == null || !authority.equals(host + port) || uri.indexOf('\\') >= 0) {
      return null;
    }
    return "http://" + host + path;
  }

  private static boolean hasControlOrSpace(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c <= 0x20 || c == 0x7F) {
        return true;
      }
    }
    return false;
  }
}
