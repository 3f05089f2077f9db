package dev.mcpstdio.jsonrpc;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A half-open byte range {@code [start, end)} of one JSON value inside a message's bytes.
 *
 * <p>Spans let the relay read a field, or rewrite one, without re-serialising the rest of the
 * message: everything outside the span stays byte-for-byte as the sender wrote it.
 */
public record JsonSpan(int start, int end) {

  public JsonSpan {
    if (start < 0 || end < start) {
      throw new IllegalArgumentException("bad span [" + start + ", " + end + ")");
    }
  }

  public int length() {
    return end - start;
  }

  public byte[] slice(byte[] bytes) {
    return Arrays.copyOfRange(bytes, start, end);
  }

  /** The raw JSON text of the span (not unescaped). */
  public String text(byte[] bytes) {
    return new String(bytes, start, length(), StandardCharsets.UTF_8);
  }

  /** True when the span holds exactly the given ASCII literal, such as {@code null}. */
  public boolean is(byte[] bytes, String literal) {
    if (literal.length() != length()) {
      return false;
    }
    for (int i = 0; i < literal.length(); i++) {
      if (bytes[start + i] != literal.charAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** The message with this span replaced by {@code replacement}. */
  public byte[] replace(byte[] bytes, byte[] replacement) {
    byte[] out = new byte[bytes.length - length() + replacement.length];
    System.arraycopy(bytes, 0, out, 0, start);
    System.arraycopy(replacement, 0, out, start, replacement.length);
    System.arraycopy(bytes, end, out, start + replacement.length, bytes.length - end);
    return out;
  }
}
