package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

class NdjsonTest {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  static void assertOneLine(byte[] framed) {
    assertThat(framed[framed.length - 1]).isEqualTo((byte) '\n');
    for (int i = 0; i < framed.length - 1; i++) {
      assertThat(framed[i]).as("byte %d", i).isNotIn((byte) '\n', (byte) '\r');
    }
    // no U+2028 / U+2029 left in the bytes
    String text = s(framed);
    assertThat(text).doesNotContain("\u2028").doesNotContain("\u2029");
  }

  static void assertSameJson(byte[] original, byte[] framed) {
    JsonNode a = MAPPER.readTree(original);
    JsonNode f = MAPPER.readTree(Arrays.copyOf(framed, framed.length - 1));
    assertThat(f).isEqualTo(a);
  }

  @Test
  void compactJsonGetsExactlyOneLf() {
    byte[] in = b("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}");
    byte[] out = Ndjson.frame(in);
    assertThat(out).hasSize(in.length + 1);
    assertThat(Arrays.copyOf(out, in.length)).isEqualTo(in);
    assertThat(out[in.length]).isEqualTo((byte) '\n');
  }

  @Test
  void emptyInputBecomesABareLf() {
    assertThat(Ndjson.frame(new byte[0])).containsExactly('\n');
  }

  @Test
  void prettyPrintedJsonBecomesOneLineWithSpaces() {
    String pretty = "{\r\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\r  \"result\": {\n    \"a\": [1,\n 2]\n  }\n}\n";
    byte[] out = Ndjson.frame(b(pretty));
    assertOneLine(out);
    // every CR and LF became exactly one space: same length plus the LF
    assertThat(out).hasSize(b(pretty).length + 1);
    assertThat(s(out)).isEqualTo(pretty.replace('\r', ' ').replace('\n', ' ') + "\n");
    assertSameJson(b(pretty), out);
  }

  @Test
  void lineSeparatorsBecomeEscapes() {
    String json = "{\"s\":\"a\u2028b\u2029c\",\"t\":\"\u2028\u2028\"}";
    byte[] out = Ndjson.frame(b(json));
    assertOneLine(out);
    assertThat(s(out)).isEqualTo("{\"s\":\"a\\u2028b\\u2029c\",\"t\":\"\\u2028\\u2028\"}\n");
    assertSameJson(b(json), out);
  }

  @Test
  void lineSeparatorAtTheVeryEndOfTheInput() {
    // not valid JSON, but the rewrite must not read past the end
    byte[] in = {'"', 'x', (byte) 0xE2, (byte) 0x80, (byte) 0xA8};
    assertThat(s(Ndjson.frame(in))).isEqualTo("\"x\\u2028\n");
    byte[] cut = {'"', (byte) 0xE2, (byte) 0x80};
    assertThat(Ndjson.frame(cut)).containsExactly('"', 0xE2, 0x80, '\n');
  }

  @Test
  void otherThreeByteCharactersAreUntouched() {
    // U+2027, U+202A and U+20AC share the E2 80/82 prefix but are not line separators
    String json = "{\"s\":\"\u2027\u202a\u20ac\u0085漢😀\"}";
    byte[] out = Ndjson.frame(b(json));
    assertThat(Arrays.copyOf(out, out.length - 1)).isEqualTo(b(json));
  }

