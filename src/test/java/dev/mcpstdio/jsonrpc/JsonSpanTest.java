package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class JsonSpanTest {

  @Test
  void rejectsNegativeAndInvertedRanges() {
    assertThatThrownBy(() -> new JsonSpan(-1, 2)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new JsonSpan(3, 2)).isInstanceOf(IllegalArgumentException.class);
    assertThat(new JsonSpan(2, 2).length()).isZero();
  }

  @Test
  void sliceTextAndIs() {
    byte[] b = "{\"id\":null}".getBytes(StandardCharsets.UTF_8);
    JsonSpan s = new JsonSpan(6, 10);
    assertThat(s.text(b)).isEqualTo("null");
    assertThat(s.slice(b)).containsExactly('n', 'u', 'l', 'l');
    assertThat(s.is(b, "null")).isTrue();
    assertThat(s.is(b, "nul")).isFalse();
    assertThat(s.is(b, "true")).isFalse();
  }

  @Test
  void replaceKeepsEverythingOutside() {
    byte[] b = "{\"id\":1,\"x\":2}".getBytes(StandardCharsets.UTF_8);
    JsonSpan s = new JsonSpan(6, 7);
    assertThat(new String(s.replace(b, "\"long-id\"".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":\"long-id\",\"x\":2}");
    assertThat(new String(new JsonSpan(0, 0).replace(b, "X".getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8))
        .isEqualTo("X{\"id\":1,\"x\":2}");
    assertThat(new String(new JsonSpan(b.length, b.length).replace(b, new byte[0]), StandardCharsets.UTF_8))
        .isEqualTo("{\"id\":1,\"x\":2}");
  }
}
