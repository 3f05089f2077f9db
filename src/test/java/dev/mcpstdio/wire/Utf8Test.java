package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class Utf8Test {

  static byte[] hex(String h) {
    String s = h.replace(" ", "");
    byte[] b = new byte[s.length() / 2];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    }
    return b;
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "41",
        "00 7F",
        "C2 80", // U+0080, smallest 2-byte
        "DF BF", // U+07FF
        "E0 A0 80", // U+0800, smallest 3-byte
        "ED 9F BF", // U+D7FF, just below surrogates
        "EE 80 80", // U+E000, just above surrogates
        "EF BF BF", // U+FFFF
        "E2 80 A8", // U+2028
        "EF BB BF", // BOM
        "F0 90 80 80", // U+10000, smallest 4-byte
        "F4 8F BF BF", // U+10FFFF, largest
        "F0 9F 98 80", // 😀
        "41 C3 A9 E6 BC A2 F0 9F 98 80 42",
      })
  void valid(String h) {
    assertThat(Utf8.isValid(hex(h))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "C0 80", // overlong NUL
        "C1 BF", // overlong
        "E0 80 80", // overlong 3-byte
        "E0 9F BF", // overlong U+07FF
        "F0 80 80 80", // overlong 4-byte
        "F0 8F BF BF", // overlong U+FFFF
        "ED A0 80", // U+D800
        "ED AD BF", // U+DB7F
        "ED B0 80", // U+DC00
        "ED BF BF", // U+DFFF
        "ED A0 BD ED B8 80", // CESU-8 surrogate pair
        "F4 90 80 80", // U+110000
        "F5 80 80 80",
        "F7 BF BF BF",
        "F8 88 80 80 80",
        "FC 84 80 80 80 80",
        "FE",
        "FF",
        "80", // lone continuation
        "BF",
        "41 80 41",
        "C3", // truncated
        "E6 BC", // truncated
        "F0 9F 98", // truncated
        "41 F0 9F",
        "C3 41", // continuation expected
        "E6 41 A2",
        "F0 9F 41 80",
        "C3 C3 A9",
      })
  void invalid(String h) {
    assertThat(Utf8.isValid(hex(h))).isFalse();
  }

  @Test
  void offsetAndLengthLimitTheCheck() {
    byte[] b = hex("FF 41 C3 A9 42 FF");
    assertThat(Utf8.isValid(b, 1, 4)).isTrue();
    assertThat(Utf8.isValid(b, 0, 4)).isFalse();
    assertThat(Utf8.isValid(b, 1, 5)).isFalse();
    // a sequence cut by the length is truncated even though more bytes follow in the array
    assertThat(Utf8.isValid(b, 1, 2)).isFalse();
    assertThat(Utf8.isValid(b, 3, 0)).isTrue();
  }

  @Test
  void agreesWithJdkDecoderOnEveryCodePointBoundary() {
    // Every scalar value encodes to valid UTF-8.
    for (int cp = 0; cp <= 0x10FFFF; cp += (cp < 0x3000 ? 1 : 97)) {
      if (cp >= 0xD800 && cp <= 0xDFFF) {
        continue;
      }
      byte[] b = new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8);
      assertThat(Utf8.isValid(b)).as("U+%04X", cp).isTrue();
    }
  }

  @Test
  void agreesWithStrictJdkDecoderOnAllTwoAndThreeByteCombinations() {
    var decoder = StandardCharsets.UTF_8.newDecoder();
    byte[] two = new byte[2];
    for (int a = 0x80; a <= 0xFF; a++) {
      for (int b = 0; b <= 0xFF; b++) {
        two[0] = (byte) a;
        two[1] = (byte) b;
        assertThat(Utf8.isValid(two)).as("%02X %02X", a, b).isEqualTo(decodes(decoder, two));
      }
    }
    byte[] three = new byte[3];
    for (int a = 0xE0; a <= 0xEF; a++) {
      for (int b = 0x70; b <= 0xC0; b++) {
        for (int c = 0x70; c <= 0xC0; c += 7) {
          three[0] = (byte) a;
          three[1] = (byte) b;
          three[2] = (byte) c;
          assertThat(Utf8.isValid(three)).as("%02X %02X %02X", a, b, c).isEqualTo(decodes(decoder, three));
        }
      }
    }
  }

  private static boolean decodes(java.nio.charset.CharsetDecoder decoder, byte[] bytes) {
    try {
      decoder.reset().decode(java.nio.ByteBuffer.wrap(bytes));
      return true;
    } catch (java.nio.charset.CharacterCodingException e) {
      return false;
    }
  }
}
