package dev.mcpstdio.net;

import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.URI;
import java.util.Locale;

/**
 * Where a connection goes: the origin (scheme, host, port) and the HTTP proxy it goes through, or
 * none. Connections are pooled and reused per route only.
 *
 * @param proxy the proxy's unresolved address, or null for a direct connection
 */
record Http1Route(boolean tls, String host, int port, InetSocketAddress proxy) {

  static Http1Route of(URI uri, Proxy proxy) {
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    boolean tls = switch (scheme) {
      case "https" -> true;
      case "http" -> false;
      default -> throw new IllegalArgumentException("unsupported URI scheme: " + uri.getScheme());
    };
    String host = uri.getHost();
    if (host == null) {
      throw new IllegalArgumentException("URI without a host: " + uri);
    }
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port = uri.getPort() >= 0 ? uri.getPort() : tls ? 443 : 80;
    InetSocketAddress through = proxy == null || proxy.type() == Proxy.Type.DIRECT
        ? null
        : (InetSocketAddress) proxy.address();
    return new Http1Route(tls, host, port, through);
  }

  // equals and hashCode written out: a record's own go through an invokedynamic (ObjectMethods)
  // whose method handles are slow until compiled, and the pool compares routes on every request.
  @Override
  public boolean equals(Object o) {
    return o instanceof Http1Route r && tls == r.tls && port == r.port && host.equals(r.host)
        && java.util.Objects.equals(proxy, r.proxy);
  }

  @Override
  public int hashCode() {
    return (host.hashCode() * 31 + port) * 31 + (tls ? 1 : 0) + (proxy == null ? 0 : proxy.hashCode());
  }

  /** {@code host:port} always (a CONNECT request's target). */
  String authority() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }

  /** Whether requests name the absolute URI (plain HTTP through a proxy) rather than the path. */
  boolean absoluteForm() {
    return proxy != null && !tls;
  }
}
