package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * For any well-formed string (any code points, weighted towards the characters the rule is about):
 * the encoded header value is a valid one (visible ASCII and spaces, no space at an end), decoding
 * it gives the string back, and plain strings pass unchanged.
 */
class McpNamePropertyTest {

  @Provide
  Arbitrary<String> values() {
    Arbitrary<Integer> codePoint =
        Arbitraries.frequencyOf(
            Tuple.of(6, Arbitraries.integers().between(0x20, 0x7E)),
            Tuple.of(2, Arbitraries.of(0x20, 0x09, 0x0D, 0x0A, 0x3D, 0x3F, 0x00, 0x7F)),
            Tuple.of(1, Arbitraries.integers().between(0x80, 0xD7FF)),
            Tuple.of(1, Arbitraries.integers().between(0xE000, 0x10FFFF)));
    Arbitrary<String> random =
        codePoint.list().ofMaxSize(40).map(cps -> new String(cps.stream().mapToInt(Integer::intValue).toArray(), 0, cps.size()));
    Arbitrary<String> sentinelLike =
        random.map(s -> "=?base64?" + s + "?=");
    return Arbitraries.frequencyOf(
        Tuple.of(8, random),
        Tuple.of(1, sentinelLike),
        Tuple.of(1, Arbitraries.of(List.of("", " ", "=?", "?=", "=?=", "=?base64?=", "=?base64??="))));
  }

  @Property(tries = 2000)
  void encodingRoundTripsToAValidHeaderValue(@ForAll("values") String value) {
    for (String encoded : List.of(McpName.encodeName(value), McpName.encodeParam(value))) {
      assertThat(McpName.decode(encoded)).contains(value);
      assertThat(encoded.chars()).allMatch(c -> c >= 0x20 && c <= 0x7E);
      if (!encoded.isEmpty()) {
        assertThat(encoded.charAt(0)).isNotEqualTo(' ');
        assertThat(encoded.charAt(encoded.length() - 1)).isNotEqualTo(' ');
      }
    }
    assertThat(McpName.encodeName(value).equals(value)).isEqualTo(McpName.isPlain(value));
    assertThat(McpName.encodeParam(value).equals(value)).isEqualTo(McpName.isPlain(value) && !value.isEmpty());
  }

  @Property(tries = 500)
  void neverThrowsOnAnyHeaderValue(@ForAll String headerValue) {
    McpName.decode(headerValue);
    McpName.decode("=?base64?" + headerValue + "?=");
  }
}
