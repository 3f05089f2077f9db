package dev.mcpstdio.serve;

import dev.mcpstdio.net.Hosts;
import java.net.URI;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * DNS-rebinding protection: the {@code Host} and {@code Origin} checks every request passes before
 * anything else is looked at.
 *
 * <p>A page on {@code evil.example} can make a browser send requests to {@code 127.0.0.1:8080} by
 * rebinding its own name to that address; the browser then sends {@code Host: evil.example} and
 * {@code Origin: http://evil.example}. So, on a loopback bind, only loopback {@code Host} values
 * (and the public URL's host) are served; and on any bind, a request that carries an
 * {@code Origin} is served only when that origin is loopback, the public URL's origin, or listed
 * with {@code --allow-origin}. Requests without {@code Origin} (every non-browser client) are not
 * affected by the second rule.
 */
final class HostGuard {

  private final boolean checkHost;
  private final String publicHost; // lower case, without port; null when no public URL
  private final Set<String> origins = new HashSet<>(); // lower case, scheme://host[:port]

  HostGuard(String bindHost, URI publicUrl, List<String> allowedOrigins) {
    this.checkHost = isLoopback(bindHost);
    this.publicHost = publicUrl == null ? null : publicUrl.getHost().toLowerCase(Locale.ROOT);
    if (publicUrl != null) {
      origins.add(origin(publicUrl));
    }
    for (String allowed : allowedOrigins) {
      origins.add(stripSlash(allowed.toLowerCase(Locale.ROOT)));
    }
  }

  /** The refusal of a request whose {@code Host} is not this gateway's. */
  static final String HOST_REFUSED = "Host header not allowed";

  /** The refusal of a request from a page of an origin not allowed. */
  static final String ORIGIN_REFUSED = "Origin not allowed";

  /** Null when the request may proceed, else why it may not ({@link #HOST_REFUSED} or {@link #ORIGIN_REFUSED}: for a 403 and the log). */
  String refusal(String hostHeader, String originHeader) {
    if (checkHost && hostHeader != null) {
      String name = hostName(hostHeader);
      if (name == null || !(isLoopback(name) || name.equals(publicHost))) {
        return HOST_REFUSED;
      }
    }
    if (originHeader != null && !originAllowed(originHeader)) {
      return ORIGIN_REFUSED;
    }
    return null;
  }

  private boolean originAllowed(String header) {
    String value = stripSlash(header.trim().toLowerCase(Locale.ROOT));
    if (origins.contains(value)) {
      return true;
    }
    URI uri;
    try {
      uri = new URI(value);
    } catch (java.net.URISyntaxException e) {
      return false;
    }
    String scheme = uri.getScheme();
    return ("http".equals(scheme) || "https".equals(scheme)) && uri.getHost() != null && uri.getRawPath().isEmpty()
        && uri.getRawUserInfo() == null && isLoopback(uri.getHost());
  }

  /** The host part of a Host header value (port and IPv6 brackets removed), or null if malformed. */
  static String hostName(String header) {
    String value = header.trim().toLowerCase(Locale.ROOT);
    if (value.isEmpty()) {
      return null;
    }
    String name;
    String rest;
    if (value.startsWith("[")) {
      int close = value.indexOf(']');
      if (close < 0) {
        return null;
      }
      name = value.substring(1, close);
      rest = value.substring(close + 1);
    } else {
      int colon = value.indexOf(':');
      name = colon < 0 ? value : value.substring(0, colon);
      rest = colon < 0 ? "" : value.substring(colon);
    }
    if (!rest.isEmpty() && !rest.matches(":[0-9]{1,5}")) {
      return null;
    }
    if (name.endsWith(".")) {
      name = name.substring(0, name.length() - 1); // "localhost." is localhost
    }
    return name.matches("[a-z0-9.:-]+") ? name : null;
  }

  /** localhost, *.localhost, 127.0.0.0/8 and ::1 (the relay's definition: one rule for both). */
  static boolean isLoopback(String host) {
    return Hosts.isLoopback(host);
  }

  static String origin(URI url) {
    String scheme = url.getScheme().toLowerCase(Locale.ROOT);
    int port = url.getPort();
    boolean defaultPort = port < 0 || (scheme.equals("http") && port == 80) || (scheme.equals("https") && port == 443);
    String host = url.getHost().toLowerCase(Locale.ROOT);
    return scheme + "://" + host + (defaultPort ? "" : ":" + port);
  }

  private static String stripSlash(String value) {
    return value.endsWith("/") ? value.substring(0, value.length() - 1) : value;
  }
}
