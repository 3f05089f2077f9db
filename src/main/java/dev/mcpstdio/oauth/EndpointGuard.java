package dev.mcpstdio.oauth;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The checks every URL an OAuth server or a resource's metadata hands the client must pass before
 * the client fetches it or sends a browser to it (SSRF and plaintext guards): http or https only,
 * no userinfo (a credential, or a trick to disguise the host), a host and a valid port, and plain
 * http only to a loopback host. Private-network https is allowed on purpose: the trust anchor is
 * the server URL the operator chose, and discovery requests carry no credentials and follow no
 * redirects.
 */
public final class EndpointGuard {

  private EndpointGuard() {}

  /** Why {@code url} may not be used, or null when it may. */
  public static String refusal(String url) {
    if (url == null || url.isBlank()) {
      return "no URL";
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return "not a URL";
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      return "not http or https";
    }
    if (uri.getRawUserInfo() != null || (uri.getRawAuthority() != null && uri.getRawAuthority().contains("@"))) {
      return "carries userinfo";
    }
    if (uri.getHost() == null) {
      return "no host (or a malformed port)";
    }
    if (uri.getPort() > 65535) {
      return "a port out of range";
    }
    if (scheme.equals("http") && !isLoopback(uri.getHost())) {
      return "plain http to a host that is not loopback";
    }
    return null;
  }

  /**
   * Loopback by its name, without a DNS look-up: {@code localhost} (with or without the trailing
   * dot, any case), every address of 127.0.0.0/8 in dotted-quad form, and {@code ::1} in any textual
   * IPv6 form (including the IPv4-mapped {@code ::ffff:127.x.y.z}).
   */
  public static boolean isLoopback(String host) {
    String h = host.toLowerCase(Locale.ROOT);
    if (h.startsWith("[") && h.endsWith("]")) {
      h = h.substring(1, h.length() - 1);
    }
    if (h.equals("localhost") || h.equals("localhost.")) {
      return true;
    }
    if (h.contains(":")) {
      return isIpv6Loopback(h);
    }
    return isIpv4Loopback(h);
  }

  private static boolean isIpv4Loopback(String h) {
    String[] parts = h.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String p : parts) {
      if (p.isEmpty() || p.length() > 3 || !p.chars().allMatch(Character::isDigit) || Integer.parseInt(p) > 255) {
        return false;
      }
    }
    return parts[0].equals("127"); // "0127" could be octal to someone: not counted
  }

  private static boolean isIpv6Loopback(String h) {
    int zone = h.indexOf('%');
    if (zone >= 0) {
      return false; // a zone index names a link, never loopback
    }
    int lastColon = h.lastIndexOf(':');
    String tail = h.substring(lastColon + 1);
    if (tail.contains(".")) { // ::ffff:127.0.0.1
      return isIpv4Loopback(tail) && expand(h.substring(0, lastColon + 1) + "0:0").equals("0000:0000:0000:0000:0000:ffff:0000:0000");
    }
    return expand(h).equals("0000:0000:0000:0000:0000:0000:0000:0001");
  }

  /** The eight groups of an IPv6 address, zero-padded; "" when it is not one. */
  private static String expand(String address) {
    String[] halves = address.split("::", -1);
    if (halves.length > 2) {
      return "";
    }
    String[] left = halves[0].isEmpty() ? new String[0] : halves[0].split(":", -1);
    String[] right = halves.length == 2 && !halves[1].isEmpty() ? halves[1].split(":", -1) : new String[0];
    int missing = 8 - left.length - right.length;
    if ((halves.length == 1 && missing != 0) || (halves.length == 2 && missing < 1)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    for (String g : left) {
      if (!appendGroup(out, g)) {
        return "";
      }
    }
    for (int i = 0; i < (halves.length == 2 ? missing : 0); i++) {
      appendGroup(out, "0");
    }
    for (String g : right) {
      if (!appendGroup(out, g)) {
        return "";
      }
    }
    return out.toString();
  }

  private static boolean appendGroup(StringBuilder out, String group) {
    if (group.isEmpty() || group.length() > 4 || !group.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
      return false;
    }
    if (!out.isEmpty()) {
      out.append(':');
    }
    out.append("0".repeat(4 - group.length())).append(group);
    return true;
  }
}
