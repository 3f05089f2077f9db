package dev.mcpstdio.serve.auth;

/** What the token endpoint answers; every answer carries {@code Cache-Control: no-store}. */
public sealed interface TokenOutcome {

  /** 200 with the new tokens. {@code scope} is null when the grant has none. */
  record Issued(String accessToken, String refreshToken, long expiresIn, String scope) implements TokenOutcome {
    @Override
    public String toString() {
      return "Issued[expires_in=" + expiresIn + ", scope=" + scope + "]"; // never the tokens
    }
  }

  /** 400 with an RFC 6749 section 5.2 error. */
  record Failed(String error, String description) implements TokenOutcome {}
}
