package dev.mcpstdio.serve.auth;

/**
 * The OpenID Connect provider users sign in at ({@code --login-oidc}), and the gateway's client
 * there.
 *
 * @param issuer the provider's issuer, exactly as its ID tokens name it
 * @param clientId the gateway's client at the provider (the ID tokens' audience)
 * @param clientSecret its secret
 */
public record FederationSettings(String issuer, String clientId, String clientSecret) {
  @Override
  public String toString() { // the secret never reaches a log line through a record's toString
    return "FederationSettings[issuer=" + issuer + ", clientId=" + clientId + ", clientSecret=(hidden)]";
  }
}
