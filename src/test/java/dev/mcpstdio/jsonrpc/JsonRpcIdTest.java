package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonRpcIdTest {

  static JsonRpcId idOf(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    return Json.id(b, new JsonSpan(0, b.length));
  }

  @Test
  void escapedAndPlainStringsAreEqual() {
    JsonRpcId plain = idOf("\"a\"");
    JsonRpcId escaped = idOf("\"\\u0061\"");
    assertThat(plain).isEqualTo(escaped);
    assertThat(plain.hashCode()).isEqualTo(escaped.hashCode());
    assertThat(plain.json()).isEqualTo("\"a\"");
    assertThat(escaped.json()).isEqualTo("\"\\u0061\"");
    assertThat(escaped.toString()).isEqualTo("\"\\u0061\"");
    assertThat(escaped.value()).isEqualTo("a");
  }

  @ParameterizedTest
  @CsvSource({
    "1, 1.0",
    "1, 1e0",
    "1, 1E0",
    "1, 10e-1",
    "1, 0.1e1",
    "100, 1e2",
    "100, 1E+2",
    "0, -0",
    "0, 0.000",
    "0, 0e5",
    "-5, -5.00",
    "0.5, 5e-1",
    "123.456, 123456e-3",
    "12345678901234567890123, 12345678901234567890123.000",
  })
  void numericallyEqualSpellingsAreEqual(String a, String b) {
    JsonRpcId x = idOf(a);
    JsonRpcId y = idOf(b);
    assertThat(x).isEqualTo(y);
    assertThat(x.hashCode()).isEqualTo(y.hashCode());
    assertThat(x.json()).isEqualTo(a);
    assertThat(y.json()).isEqualTo(b);
  }

  @ParameterizedTest
  @CsvSource({
    "1, 2",
    "1, -1",
    "1, 1.5",
    "10, 1",
    "0.1, 0.01",
    "1e2, 1e3",
    "12345678901234567890123, 12345678901234567890124",
    "1e70, 1e71",
    "1e-70, 1e-71",
  })
  void differentNumbersDiffer(String a, String b) {
    assertThat(idOf(a)).isNotEqualTo(idOf(b));
  }

  @Test
  void stringOneIsNotNumberOne() {
    JsonRpcId s = idOf("\"1\"");
    JsonRpcId n = idOf("1");
    assertThat(s).isNotEqualTo(n);
    assertThat(s.isString()).isTrue();
    assertThat(n.isString()).isFalse();
    assertThat(s.value()).isEqualTo(n.value()); // same text, different kinds
  }

  @Test
  void numberValueIsCanonicalDecimal() {
    assertThat(idOf("1.50e3").value()).isEqualTo("1500");
    assertThat(idOf("-0.0").value()).isEqualTo("0");
    assertThat(idOf("25e-3").value()).isEqualTo("0.025");
    assertThat(idOf("7").value()).isEqualTo("7");
  }

  @Test
  void canonicalFormsNeverCollideAcrossTheirShapes() {
    // plain and exponent forms for a spread of magnitudes: all pairwise distinct
    Set<JsonRpcId> ids = new HashSet<>();
    for (int exp = -150; exp <= 150; exp++) {
      for (String digits : new String[] {"1", "12", "105"}) {
        ids.add(JsonRpcId.ofNumber(digits + "e" + exp));
      }
    }
    // 1e(k+1) == 10e k and such coincide; distinct values are distinct keys.
    Set<java.math.BigDecimal> values = new HashSet<>();
    for (int exp = -150; exp <= 150; exp++) {
      for (String digits : new String[] {"1", "12", "105"}) {
        values.add(new java.math.BigDecimal(digits + "e" + exp).stripTrailingZeros());
      }
    }
    assertThat(ids).hasSize(values.size());
    // and each id equals the plain spelling of its value
    for (java.math.BigDecimal v : values) {
      assertThat(ids).contains(JsonRpcId.ofNumber(v.toPlainString()));
    }
  }

  @Test
  void jsonPreservesOriginalSpelling() {
    for (String spelling : new String[] {"1.0", "1e0", "-0", "1E+2", "\"\\u0061\"", "\"a b\"", "\"é\""}) {
      JsonRpcId id = idOf(spelling);
      assertThat(id.json()).isEqualTo(spelling);
      assertThat(new String(id.jsonBytes(), StandardCharsets.UTF_8)).isEqualTo(spelling);
    }
  }

  @Test
  void relayOwnedIsAStringIdWithQuotes() {
    JsonRpcId id = JsonRpcId.relayOwned("mcp-stdio/page-1");
    assertThat(id.json()).isEqualTo("\"mcp-stdio/page-1\"");
    assertThat(id.isString()).isTrue();
    assertThat(id).isEqualTo(idOf("\"mcp-stdio/page-1\""));
  }

  @Test
  void nonScalarsAreNotIds() {
    assertThat(idOf("null")).isNull();
    assertThat(idOf("true")).isNull();
    assertThat(idOf("{}")).isNull();
    assertThat(idOf("[1]")).isNull();
    assertThat(Json.id(new byte[0], null)).isNull();
  }

  @Test
  void nonNumericTextFallsBackToTextualIdentity() {
    assertThat(JsonRpcId.ofNumber("abc")).isEqualTo(JsonRpcId.ofNumber("abc"));
    assertThat(JsonRpcId.ofNumber("abc")).isNotEqualTo(JsonRpcId.ofNumber("abd"));
  }
}
