package dev.mcpstdio.oauth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * A PKCE pair (RFC 7636, S256 only) and the flow's {@code state}, both fresh per authorization
 * and kept in memory only: never logged, never stored.
 *
 * @param verifier 64 random bytes, base64url without padding (always 86 characters)
 * @param challenge base64url(SHA-256(verifier)), unpadded
 */
public record Pkce(String verifier, String challenge) {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

  public static Pkce create() {
    String verifier = URL.encodeToString(random(64));
    return new Pkce(verifier, challengeOf(verifier));
  }

  /** base64url(SHA-256(verifier)), unpadded: the S256 challenge of {@code verifier} (RFC 7636 section 4.2). */
  public static String challengeOf(String verifier) {
    try {
      return URL.encodeToString(MessageDigest.getInstance("SHA-256").digest(verifier.getBytes(StandardCharsets.US_ASCII)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }

  /** A fresh {@code state}: 32 random bytes, base64url. */
  public static String newState() {
    return URL.encodeToString(random(32));
  }

  /** Compares a returned {@code state} with ours in constant time; false for null. */
  public static boolean sameState(String expected, String received) {
    return received != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8),
        received.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] random(int n) {
    byte[] b = new byte[n];
    RANDOM.nextBytes(b);
    return b;
  }

  @Override
  public String toString() {
    return "Pkce[S256]"; // the verifier is a secret until the code is redeemed
  }
}
