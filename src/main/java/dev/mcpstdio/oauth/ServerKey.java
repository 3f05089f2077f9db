package dev.mcpstdio.oauth;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * The key a server's login is stored under: its URL normalised so that spellings of one server
 * share a login and different servers never do. Scheme and host are lower-cased, userinfo is
 * dropped (it is a credential, and not part of the server's identity), a default port is folded
 * away, a trailing slash is trimmed, the query is kept (two queries can be two servers), the
 * fragment is dropped, and an IPv6 host keeps its brackets. A URL that does not parse is its own
 * key, verbatim.
 */
public final class ServerKey {

  private ServerKey() {}

  public static String of(String url) {
    URI uri;
    try {
      uri = new URI(url.strip());
    } catch (URISyntaxException e) {
      return url;
    }
    if (uri.getScheme() == null || uri.getHost() == null) {
      return url;
    }
    String path = Discovery.trimTrailingSlash(uri.getRawPath() == null ? "" : uri.getRawPath());
    String query = uri.getRawQuery();
    return origin(uri) + path + (query == null ? "" : "?" + query);
  }

  /**
   * {@code scheme://host[:port]} of a URL with a scheme and a host: lower case, userinfo dropped,
   * a default port folded away, an IPv6 host in brackets.
   */
  static String origin(URI uri) {
    String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
    String host = uri.getHost().toLowerCase(Locale.ROOT);
    if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]";
    }
    int port = uri.getPort();
    boolean defaultPort = port == -1 || (scheme.equals("https") && port == 443) || (scheme.equals("http") && port == 80);
    return scheme + "://" + host + (defaultPort ? "" : ":" + port);
  }
}
