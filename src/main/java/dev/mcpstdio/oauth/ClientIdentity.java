package dev.mcpstdio.oauth;

import java.time.Instant;

/**
 * Who the client is to one authorization server: its id, its secret if it has one, how it
 * authenticates at the token endpoint, and the issuer it belongs to (a client registered with one
 * server is never presented to another).
 *
 * @param authMethod {@code none}, {@code client_secret_post} or {@code client_secret_basic}
 * @param secretExpiresAt when the secret stops working, or null for never
 */
public record ClientIdentity(String clientId, String clientSecret, Instant secretExpiresAt, String authMethod, String issuer) {

  public static final String NONE = "none";
  public static final String POST = "client_secret_post";
  public static final String BASIC = "client_secret_basic";

  public ClientIdentity {
    if (clientId == null || clientId.isEmpty()) {
      throw new IllegalArgumentException("a client needs an id");
    }
    if (authMethod == null || (clientSecret == null && !authMethod.equals(NONE))) {
      authMethod = clientSecret == null ? NONE : POST;
    }
  }

  /** Whether this identity may be used with {@code issuer} at {@code now} (bound to it, secret not expired). */
  public boolean usableWith(String otherIssuer, Instant now) {
    return issuer != null && issuer.equals(otherIssuer) && (secretExpiresAt == null || secretExpiresAt.isAfter(now));
  }

  @Override
  public String toString() {
    return "ClientIdentity[clientId=" + clientId + ", authMethod=" + authMethod + ", issuer=" + issuer
        + ", secret=" + (clientSecret == null ? "none" : "present") + "]";
  }
}
