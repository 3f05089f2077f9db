package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** {@link Origins#sanitise}: only host-and-port characters survive (effective() needs a Jetty request). */
class OriginsTest {

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "localhost:8080|localhost:8080",
      "[::1]:8080|[::1]:8080",
      "[0:0:0:0:0:0:0:1]|[0:0:0:0:0:0:0:1]",
      "Example.COM|example.com",
      "a-b.example:443|a-b.example:443",
      "127.0.0.1|127.0.0.1"})
  void hostAndPortCharactersAreKept(String raw, String clean) {
    assertThat(Origins.sanitise(raw)).isEqualTo(clean);
  }

  @Test
  void quotesAreStripped() {
    assertThat(Origins.sanitise("evil.example\",\"x\":\"y")).isEqualTo("evil.examplex:y");
    assertThat(Origins.sanitise("'h.example'")).isEqualTo("h.example");
  }

  @Test
  void crAndLfAreStrippedSoNothingCanBeInjectedIntoAHeader() {
    String clean = Origins.sanitise("h.example\r\nSet-Cookie: a=b");

    assertThat(clean).isEqualTo("h.exampleset-cookie:ab");
    assertThat(clean).doesNotContain("\r").doesNotContain("\n").doesNotContain(" ");
  }

  @Test
  void spacesTabsAndOtherPunctuationAreStripped() {
    assertThat(Origins.sanitise(" h.example :8080 ")).isEqualTo("h.example:8080");
    assertThat(Origins.sanitise("h.example\t")).isEqualTo("h.example");
    assertThat(Origins.sanitise("<script>h.example</script>")).isEqualTo("scripth.examplescript");
    assertThat(Origins.sanitise("user@h.example/path?q#f\\")).isEqualTo("userh.examplepathqf");
  }

  @Test
  void nonAsciiIsStripped() {
    assertThat(Origins.sanitise("h\u00e9.example\u2028")).isEqualTo("h.example");
  }

  @Test
  void nullStaysNull() {
    assertThat(Origins.sanitise(null)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\"\"", "\r\n", "\u00e9\u00e8", "<>/@"})
  void nothingUsableLeftIsNull(String raw) {
    assertThat(Origins.sanitise(raw)).isNull();
  }

  @Test
  void overlongValuesAreNull() {
    assertThat(Origins.sanitise("a".repeat(255))).hasSize(255);
    assertThat(Origins.sanitise("a".repeat(256))).isNull();
    // the bound applies to what is left, not to what was sent
    assertThat(Origins.sanitise("a".repeat(255) + " ".repeat(100))).hasSize(255);
  }

  @Test
  void everyResultOnlyHoldsHostAndPortCharacters() {
    StringBuilder all = new StringBuilder();
    for (char c = 0; c < 0x300; c++) {
      all.append(c);
    }
    assertThat(Origins.sanitise(all.toString())).matches("[a-z0-9.:\\[\\]-]+");
  }
}
