package dev.mcpstdio.serve.auth;

/**
 * What checking one access token found: the gate answers each kind in its own way (401, 403, 503),
 * so none of them can be mistaken for another.
 */
public sealed interface TokenVerdict {

  /** The token is good for this resource: the request is {@code principal}'s (a user name). */
  record Accepted(String principal) implements TokenVerdict {}

  /**
   * The token is not good here (unknown, expired, for another audience, badly signed): 401 with
   * {@code error="invalid_token"}. {@code reason} is for the log, never for the client.
   */
  record Rejected(String reason) implements TokenVerdict {}

  /** The token is good but lacks {@code scope} (space-separated): 403 {@code insufficient_scope} (RFC 6750 section 3.1). */
  record InsufficientScope(String scope) implements TokenVerdict {}

  /** The token could not be checked (the identity provider cannot be reached): 503, the client may retry. */
  record Unavailable(String reason) implements TokenVerdict {}
}
