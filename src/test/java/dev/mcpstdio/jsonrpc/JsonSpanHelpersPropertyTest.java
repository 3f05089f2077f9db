package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * {@link Json}'s span helpers run on the gateway's own scanner (no Jackson parser on a message's
 * path: its base class initializes BigDecimal, 25-40 ms on JDK 25). On well-formed JSON they
 * answer what Jackson's streaming parser answers, which they were written against before; and
 * {@link Json#quote} writes what Jackson's generator writes, wherever that generator can write at
 * all (it refuses a lone surrogate, which quote escapes).
 */
class JsonSpanHelpersPropertyTest {

  private static final JsonFactory JACKSON = new JsonFactory();

  @Provide
  Arbitrary<String> value() {
    return net.jqwik.api.Combinators.combine(Arbitraries.of("", " ", "\n\t"), JsonValueArbitraries.values(), Arbitraries.of("", " ", "\r\n"))
        .as((before, v, after) -> before + v + after);
  }

  @Property(tries = 1500)
  void kindStringIdAndElementsAgreeWithJackson(@ForAll("value") String json) throws IOException {
    byte[] bytes = ("[" + json + "]").getBytes(StandardCharsets.UTF_8);
    JsonSpan span = new JsonSpan(1, bytes.length - 1);
    assertThat(Json.kind(bytes, span)).as(json).isEqualTo(jacksonKind(bytes, span));
    assertThat(Json.string(bytes, span)).as(json).isEqualTo(jacksonString(bytes, span));
    JsonRpcId id = Json.id(bytes, span);
    JsonRpcId expected = jacksonId(bytes, span);
    assertThat(id == null ? null : id.json()).as(json).isEqualTo(expected == null ? null : expected.json());
    assertThat(Json.elements(bytes, span)).as(json).isEqualTo(jacksonElements(bytes, span));
  }

  @Property(tries = 1000)
  void nullMemberAgreesWithJackson(@ForAll("value") String value, @ForAll("value") String other) throws IOException {
    for (String json : List.of("{\"a\":" + value + ",\"b\":null}", "{\"b\" : " + value + " , \"a\":null}", "{\"a\":null,\"a\":" + value + "}")) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      JsonSpan span = new JsonSpan(0, bytes.length);
      for (String name : List.of("a", "b", "c")) {
        assertThat(Json.nullMember(bytes, span, name)).as(json + " " + name).isEqualTo(jacksonNullMember(bytes, span, name));
      }
    }
  }

  @Property(tries = 2000)
  void quoteWritesWhatJacksonWrites(@ForAll String text) throws IOException {
    String written = Json.quote(text);
    if (hasLoneSurrogate(text)) {
      assertThat(Json.string(written.getBytes(StandardCharsets.UTF_8), new JsonSpan(0, written.length()))).isEqualTo(text);
    } else {
      assertThat(written).isEqualTo(jacksonQuote(text));
    }
  }

  @Property(tries = 200)
  void aLoneSurrogateIsEscapedAndReadBack(@ForAll String before, @ForAll String after) {
    for (char lone : new char[] {'\uD800', '\uDBFF', '\uDC00', '\uDFFF'}) {
      String text = before + lone + after;
      String written = Json.quote(text);
      assertThat(written).contains(String.format("\\u%04X", (int) lone));
      byte[] bytes = written.getBytes(StandardCharsets.UTF_8);
      assertThat(Json.string(bytes, new JsonSpan(0, bytes.length))).isEqualTo(text);
    }
  }

  private static boolean hasLoneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c) && (i + 1 >= s.length() || !Character.isLowSurrogate(s.charAt(i + 1)))) {
        return true;
      }
      if (Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(s.charAt(i - 1)))) {
        return true;
      }
    }
    return false;
  }

  // Jackson's answers, as the helpers computed them before (git history of Json.java) --------

  private static JsonParser parser(byte[] bytes, JsonSpan span) throws IOException {
    return JACKSON.createParser(bytes, span.start(), span.length());
  }

  private static JsonToken jacksonKind(byte[] bytes, JsonSpan span) throws IOException {
    try (JsonParser p = parser(bytes, span)) {
      return p.nextToken();
    }
  }

  private static String jacksonString(byte[] bytes, JsonSpan span) throws IOException {
    try (JsonParser p = parser(bytes, span)) {
      return p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
    }
  }

  private static JsonRpcId jacksonId(byte[] bytes, JsonSpan span) throws IOException {
    try (JsonParser p = parser(bytes, span)) {
      JsonToken t = p.nextToken();
      int start = span.start() + (int) p.currentTokenLocation().getByteOffset();
      if (t == JsonToken.VALUE_STRING) {
        String value = p.getText();
        return JsonRpcId.ofString(new JsonSpan(start, span.start() + (int) p.currentLocation().getByteOffset()).text(bytes), value);
      }
      return t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT ? JsonRpcId.ofNumber(p.getText()) : null;
    }
  }

  private static List<JsonSpan> jacksonElements(byte[] bytes, JsonSpan span) throws IOException {
    try (JsonParser p = parser(bytes, span)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<JsonSpan> elements = new ArrayList<>();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        int start = span.start() + (int) p.currentTokenLocation().getByteOffset();
        finish(p);
        elements.add(new JsonSpan(start, span.start() + (int) p.currentLocation().getByteOffset()));
      }
      return elements;
    }
  }

  private static JsonSpan jacksonNullMember(byte[] bytes, JsonSpan span, String name) throws IOException {
    try (JsonParser p = parser(bytes, span)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean wanted = name.equals(p.currentName());
        JsonToken value = p.nextToken();
        if (wanted) {
          return value == JsonToken.VALUE_NULL
              ? new JsonSpan(span.start() + (int) p.currentTokenLocation().getByteOffset(), span.start() + (int) p.currentLocation().getByteOffset())
              : null;
        }
        finish(p);
      }
      return null;
    }
  }

  private static void finish(JsonParser p) throws IOException {
    if (p.currentToken() == JsonToken.START_OBJECT || p.currentToken() == JsonToken.START_ARRAY) {
      p.skipChildren();
    } else {
      p.finishToken();
    }
  }

  private static String jacksonQuote(String text) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = JACKSON.createGenerator(out)) {
      g.writeString(text);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
