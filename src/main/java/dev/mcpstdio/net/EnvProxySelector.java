package dev.mcpstdio.net;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.SocketAddress;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Proxy selection from the conventional environment variables: {@code HTTPS_PROXY} for https
 * URLs, {@code HTTP_PROXY} for http URLs (lower-case spellings too; upper case wins) and {@code
 * NO_PROXY}, a comma-separated list of host names, domain suffixes ({@code example.com} or {@code
 * .example.com} both match subdomains), IP addresses, optional {@code :port}s, or {@code *}.
 *
 * <p>Loopback destinations never use a proxy, as with the JDK's own default. Credentials in the
 * proxy URL ({@code http://user:pass@proxy:3128}) are offered for proxy authentication only.
 */
public final class EnvProxySelector extends ProxySelector {

  private final ProxyEntry http;
  private final ProxyEntry https;
  private final List<String> noProxy;

  /** A configured proxy: its address and optional credentials. */
  record ProxyEntry(String host, int port, String user, String password) {
    Proxy proxy() {
      return new Proxy(Proxy.Type.HTTP, InetSocketAddress.createUnresolved(host, port));
    }
  }

  private EnvProxySelector(ProxyEntry http, ProxyEntry https, List<String> noProxy) {
    this.http = http;
    this.https = https;
    this.noProxy = noProxy;
  }

  /**
   * Builds the selector from an environment map, or returns null when no proxy is configured.
   *
   * @throws IllegalArgumentException when a proxy variable holds an unusable URL
   */
  public static EnvProxySelector fromEnvironment(Map<String, String> env) {
    ProxyEntry http = parse(env, "HTTP_PROXY");
    ProxyEntry https = parse(env, "HTTPS_PROXY");
    if (http == null && https == null) {
      return null;
    }
    List<String> noProxy = new ArrayList<>();
    String list = variable(env, "NO_PROXY");
    if (list != null) {
      for (String entry : list.split(",")) {
        String e = entry.trim().toLowerCase(Locale.ROOT);
        if (!e.isEmpty()) {
          noProxy.add(e);
        }
      }
    }
    return new EnvProxySelector(http, https, List.copyOf(noProxy));
  }

  private static String variable(Map<String, String> env, String name) {
    String value = env.get(name);
    if (value == null || value.isBlank()) {
      value = env.get(name.toLowerCase(Locale.ROOT));
    }
    return value == null || value.isBlank() ? null : value.trim();
  }

  private static ProxyEntry parse(Map<String, String> env, String name) {
    String value = variable(env, name);
    if (value == null) {
      return null;
    }
    URI uri;
    try {
      uri = URI.create(value.contains("://") ? value : "http://" + value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(name + " is not a valid proxy URL");
    }
    if (uri.getHost() == null) {
      throw new IllegalArgumentException(name + " is not a valid proxy URL: no host");
    }
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http")) {
      throw new IllegalArgumentException(
          name + " uses " + scheme + "://; only http:// proxies are supported");
    }
    int port = uri.getPort() > 0 ? uri.getPort() : 80;
    String user = null;
    String password = null;
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
      password = colon < 0 ? "" : decode(userInfo.substring(colon + 1));
    }
    return new ProxyEntry(uri.getHost(), port, user, password);
  }

  /** Percent-decoding of URL userinfo, where '+' is a literal plus (not a form-encoded space). */
  private static String decode(String s) {
    return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  @Override
  public List<Proxy> select(URI uri) {
    ProxyEntry entry = "https".equalsIgnoreCase(uri.getScheme()) ? https : http;
    if (entry == null || uri.getHost() == null || bypass(uri.getHost(), effectivePort(uri))) {
      return List.of(Proxy.NO_PROXY);
    }
    return List.of(entry.proxy());
  }

  /** The URI's port, or its scheme's default port so that NO_PROXY {@code host:443} matches. */
  private static int effectivePort(URI uri) {
    if (uri.getPort() >= 0) {
      return uri.getPort();
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    return switch (scheme) {
      case "https", "wss" -> 443;
      case "http", "ws" -> 80;
      default -> -1;
    };
  }

  boolean bypass(String rawHost, int port) {
    String host = rawHost.toLowerCase(Locale.ROOT);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (Hosts.isLoopback(host)) {
      return true;
    }
    for (String entry : noProxy) {
      if (entry.equals("*")) {
        return true;
      }
      String pattern = entry;
      int entryPort = -1;
      int colon = pattern.lastIndexOf(':');
      if (colon > 0 && pattern.indexOf(':') == colon && !pattern.endsWith("]")) {
        try {
          entryPort = Integer.parseInt(pattern.substring(colon + 1));
          pattern = pattern.substring(0, colon);
        } catch (NumberFormatException ignored) {
          // not a port
        }
      }
      if (entryPort > 0 && entryPort != port) {
        continue;
      }
      if (pattern.startsWith("[") && pattern.endsWith("]")) {
        pattern = pattern.substring(1, pattern.length() - 1);
      }
      if (pattern.startsWith("*.")) {
        pattern = pattern.substring(1);
      }
      if (pattern.startsWith(".")) {
        if (host.endsWith(pattern) || host.equals(pattern.substring(1))) {
          return true;
        }
      } else if (host.equals(pattern) || host.endsWith("." + pattern)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public void connectFailed(URI uri, SocketAddress address, IOException failure) {
    // The HTTP client reports the failure to the caller; there is no alternative proxy to try.
  }

  /**
   * The {@code Proxy-Authorization} value (Basic) for {@code proxy}, one this selector chose, or
   * null when its URL carries no credentials. Offered to that proxy only, never to an origin.
   */
  String proxyAuthorization(Proxy proxy) {
    if (!(proxy.address() instanceof InetSocketAddress address)) {
      return null;
    }
    for (ProxyEntry entry : new ProxyEntry[] {https, http}) {
      if (entry != null
          && entry.user() != null
          && entry.host().equalsIgnoreCase(address.getHostString())
          && entry.port() == address.getPort()) {
        String pair = entry.user() + ":" + entry.password();
        return "Basic " + java.util.Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
      }
    }
    return null;
  }

  /** The proxies in use, without credentials, for diagnostics. */
  public String describe() {
    return "http=" + (http == null ? "none" : http.host() + ":" + http.port())
        + " https=" + (https == null ? "none" : https.host() + ":" + https.port())
        + (noProxy.isEmpty() ? "" : " no_proxy=" + String.join(",", noProxy));
  }
}
