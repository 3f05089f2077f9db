package dev.mcpstdio.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * The value encoding of the {@code Mcp-Name} and {@code Mcp-Param-*} headers (spec.md 5.8;
 * mcp-stdio.md 2.11, "Mcp-Name encoding").
 *
 * <p>A value goes verbatim when it is <em>plain</em>: only visible ASCII and space (0x20..0x7E), no
 * leading or trailing space, and not shaped like the sentinel. Anything else (non-ASCII, a control
 * character, tab included, leading or trailing whitespace, a value that itself looks like
 * {@code =?...?=}) is sent as {@code =?base64?<Base64(UTF-8)>?=}, the markers lower-case. So every
 * value {@link #encodeName} or {@link #encodeParam} returns consists of visible ASCII and spaces
 * only, and {@link #decode} gives back the exact string.
 *
 * <p>Two deliberate choices, both on the safe side of the rule: a tab anywhere is encoded (the
 * specification's "control characters"; the inventory's Mcp-Name line would let an inner tab pass,
 * its Mcp-Param line encodes every tab, and the conformance suite expects a tab encoded); and any
 * value beginning {@code =?} and ending {@code ?=} counts as sentinel-shaped, whatever sits between,
 * so no receiver can mistake a plain value for an encoded one. An empty {@code Mcp-Param-*} value is
 * encoded (an empty header is easily lost on the way); an empty {@code Mcp-Name} goes verbatim, as
 * the inventory has it.
 *
 * <p>A Java string with a lone surrogate has no UTF-8 form: it is encoded with the JDK's
 * replacement ({@code ?}) in its place, so the server sees a value that differs from the body and
 * answers -32020, which reaches the host as that request's error.
 */
public final class McpName {

  /** Opening marker of an encoded value (lower-case, compared case-sensitively). */
  public static final String SENTINEL_PREFIX = "=?base64?";

  /** Closing marker of an encoded value. */
  public static final String SENTINEL_SUFFIX = "?=";

  private McpName() {}

  /** The {@code Mcp-Name} header value for {@code value} ({@code params.name} or {@code params.uri}). */
  public static String encodeName(String value) {
    return isPlain(value) ? value : sentinel(value);
  }

  /** The {@code Mcp-Param-*} header value for a string argument: as {@link #encodeName}, and "" encoded. */
  public static String encodeParam(String value) {
    return !value.isEmpty() && isPlain(value) ? value : sentinel(value);
  }

  /**
   * True when {@code value} may be sent verbatim: visible ASCII and spaces only, no space at either
   * end, not sentinel-shaped. The empty string is plain.
   */
  public static boolean isPlain(String value) {
    int n = value.length();
    for (int i = 0; i < n; i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7E) {
        return false;
      }
    }
    if (n > 0 && (value.charAt(0) == ' ' || value.charAt(n - 1) == ' ')) {
      return false;
    }
    return !(value.startsWith("=?") && value.endsWith("?="));
  }

  /**
   * The value a received {@code Mcp-Name} or {@code Mcp-Param-*} header stands for, or empty when
   * it is malformed (the caller answers -32020: a mismatch). Never throws.
   *
   * <p>A value that begins with {@link #SENTINEL_PREFIX} and ends with {@link #SENTINEL_SUFFIX} is
   * decoded strictly: the payload must be canonical standard Base64 (alphabet {@code A-Za-z0-9+/},
   * padding present, unused bits zero: exactly what encoding its bytes gives) of well-formed UTF-8.
   * Anything else is a literal, taken as it is when it holds only field-value characters (visible
   * ASCII, space, tab); a literal with other characters (raw non-ASCII, other controls) is malformed.
   */
  public static Optional<String> decode(String headerValue) {
    if (headerValue == null) {
      return Optional.empty();
    }
    int n = headerValue.length();
    if (n >= SENTINEL_PREFIX.length() + SENTINEL_SUFFIX.length()
        && headerValue.startsWith(SENTINEL_PREFIX)
        && headerValue.endsWith(SENTINEL_SUFFIX)) {
      return decodePayload(headerValue.substring(SENTINEL_PREFIX.length(), n - SENTINEL_SUFFIX.length()));
    }
    for (int i = 0; i < n; i++) {
      char c = headerValue.charAt(i);
      if ((c < 0x20 && c != '\t') || c > 0x7E) {
        return Optional.empty();
      }
    }
    return Optional.of(headerValue);
  }

  private static Optional<String> decodePayload(String payload) {
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(payload);
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
    // The JDK's decoder accepts missing padding and ignores unused bits: re-encoding tells a
    // canonical payload from those.
    if (!Base64.getEncoder().encodeToString(bytes).equals(payload)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          StandardCharsets.UTF_8
              .newDecoder()
              .onMalformedInput(CodingErrorAction.REPORT)
              .onUnmappableCharacter(CodingErrorAction.REPORT)
              .decode(ByteBuffer.wrap(bytes))
              .toString());
    } catch (CharacterCodingException e) {
      return Optional.empty();
    }
  }

  private static String sentinel(String value) {
    return SENTINEL_PREFIX
        + Base64.getEncoder().encodeToString(value.getBytes(StandardCharsets.UTF_8))
        + SENTINEL_SUFFIX;
  }
}
