package dev.mcpstdio.oauth;

import java.nio.file.Path;
import java.time.Duration;

/**
 * How the relay signs in to its server with OAuth ({@code --oauth} and its companions; see
 * docs/reference.md). The client secret is held here and nowhere printed: {@link #toString()}
 * only says whether there is one.
 *
 * @param clientId a pre-registered client, or null
 * @param clientSecret that client's secret, or null for a public client
 * @param clientMetadataUrl a client ID metadata document URL (CIMD), or null
 * @param scope the scope to ask for, or null for the server's choice
 * @param resourceIndicator send RFC 8707 {@code resource} (off: {@code --no-resource-indicator})
 * @param resource the resource to name instead of the server URL, or null
 * @param refreshLeeway refresh this long before the access token expires
 * @param flowTimeout how long a sign-in may take
 * @param clientCredentials sign in as the client itself (machine to machine), no user
 * @param device sign in with the device flow (RFC 8628) even where a browser could be opened
 * @param useIdToken send the OpenID Connect ID token as the bearer token (servers that want it)
 * @param proactiveRefresh refresh in the background before the token expires (off:
 *     {@code --no-proactive-refresh}; a token is then refreshed when a request finds it expiring)
 * @param tokenStore the token store file, or null for the default place
 */
public record OAuthSettings(
    String clientId,
    String clientSecret,
    String clientMetadataUrl,
    String scope,
    boolean resourceIndicator,
    String resource,
    Duration refreshLeeway,
    Duration flowTimeout,
    boolean clientCredentials,
    boolean device,
    boolean useIdToken,
    boolean proactiveRefresh,
    Path tokenStore) {

  public static final Duration DEFAULT_REFRESH_LEEWAY = Duration.ofSeconds(60);

  /**
   * The RFC 8707 resource to send for {@code serverUrl}: the override, else the server's key
   * without its query (RFC 8707 §2: no query; it may hold an API key the authorization server must
   * not see); null when disabled.
   */
  public String resourceFor(String serverUrl) {
    if (!resourceIndicator) {
      return null;
    }
    if (resource != null) {
      return resource;
    }
    String key = ServerKey.of(serverUrl);
    int query = key.indexOf('?');
    return query < 0 ? key : key.substring(0, query);
  }
  public static final Duration DEFAULT_FLOW_TIMEOUT = Duration.ofSeconds(120);

  @Override
  public String toString() {
    return "OAuthSettings[clientId=" + clientId + ", clientSecret=" + (clientSecret == null ? "none" : "<redacted>")
        + ", clientMetadataUrl=" + clientMetadataUrl + ", scope=" + scope + ", resourceIndicator=" + resourceIndicator
        + ", resource=" + resource + ", refreshLeeway=" + refreshLeeway + ", flowTimeout=" + flowTimeout
        + ", clientCredentials=" + clientCredentials + ", device=" + device + ", useIdToken=" + useIdToken
        + ", proactiveRefresh=" + proactiveRefresh + ", tokenStore=" + tokenStore + "]";
  }
}
