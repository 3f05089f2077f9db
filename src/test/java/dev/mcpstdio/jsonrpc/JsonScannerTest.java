package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.wire.Utf8;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The scanner that the codec validates every message with. Beside the grammar cases, a
 * differential test holds it to Jackson's strict parser (the reference it replaced on the hot
 * path) over a large number of generated and mutated texts.
 */
class JsonScannerTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Scans {@code text} as one whole JSON text; returns the error message, or null when valid. */
  private static String scan(byte[] text) {
    JsonScanner s = new JsonScanner(text, 0, text.length);
    try {
      s.skipWhitespace();
      s.skipValue();
      s.skipWhitespace();
      return s.atEnd() ? null : "trailing content";
    } catch (MalformedMessageException e) {
      return e.getMessage();
    }
  }

  private static boolean jacksonAccepts(byte[] text) {
    try (JsonParser p = Json.FACTORY.createParser(text)) {
      JsonToken t = p.nextToken();
      if (t == null) {
        return false;
      }
      if (t.isStructStart()) {
        p.skipChildren();
      } else {
        p.finishToken();
      }
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "0", "-0", "1", "-1", "10", "1.5", "-0.25", "1e5", "1E+5", "1e-5", "1.5e10", "123456789012345678901234567890",
        "true", "false", "null", "\"\"", "\"a\"", "{}", "[]", " [ 1 , 2 ] ", "{\"a\":{\"b\":[{}]}}",
        "\"\\\"\\\\\\/\\b\\f\\n\\r\\t\\u0041\\uD83D\\uDE00\"", "\"é漢😀\"", "\"\u007f\"", "[[[[]]],{}]",
        "{\"a\" : 1 ,\"b\":\t2\r\n}",
      })
  void accepts(String json) {
    assertThat(scan(utf8(json))).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "", " ", "-", "01", "-01", "1.", ".5", "1e", "1e+", "+1", "--1", "0x1", "NaN", "Infinity", "1.e5",
        "tru", "nul", "nulll", "True", "\"", "\"abc", "\"\\x\"", "\"\\u12\"", "\"\\u12G4\"", "\"a\u0001\"",
        "\"a\tb\"", "[1,]", "[,1]", "{\"a\":1,}", "{\"a\"}", "{a:1}", "{'a':1}", "{\"a\" 1}", "[1 2]", "1 2",
        "{\"a\":1}}", "[", "]", "{", "[\"a\":1]", "{\"a\":1]", "[1}", "\u000b1", "/*c*/1", "\"abc\\",
      })
  void rejects(String json) {
    assertThat(scan(utf8(json))).isNotNull();
  }

  @Test
  void specialBytesAreFoundAtEveryPositionOfAWord() {
    // A quote, an escape or a control character at each offset around the eight-byte words.
    for (int prefix = 0; prefix < 24; prefix++) {
      String pad = "x".repeat(prefix);
      assertThat(scan(utf8("[\"" + pad + "\",1]"))).as("quote after %d", prefix).isNull();
      assertThat(scan(utf8("[\"" + pad + "\\\"" + pad + "\"]"))).as("escape after %d", prefix).isNull();
      assertThat(scan(utf8("[\"" + pad + "\u0002" + pad + "\"]"))).as("control after %d", prefix)
          .contains("control character");
      assertThat(scan(utf8("[\"" + pad + "é" + pad + "\"]"))).as("non-ASCII after %d", prefix).isNull();
      assertThat(scan(utf8("\"" + pad))).as("unterminated after %d", prefix).contains("unterminated");
    }
  }

  @Test
  void highBytesAreStringContentNotDelimiters() {
    // 0xA2 and 0xDC have the low bits of '"' and '\\'; they must not be taken for either.
    assertThat(scan(utf8("[\"\u00a2\u00dc\u00e2\u00dc\u00a2\u00a2\u00dc\u00e2\u00dc\u00a2\"]"))).isNull();
    assertThat(scan(utf8("é"))).isNotNull();
  }

  @Test
  void depthIsBoundedWithoutRecursion() {
    int ok = Json.MAX_NESTING;
    assertThat(scan(utf8("[".repeat(ok) + "]".repeat(ok)))).isNull();
    String objects = "{\"a\":".repeat(ok - 1) + "{}" + "}".repeat(ok - 1);
    assertThat(scan(utf8(objects))).isNull();
    assertThat(scan(utf8("[".repeat(ok + 1) + "]".repeat(ok + 1)))).contains("nesting depth");
  }

  @Test
  void containerKindsAreTrackedBeyondSixtyFourLevels() {
    // Alternating objects and arrays past the first word of the bit stack: closing with the wrong
    // bracket at any depth must be caught.
    StringBuilder open = new StringBuilder();
    StringBuilder close = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      open.append(i % 3 == 0 ? "{\"k\":" : "[");
      close.insert(0, i % 3 == 0 ? "}" : "]");
    }
    assertThat(scan(utf8(open + "1" + close))).isNull();
    for (int flip : new int[] {0, 1, 63, 64, 65, 130, 199}) {
      StringBuilder wrong = new StringBuilder(close);
      int at = close.length() - 1 - flip;
      wrong.setCharAt(at, wrong.charAt(at) == '}' ? ']' : '}');
      assertThat(scan(utf8(open + "1" + wrong))).as("flipped level %d", flip).isNotNull();
    }
  }

  @Test
  void decodesEscapesAndKeepsUnescapedTextAsIs() {
    byte[] b = utf8("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u00e9\\uD83D\\uDE00é\"");
    assertThat(JsonScanner.decode(b, 0, b.length, true)).isEqualTo("a\"b\\c/d\b\f\n\r\té😀é");
    byte[] plain = utf8("\"漢字\"");
    assertThat(JsonScanner.decode(plain, 0, plain.length, false)).isEqualTo("漢字");
  }

  @Test
  void errorsNameThePlaceNotTheContent() {
    assertThatThrownBy(() -> JsonRpcCodec.parse(utf8("{\"secret-token-xyz\": oops}")))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessage("unexpected 'o' at byte 21, expected a value");
  }

  // ---- differential ----------------------------------------------------------------------

  private static final String[] PIECES = {
    "{", "}", "[", "]", ",", ":", "\"", "\\", " ", "\n", "\t", "0", "1", "-", "+", ".", "e", "E", "9",
    "true", "false", "null", "u", "a", "\\u00", "é", "😀", "\u0001", "x", "/", "\r",
  };

  @Test
  void agreesWithJacksonOnGeneratedAndMutatedTexts() {
    Random random = new Random(20261130);
    int compared = 0;
    int accepted = 0;
    for (int round = 0; round < 60_000; round++) {
      StringBuilder text = new StringBuilder();
      value(random, text, 0);
      String valid = text.toString();
      assertThat(scan(utf8(valid))).as("generated %s", valid).isNull();
      String mutated = mutate(random, valid);
      byte[] bytes = utf8(mutated);
      if (!Utf8.isValid(bytes) || mutated.startsWith("\uFEFF")) {
        continue;
      }
      boolean ours = scan(bytes) == null;
      assertThat(ours).as("scanner vs Jackson on %s", mutated).isEqualTo(jacksonAccepts(bytes));
      compared++;
      accepted += ours ? 1 : 0;
    }
    // Both verdicts must be well represented, or the comparison proves little.
    assertThat(compared).isGreaterThan(50_000);
    assertThat(accepted).isBetween(compared / 20, compared - compared / 20);
  }

  private static String mutate(Random random, String text) {
    StringBuilder out = new StringBuilder(text);
    int edits = 1 + random.nextInt(3);
    for (int e = 0; e < edits; e++) {
      int at = out.isEmpty() ? 0 : random.nextInt(out.length() + 1);
      switch (random.nextInt(3)) {
        case 0 -> out.insert(at, PIECES[random.nextInt(PIECES.length)]);
        case 1 -> {
          if (at < out.length()) {
            out.deleteCharAt(at);
          }
        }
        default -> {
          if (at < out.length()) {
            out.replace(at, at + 1, PIECES[random.nextInt(PIECES.length)]);
          }
        }
      }
    }
    return out.toString();
  }

  private static void value(Random random, StringBuilder out, int depth) {
    int kind = random.nextInt(depth > 4 ? 5 : 8);
    switch (kind) {
      case 0 -> out.append(random.nextBoolean() ? "true" : random.nextBoolean() ? "false" : "null");
      case 1 -> number(random, out);
      case 2, 3, 4 -> string(random, out);
      case 5, 6 -> {
        out.append('{').append(space(random));
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            out.append(',').append(space(random));
          }
          string(random, out);
          out.append(space(random)).append(':').append(space(random));
          value(random, out, depth + 1);
          out.append(space(random));
        }
        out.append('}');
      }
      default -> {
        out.append('[').append(space(random));
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          if (i > 0) {
            out.append(',').append(space(random));
          }
          value(random, out, depth + 1);
          out.append(space(random));
        }
        out.append(']');
      }
    }
  }

  private static String space(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> " ";
      case 1 -> "\n\t";
      default -> "";
    };
  }

  private static void number(Random random, StringBuilder out) {
    if (random.nextBoolean()) {
      out.append('-');
    }
    out.append(random.nextInt(4) == 0 ? "0" : String.valueOf(1 + random.nextInt(100000)));
    if (random.nextInt(3) == 0) {
      out.append('.').append(random.nextInt(1000));
    }
    if (random.nextInt(4) == 0) {
      out.append(random.nextBoolean() ? 'e' : 'E').append(random.nextBoolean() ? "+" : "").append(random.nextInt(50));
    }
  }

  private static void string(Random random, StringBuilder out) {
    out.append('"');
    int n = random.nextInt(20);
    for (int i = 0; i < n; i++) {
      switch (random.nextInt(10)) {
        case 0 -> out.append("\\n");
        case 1 -> out.append("\\u").append(String.format("%04x", random.nextInt(0xD800)));
        case 2 -> out.append("\\\"");
        case 3 -> out.append("é");
        case 4 -> out.append("😀");
        default -> out.append((char) ('a' + random.nextInt(26)));
      }
    }
    out.append('"');
  }
}
