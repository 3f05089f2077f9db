package dev.mcpstdio.serve.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * Client ids, codes and tokens: 32 random bytes, base64url without padding (43 characters; a code
 * and a refresh token are prefixed with their family's id and a dot). The
 * stores keep only each secret's SHA-256 ({@link #key}), so a store (or a token-store file) that
 * leaks gives nobody a usable code or token.
 */
final class OpaqueTokens {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Base64.Encoder URL = Base64.getUrlEncoder().withoutPadding();

  private OpaqueTokens() {}

  static String fresh() {
    return random(32);
  }

  /** A grant family's id: 16 random bytes (22 characters), carried in its code and refresh tokens. */
  static String family() {
    return random(16);
  }

  private static String random(int bytes) {
    byte[] b = new byte[bytes];
    RANDOM.nextBytes(b);
    return URL.encodeToString(b);
  }

  /** The store key of a secret: base64url(SHA-256(secret)). */
  static String key(String secret) {
    try {
      return URL.encodeToString(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }
}
