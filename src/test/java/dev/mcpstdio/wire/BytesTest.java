package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BytesTest {

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void trimsAsciiWhitespaceBothEnds() {
    assertThat(Bytes.trim(b(" \t\r\n{\"a\":1}\n\r \t"))).isEqualTo(b("{\"a\":1}"));
  }

  @Test
  void keepsInnerWhitespace() {
    assertThat(Bytes.trim(b("  a b\nc  "))).isEqualTo(b("a b\nc"));
  }

  @Test
  void returnsSameArrayWhenNothingToTrim() {
    byte[] in = b("{}");
    assertThat(Bytes.trim(in)).isSameAs(in);
  }

  @Test
  void allWhitespaceAndEmptyAndNull() {
    assertThat(Bytes.trim(b(" \r\n\t "))).isEmpty();
    assertThat(Bytes.trim(new byte[0])).isEmpty();
    assertThat(Bytes.trim(null)).isEmpty();
  }

  @Test
  void doesNotTrimOtherWhitespaceLikeBytes() {
    // form feed, vertical tab, NUL, NBSP (C2 A0) and U+2028 are not JSON whitespace
    byte[] in = {0x0C, 'a', 0x0B};
    assertThat(Bytes.trim(in)).isSameAs(in);
    byte[] nul = {0, 'a', 0};
    assertThat(Bytes.trim(nul)).isSameAs(nul);
    byte[] nbsp = b("\u00a0a\u2028");
    assertThat(Bytes.trim(nbsp)).isSameAs(nbsp);
  }

  @org.junit.jupiter.api.Test
  void findsALiteralAtEveryOffsetAndAcrossWordBoundaries() {
    for (int pad = 0; pad < 20; pad++) {
      byte[] b = ("x".repeat(pad) + "nul null n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      org.assertj.core.api.Assertions.assertThat(Bytes.contains(b, "null", 0, b.length)).isTrue();
      org.assertj.core.api.Assertions.assertThat(Bytes.contains(b, "null", 0, pad + 7)).isFalse(); // cut before its end
      org.assertj.core.api.Assertions.assertThat(Bytes.indexOf(b, (byte) 'n', 0, b.length)).isEqualTo(pad);
    }
    byte[] none = "nu ll nul".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    org.assertj.core.api.Assertions.assertThat(Bytes.contains(none, "null", 0, none.length)).isFalse();
  }
}
