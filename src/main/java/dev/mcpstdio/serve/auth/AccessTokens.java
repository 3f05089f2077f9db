package dev.mcpstdio.serve.auth;

import java.util.List;

/**
 * Whoever vouches for the access tokens the MCP endpoint takes besides the static bearer: the
 * embedded authorization server ({@link AuthorizationEndpoints}) or an external identity provider
 * ({@link ExternalTokens}). One at a time: the protected-resource document names one
 * authorization server.
 */
public interface AccessTokens {

  /** Checks {@code token} for {@code resource} (this endpoint's URL, RFC 8707). */
  TokenVerdict verify(String token, String resource) throws InterruptedException;

  /** The scopes a token must carry (the protected-resource document's {@code scopes_supported}); empty for none. */
  List<String> requiredScopes();
}
