package dev.mcpstdio.serve.auth;

/** What the authorization endpoint answers. */
public sealed interface AuthorizeOutcome {

  /** Redirect to the client with this code (and its {@code state} and {@code iss}). */
  record Issued(String code) implements AuthorizeOutcome {
    @Override
    public String toString() {
      return "Issued[code]"; // a secret until redeemed
    }
  }

  /** Redirect to the client with this error (RFC 6749 section 4.1.2.1). */
  record RedirectError(String error, String description) implements AuthorizeOutcome {}

  /**
   * Answer 400 here and never redirect: the client is unknown or the redirect URI is not one it
   * registered, so the redirect could go anywhere (RFC 6749 section 4.1.2.1).
   */
  record Refused(String description) implements AuthorizeOutcome {}
}
