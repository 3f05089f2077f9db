package dev.mcpstdio.net;

import java.util.Locale;

/** Host-name facts that several places must agree on. */
public final class Hosts {

  private Hosts() {}

  /**
   * True for the loopback interface: {@code localhost} and its subdomains, IPv4 127.0.0.0/8 as a
   * literal address (a name such as {@code 127.example.com} is not loopback) and {@code ::1}.
   * Brackets around an IPv6 literal are allowed.
   */
  public static boolean isLoopback(String rawHost) {
    String host = rawHost.toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    return host.equals("localhost")
        || host.endsWith(".localhost")
        || (host.startsWith("127.") && isIpv4Literal(host))
        || host.equals("::1")
        || host.equals("0:0:0:0:0:0:0:1");
  }

  private static boolean isIpv4Literal(String host) {
    String[] parts = host.split("\\.", -1);
    if (parts.length != 4) {
      return false;
    }
    for (String part : parts) {
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)
          || Integer.parseInt(part) > 255) {
        return false;
      }
    }
    return true;
  }
}
