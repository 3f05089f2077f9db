package dev.mcpstdio.oauth;

import java.time.Instant;

/**
 * One server's login as the token store keeps it: the tokens, the client identity they were
 * issued to, and the authorization server that issued both (a client registered with one server
 * is never presented to another).
 *
 * <p>{@link #toString()} names no secret: records end up in debug output more easily than one
 * expects.
 *
 * @param accessToken the bearer token; never null
 * @param expiresAt when the access token expires, or null when the server did not say
 * @param clientSecretExpiresAt when a registered client's secret expires, or null for never
 * @param issuer the authorization server that issued the tokens and the client registration
 * @param noResourceIndicator the login was made without RFC 8707 resource indicators
 * @param deviceClient the client was registered for the device flow (it has no redirect URI, so
 *     a browser sign-in must not reuse it); false for one registered with a redirect URI, or not
 *     registered by this tool
 */
public record TokenRecord(
    String accessToken,
    String tokenType,
    Instant expiresAt,
    String refreshToken,
    String scope,
    String clientId,
    String clientSecret,
    Instant clientSecretExpiresAt,
    String tokenEndpoint,
    String authorizationEndpoint,
    String registrationEndpoint,
    String issuer,
    String tokenEndpointAuthMethod,
    boolean noResourceIndicator,
    Boolean issParameterSupported,
    String idToken,
    String resource,
    boolean deviceClient) {

  public TokenRecord {
    if (accessToken == null || accessToken.isEmpty()) {
      throw new IllegalArgumentException("a login needs an access token");
    }
  }

  /** Whether the access token expires within {@code leewaySeconds} of {@code now} (false without an expiry). */
  public boolean expiresWithin(Instant now, long leewaySeconds) {
    return expiresAt != null && !expiresAt.isAfter(now.plusSeconds(leewaySeconds));
  }

  @Override
  public String toString() {
    return "TokenRecord[issuer=" + issuer + ", clientId=" + clientId + ", scope=" + scope + ", expiresAt=" + expiresAt
        + ", refreshable=" + (refreshToken != null) + "]";
  }
}
