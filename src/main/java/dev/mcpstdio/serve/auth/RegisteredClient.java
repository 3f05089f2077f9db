package dev.mcpstdio.serve.auth;

import java.util.List;

/**
 * A client registered by dynamic client registration (RFC 7591): a public client (no secret,
 * {@code token_endpoint_auth_method: none}) with the redirect URIs it may use.
 *
 * @param issuedAt epoch seconds
 */
public record RegisteredClient(String clientId, List<String> redirectUris, long issuedAt) {
  public RegisteredClient {
    redirectUris = List.copyOf(redirectUris);
  }
}
