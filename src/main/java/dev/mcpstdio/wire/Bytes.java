package dev.mcpstdio.wire;

import java.util.Arrays;

/** Small byte-array helpers for framing. */
public final class Bytes {

  private Bytes() {}

  /** The bytes without leading and trailing ASCII whitespace (a copy only when needed). */
  public static byte[] trim(byte[] bytes) {
    if (bytes == null) {
      return new byte[0];
    }
    int start = 0;
    int end = bytes.length;
    while (start < end && isSpace(bytes[start])) {
      start++;
    }
    while (end > start && isSpace(bytes[end - 1])) {
      end--;
    }
    return start == 0 && end == bytes.length ? bytes : Arrays.copyOfRange(bytes, start, end);
  }

  /** Index of the first {@code b} in {@code [from, to)}, or -1 (eight bytes at a time). */
  public static int indexOf(byte[] bytes, byte b, int from, int to) {
    return Swar.indexOf(bytes, b, from, to);
  }

  /** True when {@code literal} (ASCII) occurs in {@code [from, to)}. */
  public static boolean contains(byte[] bytes, String literal, int from, int to) {
    byte first = (byte) literal.charAt(0);
    int last = to - literal.length();
    for (int i = indexOf(bytes, first, from, to); i >= 0 && i <= last; i = indexOf(bytes, first, i + 1, to)) {
      int k = 1;
      while (k < literal.length() && bytes[i + k] == literal.charAt(k)) {
        k++;
      }
      if (k == literal.length()) {
        return true;
      }
    }
    return false;
  }

  private static boolean isSpace(byte b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n';
  }
}
