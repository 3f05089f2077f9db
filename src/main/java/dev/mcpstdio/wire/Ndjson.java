package dev.mcpstdio.wire;

/**
 * Framing of one JSON message as one output line.
 *
 * <p>The input must be one well-formed JSON value (callers only frame messages they have parsed).
 * In well-formed JSON a raw CR or LF can only be whitespace between tokens, so each becomes a
 * space: a pretty-printed upstream body still leaves as exactly one line. U+2028 and U+2029 can
 * only occur inside strings, where the escapes {@code \u2028} and {@code \u2029} mean the same
 * thing; they are escaped because JavaScript line readers split on them. The result always ends
 * with a single LF, on every OS.
 */
public final class Ndjson {

  private static final long SPACES = 0x2020202020202020L;

  private Ndjson() {}

  /**
   * True when {@link #frame} would change more than add the LF (the message has raw CR, LF,
   * U+2028 or U+2029), so a writer can otherwise send the bytes as they are and then the LF.
   */
  public static boolean needsRewrite(byte[] json) {
    int i = 0;
    for (; i + 8 <= json.length; i += 8) {
      long w = Swar.word(json, i);
      if ((((w - SPACES) & ~w | w) & Swar.HIGHS) == 0) {
        continue; // no control byte and no non-ASCII byte: the common word, in four operations
      }
      if (Swar.hasByteBelow(w, 0x20) || Swar.hasByte(w, (byte) 0xE2)) {
        // Control bytes include the harmless tab, and E2 leads many characters: look closer.
        for (int k = i; k < i + 8; k++) {
          if (breaksLine(json, k)) {
            return true;
          }
        }
      }
    }
    for (; i < json.length; i++) {
      if (breaksLine(json, i)) {
        return true;
      }
    }
    return false;
  }

  private static boolean breaksLine(byte[] json, int i) {
    return json[i] == '\n' || json[i] == '\r' || isLineSeparator(json, i);
  }

  public static byte[] frame(byte[] json) {
    int extra = 0;
    boolean rewrite = false;
    for (int i = 0; i < json.length; i++) {
      byte b = json[i];
      if (b == '\n' || b == '\r') {
        rewrite = true;
      } else if (isLineSeparator(json, i)) {
        rewrite = true;
        extra += 3; // 3 UTF-8 bytes become the 6 ASCII bytes of an escape
      }
    }
    byte[] out = new byte[json.length + extra + 1];
    if (!rewrite) {
      System.arraycopy(json, 0, out, 0, json.length);
    } else {
      int o = 0;
      for (int i = 0; i < json.length; i++) {
        byte b = json[i];
        if (b == '\n' || b == '\r') {
          out[o++] = ' ';
        } else if (isLineSeparator(json, i)) {
          out[o++] = '\\';
          out[o++] = 'u';
          out[o++] = '2';
          out[o++] = '0';
          out[o++] = '2';
          out[o++] = json[i + 2] == (byte) 0xA8 ? (byte) '8' : (byte) '9';
          i += 2;
        } else {
          out[o++] = b;
        }
      }
    }
    out[out.length - 1] = '\n';
    return out;
  }

  /** U+2028 is E2 80 A8 in UTF-8, U+2029 is E2 80 A9. */
  private static boolean isLineSeparator(byte[] b, int i) {
    return b[i] == (byte) 0xE2
        && i + 2 < b.length
        && b[i + 1] == (byte) 0x80
        && (b[i + 2] == (byte) 0xA8 || b[i + 2] == (byte) 0xA9);
  }
}