  @Test
  void mixedPrettyPrintingAndSeparators() {
    String json = "[\n  \"\u2028\",\r\n  {\"k\" :\n\"v\u2029\"}\n]";
    byte[] out = Ndjson.frame(b(json));
    assertOneLine(out);
    assertSameJson(b(json), out);
    // and the codec still reads the framed line as the same message shape
    assertThat(s(out)).startsWith("[   \"\\u2028\",    {\"k\" : \"v\\u2029\"} ]");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":\"\u2028\",\"method\":\"m\",\"params\":{\"x\":\"\\n\\r\"}}",
        "{\n\"jsonrpc\":\"2.0\",\n\"method\":\"notifications/message\",\n\"params\":{\"data\":\"line1\\nline2\u2029\"}\n}",
      })
  void framedMessageClassifiesTheSame(String json) throws Exception {
    JsonRpcMessage before = JsonRpcCodec.parse(b(json));
    byte[] out = Ndjson.frame(b(json));
    assertOneLine(out);
    JsonRpcMessage after = JsonRpcCodec.parse(Arrays.copyOf(out, out.length - 1));
    assertThat(after.getClass()).isEqualTo(before.getClass());
    assertSameJson(b(json), out);
    if (before instanceof JsonRpcMessage.Request r) {
      assertThat(((JsonRpcMessage.Request) after).id()).isEqualTo(r.id());
    }
  }

  @Test
  void escapedNewlinesInStringsStayEscaped() {
    String json = "{\"s\":\"a\\nb\\r\\u2028\"}";
    assertThat(s(Ndjson.frame(b(json)))).isEqualTo(json + "\n");
  }

  @Test
  void needsRewriteFindsEveryLineBreakAtEveryOffsetAndNothingElse() {
    String[] breaking = {"\n", "\r", "\u2028", "\u2029"};
    String[] harmless = {"\t", "’", "…", "€", "é", "\u2027"};
    for (int pad = 0; pad < 24; pad++) {
      String before = "x".repeat(pad);
      for (String c : breaking) {
        byte[] json = b("[\"" + before + "\"," + (c.length() == 1 && c.charAt(0) < 0x20 ? c : "\"" + c + "\"") + "]");
        assertThat(Ndjson.needsRewrite(json)).as("%s after %d", c, pad).isTrue();
      }
      for (String c : harmless) {
        byte[] json = b("[\"" + before + c + before + "\"]");
        assertThat(Ndjson.needsRewrite(json)).as("%s after %d", c, pad).isFalse();
        assertThat(Ndjson.frame(json)).as("%s after %d", c, pad).hasSize(json.length + 1);
      }
    }
  }

  @Test
  void slicesCutAtCharacterBoundariesRewriteToTheWholeFrame() {
    byte[] json = b("{\"k\":\"a\u2028\u00e9\u20ac\ud83d\ude00b\u2029\"\r\n}");
    byte[] whole = Ndjson.frame(json);
    for (int size = 4; size <= json.length; size++) { // a slice holds at least one whole character
      java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
      for (int at = 0, end; at < json.length; at = end) {
        end = Ndjson.characterBoundary(json, Math.min(json.length, at + size));
        if (end < json.length) {
          assertThat(json[end] & 0xC0).as("slice of %d ends inside a character", size).isNotEqualTo(0x80);
        }
        if (Ndjson.needsRewrite(json, at, end)) {
          byte[] slice = new byte[Ndjson.maxRewrittenLength(end - at)];
          out.write(slice, 0, Ndjson.rewriteInto(json, at, end, slice));
        } else {
          out.write(json, at, end - at);
        }
      }
      out.write('\n');
      assertThat(out.toByteArray()).as("slices of %d", size).isEqualTo(whole);
    }
  }

  @Test
  void characterBoundaryStepsOnOverAtMostThreeContinuationBytes() {
    byte[] json = b("a\ud83d\ude00b"); // a, F0 9F 98 80, b
    assertThat(Ndjson.characterBoundary(json, 0)).isZero();
    assertThat(Ndjson.characterBoundary(json, 1)).isEqualTo(1);
    assertThat(Ndjson.characterBoundary(json, 2)).isEqualTo(5);
    assertThat(Ndjson.characterBoundary(json, 4)).isEqualTo(5);
    assertThat(Ndjson.characterBoundary(json, 5)).isEqualTo(5);
    assertThat(Ndjson.characterBoundary(json, json.length)).isEqualTo(json.length);
    byte[] bad = {(byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, (byte) 0x80, 'x'}; // cannot reach the wire
    assertThat(Ndjson.characterBoundary(bad, 0)).isEqualTo(3);
    assertThat(Ndjson.characterBoundary(bad, 4)).isEqualTo(5);
  }

  @Test
  void rewriteIntoFillsAGivenBufferAsRewriteWould() {
    byte[] json = b("{\"k\":\"\u2028\u2029\"\r\n}");
    byte[] out = new byte[Ndjson.maxRewrittenLength(json.length)];
    int n = Ndjson.rewriteInto(json, 0, json.length, out);
    assertThat(Arrays.copyOf(out, n)).isEqualTo(Ndjson.singleLine(json));
    byte[] plain = b("{\"k\":1}");
    assertThat(Ndjson.singleLine(plain)).isSameAs(plain);
    assertThat(s(Arrays.copyOf(out, n))).isEqualTo("{\"k\":\"\\u2028\\u2029\"  }");
  }
}
