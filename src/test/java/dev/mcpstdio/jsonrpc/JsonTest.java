package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonToken;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTest {

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static JsonSpan whole(byte[] b) {
    return new JsonSpan(0, b.length);
  }

  @Test
  void membersSayWhereEachNameBeginsSoAMemberCanBeCutOutAsBytes() {
    byte[] b = "{ \"a\" : 1 , \"b\\u0063\":[true],\"d\":{\"e\":\"x\"} }".getBytes(StandardCharsets.UTF_8);
    List<Json.Member> members = Json.members(b, new JsonSpan(0, b.length));
    assertThat(members).extracting(Json.Member::name).containsExactly("a", "bc", "d");
    assertThat(new String(b, members.get(0).start(), members.get(0).value().end() - members.get(0).start(), StandardCharsets.UTF_8))
        .isEqualTo("\"a\" : 1");
    assertThat(members.get(1).value().text(b)).isEqualTo("[true]");
    assertThat(b[members.get(2).start()]).isEqualTo((byte) '"');
    assertThat(Json.members(b, new JsonSpan(2, 5))).as("not an object").isNull();
    byte[] broken = "{\"a\":}".getBytes(StandardCharsets.UTF_8);
    assertThat(Json.members(broken, new JsonSpan(0, broken.length))).isNull();
    assertThat(Json.fields(broken, new JsonSpan(0, broken.length))).isNull();
  }

  @Test
  void fieldsInOrderWithExactSpans() {
    byte[] b = utf8("{ \"z\" : 1 , \"a\":\"s\\n\", \"m\":{\"x\":[]},\"e\":[1, [2]] ,\"t\":true,\"n\":null}");
    Map<String, JsonSpan> fields = Json.fields(b, whole(b));
    assertThat(fields.keySet()).containsExactly("z", "a", "m", "e", "t", "n");
    assertThat(fields.get("z").text(b)).isEqualTo("1");
    assertThat(fields.get("a").text(b)).isEqualTo("\"s\\n\"");
    assertThat(fields.get("m").text(b)).isEqualTo("{\"x\":[]}");
    assertThat(fields.get("e").text(b)).isEqualTo("[1, [2]]");
    assertThat(fields.get("t").text(b)).isEqualTo("true");
    assertThat(fields.get("n").text(b)).isEqualTo("null");
  }

  @Test
  void fieldsOnlyLooksInsideTheSpanAndReturnsAbsoluteOffsets() {
    byte[] b = utf8("{\"outer\":1,\"inner\":{\"k\":\"v\",\"n\":42}}");
    JsonSpan inner = Json.field(b, whole(b), "inner");
    assertThat(inner.text(b)).isEqualTo("{\"k\":\"v\",\"n\":42}");
    Map<String, JsonSpan> fields = Json.fields(b, inner);
    assertThat(fields.keySet()).containsExactly("k", "n");
    assertThat(fields.get("n").text(b)).isEqualTo("42");
    assertThat(fields.get("n").end()).isEqualTo(b.length - 2);
    assertThat(Json.field(b, inner, "outer")).isNull();
  }

  @Test
  void nestedFieldNamesAreNotTopLevelFields() {
    byte[] b = utf8("{\"params\":{\"id\":5},\"x\":\"id\"}");
    assertThat(Json.field(b, whole(b), "id")).isNull();
    assertThat(Json.fields(b, whole(b)).keySet()).containsExactly("params", "x");
  }

  @Test
  void repeatedNameKeepsLastValue() {
    byte[] b = utf8("{\"a\":1,\"b\":2,\"a\":3}");
    Map<String, JsonSpan> fields = Json.fields(b, whole(b));
    assertThat(fields.get("a").text(b)).isEqualTo("3");
    assertThat(fields.keySet()).containsExactly("a", "b");
  }

  @Test
  void escapedFieldNamesAreDecoded() {
    byte[] b = utf8("{\"\\u0069d\":7}");
    assertThat(Json.field(b, whole(b), "id").text(b)).isEqualTo("7");
  }

  @ParameterizedTest
  @ValueSource(strings = {"[1]", "\"s\"", "1", "null", "true"})
  void fieldsOfNonObjectIsNull(String json) {
    byte[] b = utf8(json);
    assertThat(Json.fields(b, whole(b))).isNull();
    assertThat(Json.field(b, whole(b), "x")).isNull();
  }

  @Test
  void nullSpanGivesNull() {
    byte[] b = utf8("{}");
    assertThat(Json.fields(b, null)).isNull();
    assertThat(Json.field(b, null, "a")).isNull();
    assertThat(Json.elements(b, null)).isNull();
    assertThat(Json.string(b, null)).isNull();
    assertThat(Json.kind(b, null)).isNull();
    assertThat(Json.id(b, null)).isNull();
  }

  @Test
  void malformedObjectGivesNull() {
    byte[] b = utf8("{\"a\":1,\"b\":}");
    assertThat(Json.fields(b, whole(b))).isNull();
  }

  @Test
  void emptyObjectHasNoFields() {
    byte[] b = utf8("{ }");
    assertThat(Json.fields(b, whole(b))).isEmpty();
  }

  @Test
  void elementsWithExactSpans() {
    byte[] b = utf8("[ 1,\"t\\\"x\" , {\"a\":[1]},[ ],-3.5e2,null ,\"é😀\"]");
    List<JsonSpan> el = Json.elements(b, whole(b));
    assertThat(el).extracting(s -> s.text(b))
        .containsExactly("1", "\"t\\\"x\"", "{\"a\":[1]}", "[ ]", "-3.5e2", "null", "\"é😀\"");
  }

  @Test
  void elementsOfEmptyArrayAndNonArray() {
    byte[] empty = utf8("[]");
    assertThat(Json.elements(empty, whole(empty))).isEmpty();
    byte[] obj = utf8("{\"a\":1}");
    assertThat(Json.elements(obj, whole(obj))).isNull();
  }

  @Test
  void stringDecodesEscapes() {
    byte[] b = utf8("\"a\\tb\\u00e9\\ud83d\\ude00\\\"\"");
    assertThat(Json.string(b, whole(b))).isEqualTo("a\tbé😀\"");
    byte[] n = utf8("12");
    assertThat(Json.string(n, whole(n))).isNull();
    byte[] nul = utf8("null");
    assertThat(Json.string(nul, whole(nul))).isNull();
  }

  @Test
  void kindReportsTokenKind() {
    assertThat(Json.kind(utf8("1"), new JsonSpan(0, 1))).isEqualTo(JsonToken.VALUE_NUMBER_INT);
    assertThat(Json.kind(utf8("1.5"), new JsonSpan(0, 3))).isEqualTo(JsonToken.VALUE_NUMBER_FLOAT);
    assertThat(Json.kind(utf8("{}"), new JsonSpan(0, 2))).isEqualTo(JsonToken.START_OBJECT);
    assertThat(Json.kind(utf8("true"), new JsonSpan(0, 4))).isEqualTo(JsonToken.VALUE_TRUE);
  }

  @Test
  void idReadsStringAndNumber() {
    byte[] b = utf8("{\"a\":\"x\\u0079\",\"b\":3.0}");
    Map<String, JsonSpan> f = Json.fields(b, whole(b));
    JsonRpcId a = Json.id(b, f.get("a"));
    assertThat(a.value()).isEqualTo("xy");
    assertThat(a.json()).isEqualTo("\"x\\u0079\"");
    JsonRpcId n = Json.id(b, f.get("b"));
    assertThat(n.json()).isEqualTo("3.0");
    assertThat(n).isEqualTo(JsonRpcId.ofNumber("3"));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "plain",
        "quote\" backslash\\ slash/",
        "control\u0000\u0001\u001f",
        "newline\n cr\r tab\t",
        "unicode é 漢 😀",
        "line sep \u2028 para \u2029",
      })
  void quoteRoundTrips(String text) {
    String quoted = Json.quote(text);
    assertThat(quoted).startsWith("\"").endsWith("\"");
    assertThat(quoted).doesNotContain("\n").doesNotContain("\r").doesNotContain("\u0000");
    byte[] b = utf8(quoted);
    assertThat(Json.string(b, whole(b))).isEqualTo(text);
  }

  @Test
  void quoteEscapesQuoteAndBackslash() {
    assertThat(Json.quote("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
  }

  @Test
  void nullMemberFindsOnlyALiteralNullAsTheFirstValueOfItsName() {
    byte[] b = utf8("{\"name\":\"t\", \"arguments\" :  null , \"more\":1}");
    JsonSpan span = Json.nullMember(b, whole(b), "arguments");
    assertThat(span).isNotNull();
    assertThat(span.text(b)).isEqualTo("null");
    for (String other : List.of("{\"arguments\":{}}", "{\"arguments\":\"null\"}", "{\"arguments\":[null]}",
        "{\"a\":null}", "{}", "[null]", "null", "{\"x\":{\"arguments\":null}}",
        "{\"arguments\":{},\"arguments\":null}")) { // a repeated name counts by its first value
      byte[] o = utf8(other);
      assertThat(Json.nullMember(o, whole(o), "arguments")).as(other).isNull();
    }
    assertThat(Json.nullMember(b, null, "arguments")).isNull();
  }

  @Test
  void nullMemberReadsNoFurtherThanTheMember() {
    // Everything after the member is left unread: a value there that is not even JSON is not seen.
    byte[] n = utf8("{\"arguments\":null,\"rest\":\"" + "x".repeat(100) + "\u0001");
    assertThat(Json.nullMember(n, whole(n), "arguments").text(n)).isEqualTo("null");
  }
}
