package dev.mcpstdio.wire;

import java.util.Arrays;

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
    return needsRewrite(json, 0, json.length);
  }

  /** As {@link #needsRewrite(byte[])}, for {@code json[from, to)}, a range that splits no character. */
  public static boolean needsRewrite(byte[] json, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long w = Swar.word(json, i);
      if ((((w - SPACES) & ~w | w) & Swar.HIGHS) == 0) {
        continue; // no control byte and no non-ASCII byte: the common word, in four operations
      }
      if (Swar.hasByteBelow(w, 0x20) || Swar.hasByte(w, (byte) 0xE2)) {
        // Control bytes include the harmless tab, and E2 leads many characters: look closer.
        for (int k = i; k < i + 8; k++) {
          if (breaksLine(json, k, to)) {
            return true;
          }
        }
      }
    }
    for (; i < to; i++) {
      if (breaksLine(json, i, to)) {
        return true;
      }
    }
    return false;
  }

  private static boolean breaksLine(byte[] json, int i, int to) {
    return json[i] == '\n' || json[i] == '\r' || isLineSeparator(json, i, to);
  }

  /** The message as one line: rewritten where needed (see the class comment), then an LF. */
  public static byte[] frame(byte[] json) {
    byte[] out = needsRewrite(json) ? rewritten(json, 1) : Arrays.copyOf(json, json.length + 1);
    out[out.length - 1] = '\n';
    return out;
  }

  /**
   * The message fit for one line without its LF (an event's {@code data:} line): the message itself
   * when it needs no rewrite, else a rewritten copy.
   */
  public static byte[] singleLine(byte[] json) {
    return needsRewrite(json) ? rewritten(json, 0) : json;
  }

  /** The most bytes {@link #rewriteInto} can write for {@code length} bytes (all separators). */
  public static int maxRewrittenLength(int length) {
    return 2 * length;
  }

  /**
   * Writes {@code json[from, to)} rewritten as {@link #frame} rewrites it (without an LF) into
   * {@code out} from index 0, and returns how many bytes it wrote: a writer that sends a large
   * message in slices rewrites a slice into one buffer of its own, allocating nothing. {@code out}
   * must hold {@link #maxRewrittenLength}{@code (to - from)} bytes; the range must split no
   * character.
   */
  public static int rewriteInto(byte[] json, int from, int to, byte[] out) {
    int o = 0;
    for (int i = from; i < to; i++) {
      byte b = json[i];
      if (b == '\n' || b == '\r') {
        out[o++] = ' ';
      } else if (isLineSeparator(json, i, to)) {
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
    return o;
  }

  /**
   * {@code index}, moved on over at most three UTF-8 continuation bytes: where the next
   * character starts, so a slice ending there splits no character (and is never shorter than
   * asked for).
   */
  public static int characterBoundary(byte[] json, int index) {
    int at = index;
    for (int k = 0; k < 3 && at < json.length && (json[at] & 0xC0) == 0x80; k++) {
      at++;
    }
    return at;
  }

  /** The whole message rewritten, with {@code room} bytes left free at its end. */
  private static byte[] rewritten(byte[] json, int room) {
    int extra = 0;
    for (int i = 0; i < json.length; i++) {
      if (isLineSeparator(json, i, json.length)) {
        extra += 3; // 3 UTF-8 bytes become the 6 ASCII bytes of an escape
      }
    }
    byte[] out = new byte[json.length + extra + room];
    rewriteInto(json, 0, json.length, out);
    return out;
  }


  /** U+2028 is E2 80 A8 in UTF-8, U+2029 is E2 80 A9. */
  private static boolean isLineSeparator(byte[] b, int i, int to) {
    return b[i] == (byte) 0xE2
        && i + 2 < to
        && b[i + 1] == (byte) 0x80
        && (b[i + 2] == (byte) 0xA8 || b[i + 2] == (byte) 0xA9);
  }
}
