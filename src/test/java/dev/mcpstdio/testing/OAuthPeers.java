package dev.mcpstdio.testing;

import dev.mcpstdio.oauth.Browser;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;

/**
 * What OAuth tests play: the user who approves in the browser, the authorization server's
 * metadata, and the reading of form bodies.
 */
public final class OAuthPeers {

  private OAuthPeers() {}

  /**
   * A browser whose user approves: it follows the authorization server's redirects to the flow's
   * loopback listener, in the background, as a real browser would while the flow waits.
   */
  public static Browser approving() {
    HttpClient follow = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build();
    return url -> {
      Thread.ofVirtual().start(() -> {
        try {
          follow.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (Exception ignored) {
          // the flow's own timeout reports a sign-in that never came back
        }
      });
      return true;
    };
  }

  /** {@code a=1&b=2} (a form body or a query), decoded; the first of repeated keys wins. */
  public static Map<String, String> form(String raw) {
    return dev.mcpstdio.oauth.FormEncoding.decode(raw);
  }

  /**
   * The RFC 8414 metadata of an authorization server at {@code base}: its issuer, {@code /authorize}
   * and {@code /token}, PKCE with S256, and further endpoints given as name and path pairs (say
   * {@code "registration_endpoint", "/register"}).
   */
  public static String serverMetadata(String base, String... endpointPaths) {
    StringBuilder json = new StringBuilder("{\"issuer\":\"" + base + "\",\"authorization_endpoint\":\"" + base
        + "/authorize\",\"token_endpoint\":\"" + base + "/token\"");
    for (int k = 0; k + 1 < endpointPaths.length; k += 2) {
      json.append(",\"").append(endpointPaths[k]).append("\":\"").append(base).append(endpointPaths[k + 1]).append('"');
    }
    return json.append(",\"code_challenge_methods_supported\":[\"S256\"]}").toString();
  }
}
