package dev.mcpstdio.wire;

/** Strict UTF-8 validation (RFC 3629): no overlongs, no surrogates, nothing above U+10FFFF. */
public final class Utf8 {

  private Utf8() {}

  public static boolean isValid(byte[] bytes) {
    return isValid(bytes, 0, bytes.length);
  }

  public static boolean isValid(byte[] bytes, int offset, int length) {
    int i = offset;
    int end = offset + length;
    while (i < end) {
      if (i + 8 <= end && !Swar.hasHighBit(Swar.word(bytes, i))) {
        i += 8; // eight ASCII bytes at once
        continue;
      }
      int b = bytes[i];
      if (b >= 0) { // ASCII fast path
        i++;
        continue;
      }
      b &= 0xFF;
      int need;
      int min;
      if (b >= 0xC2 && b <= 0xDF) {
        need = 1;
        min = 0x80;
      } else if (b >= 0xE0 && b <= 0xEF) {
        need = 2;
        min = 0x800;
      } else if (b >= 0xF0 && b <= 0xF4) {
        need = 3;
        min = 0x10000;
      } else {
        return false; // continuation byte, overlong lead (C0/C1) or beyond F4
      }
      if (i + need >= end) {
        return false; // truncated sequence
      }
      int cp = b & (0x3F >> need);
      for (int k = 1; k <= need; k++) {
        int c = bytes[i + k] & 0xFF;
        if ((c & 0xC0) != 0x80) {
          return false;
        }
        cp = (cp << 6) | (c & 0x3F);
      }
      if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return false;
      }
      i += need + 1;
    }
    return true;
  }
}
