package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HeaderTest {

  @ParameterizedTest
  @ValueSource(strings = {"X-Api-Key", "a", "Z9", "!#$%&'*+-.^_`|~", "content-type"})
  void validTokens(String name) {
    assertThat(Header.isToken(name)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "Bad Name", "a:b", "a\"b", "(x)", "a,b", "a;b", "a/b", "a=b", "a@b", "a[b]", "a?b", "a{b}", "a\\b", "é", "a\tb", "a\u0000", "a\u007f"})
  void invalidTokens(String name) {
    assertThat(Header.isToken(name)).isFalse();
    assertThatThrownBy(() -> new Header(name, "v")).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void nullIsNeitherTokenNorSafeValue() {
    assertThat(Header.isToken(null)).isFalse();
    assertThat(Header.isSafeValue(null)).isFalse();
    assertThat(Header.isVisibleAscii(null)).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"a\rb", "a\nb", "a\u0000b", "\r\n", "x\r\nX-Injected: 1"})
  void crLfNulRejectedInValues(String value) {
    assertThat(Header.isSafeValue(value)).isFalse();
    assertThatThrownBy(() -> new Header("X-Test", value))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageNotContaining(value);
  }

  @Test
  void otherValuesAreSafe() {
    assertThat(Header.isSafeValue("")).isTrue();
    assertThat(Header.isSafeValue("Bearer abc def\tghi é")).isTrue();
  }

  @Test
  void parse() {
    Header h = Header.parse("  X-Api-Key :  secret: with colon  ");
    assertThat(h.name()).isEqualTo("X-Api-Key");
    assertThat(h.value()).isEqualTo("secret: with colon");
    assertThat(h.lowerName()).isEqualTo("x-api-key");
    assertThat(Header.parse("X-Empty:").value()).isEmpty();
    assertThat(Header.parse("Authorization: Bearer t").value()).isEqualTo("Bearer t");
  }

  @ParameterizedTest
  @ValueSource(strings = {"NoColon", ":value", " : value", "Bad Name: v", "X: a\nb", "X: a\u0000b"})
  void parseRejects(String spec) {
    assertThatThrownBy(() -> Header.parse(spec)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void visibleAscii() {
    assertThat(Header.isVisibleAscii("2025-06-18")).isTrue();
    assertThat(Header.isVisibleAscii("!~")).isTrue();
    assertThat(Header.isVisibleAscii("")).isFalse();
    assertThat(Header.isVisibleAscii("a b")).isFalse();
    assertThat(Header.isVisibleAscii("a\tb")).isFalse();
    assertThat(Header.isVisibleAscii("é")).isFalse();
    assertThat(Header.isVisibleAscii("a\u007f")).isFalse();
    assertThat(Header.isVisibleAscii("a\r\n")).isFalse();
  }
}
