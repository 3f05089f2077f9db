package dev.mcpstdio.serve;

import java.util.Locale;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;

/**
 * The origin ({@code scheme://host[:port]}) a client used to reach this gateway, for URLs the
 * gateway reflects back (the protected-resource metadata address).
 *
 * <p>{@code --public-url} wins. Otherwise, with {@code --trust-proxy-headers} (a proxy in front
 * sets them, and replaces what a client sent), the first {@code X-Forwarded-Proto} value (http or
 * https, else http) and the first {@code X-Forwarded-Host} value are used; without that flag both
 * are ignored (any client could send them) and the origin is http and the {@code Host} header, else
 * the bound address. The host is reduced to the characters a host and port can hold
 * ({@code [A-Za-z0-9.:-]} and IPv6 brackets): quotes, CR, LF and spaces would otherwise let a
 * client inject into a header or a JSON document.
 */
final class Origins {

  private Origins() {}

  static String effective(Request request, ServeConfig config) {
    if (config.publicUrl() != null) {
      return HostGuard.origin(config.publicUrl());
    }
    boolean proxied = config.trustProxyHeaders();
    String proto = proxied ? first(request.getHeaders().get("X-Forwarded-Proto")) : null;
    String scheme = "https".equalsIgnoreCase(proto) ? "https" : "http";
    String host = proxied ? sanitise(first(request.getHeaders().get("X-Forwarded-Host"))) : null;
    if (host == null) {
      host = sanitise(request.getHeaders().get(HttpHeader.HOST));
    }
    if (host == null) {
      host = Request.getLocalAddr(request) + ":" + Request.getLocalPort(request);
    }
    return scheme + "://" + host;
  }

  private static String first(String value) {
    if (value == null) {
      return null;
    }
    int comma = value.indexOf(',');
    return (comma < 0 ? value : value.substring(0, comma)).trim();
  }

  /** Only host-and-port characters survive; null when nothing usable is left. */
  static String sanitise(String host) {
    if (host == null) {
      return null;
    }
    String clean = host.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9.:\\[\\]-]", "");
    return clean.isEmpty() || clean.length() > 255 ? null : clean;
  }
}
