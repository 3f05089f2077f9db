package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Invalid;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonRpcCodecTest {

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static JsonRpcMessage parse(String s) throws MalformedMessageException {
    return JsonRpcCodec.parse(utf8(s));
  }

  // ---- requests --------------------------------------------------------------------------

  @Test
  void errorCodeReadsAnIntCodeAndIsZeroOtherwise() throws Exception {
    assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-32022,\"message\":\"m\"}}").errorCode())
        .isEqualTo(-32022);
    assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}").errorCode()).isZero();
    assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"message\":\"no code\"}}").errorCode()).isZero();
    assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":99999999999999,\"message\":\"m\"}}").errorCode())
        .isZero();
    assertThat(response("{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1.5,\"message\":\"m\"}}").errorCode()).isZero();
  }

  private static JsonRpcMessage.Response response(String json) throws Exception {
    return (JsonRpcMessage.Response) JsonRpcCodec.parse(json.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  @Test
  void requestWithNumericIdAndParams() throws Exception {
    String json = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\",\"params\":{\"a\":[1,2]}}";
    byte[] bytes = utf8(json);
    JsonRpcMessage m = JsonRpcCodec.parse(bytes);

    assertThat(m).isInstanceOf(Request.class);
    Request r = (Request) m;
    assertThat(r.bytes()).isSameAs(bytes);
    assertThat(r.method()).isEqualTo("tools/list");
    assertThat(r.id()).isEqualTo(JsonRpcId.ofNumber("7"));
    assertThat(r.id().isString()).isFalse();
    assertThat(r.idSpan().text(bytes)).isEqualTo("7");
    assertThat(r.params().text(bytes)).isEqualTo("{\"a\":[1,2]}");
  }

  @Test
  void requestWithStringIdKeepsSpellingAndSpan() throws Exception {
    String json = "{\"method\":\"ping\",\"id\":\"a\\u0062c\",\"jsonrpc\":\"2.0\"}";
    byte[] bytes = utf8(json);
    Request r = (Request) JsonRpcCodec.parse(bytes);

    assertThat(r.id().json()).isEqualTo("\"a\\u0062c\"");
    assertThat(r.id().value()).isEqualTo("abc");
    assertThat(r.id().isString()).isTrue();
    assertThat(r.idSpan().text(bytes)).isEqualTo("\"a\\u0062c\"");
    assertThat(r.params()).isNull();
  }

  @Test
  void requestWithoutJsonrpcMemberIsStillARequest() throws Exception {
    assertThat(parse("{\"id\":1,\"method\":\"x\"}")).isInstanceOf(Request.class);
    assertThat(parse("{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"x\"}")).isInstanceOf(Request.class);
  }

  @Test
  void requestIdNullIsInvalid() throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\"}");
    assertThat(m).isInstanceOf(Invalid.class);
    Invalid inv = (Invalid) m;
    assertThat(inv.id()).isNull();
    assertThat(inv.reason()).contains("must not be null");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{\"a\":1}", "[1]", "true", "false"})
  void requestIdNonScalarIsInvalid(String id) throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"x\"}");
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(((Invalid) m).id()).isNull();
    assertThat(((Invalid) m).reason()).contains("string or a number");
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "null", "{}", "[\"x\"]", "true"})
  void methodNotAStringIsInvalidAndKeepsId(String method) throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":\"q\",\"method\":" + method + "}");
    assertThat(m).isInstanceOf(Invalid.class);
    Invalid inv = (Invalid) m;
    assertThat(inv.reason()).contains("\"method\" must be a string");
    assertThat(inv.id()).isEqualTo(JsonRpcId.ofString("\"q\"", "q"));
  }

  @Test
  void methodWinsOverResultWhenBothPresent() throws Exception {
    assertThat(parse("{\"id\":1,\"method\":\"m\",\"result\":{}}")).isInstanceOf(Request.class);
  }

  @Test
  void repeatedMemberKeepsLastValue() throws Exception {
    byte[] bytes = utf8("{\"id\":1,\"method\":\"a\",\"id\":2,\"method\":\"b\"}");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.method()).isEqualTo("b");
    assertThat(r.id()).isEqualTo(JsonRpcId.ofNumber("2"));
    assertThat(r.idSpan().text(bytes)).isEqualTo("2");
  }

  // ---- notifications ---------------------------------------------------------------------

  @Test
  void notification() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}");
    JsonRpcMessage m = JsonRpcCodec.parse(bytes);
    assertThat(m).isInstanceOf(Notification.class);
    Notification n = (Notification) m;
    assertThat(n.method()).isEqualTo("notifications/cancelled");
    assertThat(n.params().text(bytes)).isEqualTo("{\"requestId\":3}");
    assertThat(n.bytes()).isSameAs(bytes);
  }

  @Test
  void notificationWithoutParams() throws Exception {
    Notification n = (Notification) parse("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    assertThat(n.params()).isNull();
  }

  @Test
  void notificationWithNonStringMethodIsInvalid() throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"method\":5}");
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(((Invalid) m).id()).isNull();
  }

  // ---- responses -------------------------------------------------------------------------

  @Test
  void resultResponse() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"result\":{\"tools\":[]}}");
    Response r = (Response) JsonRpcCodec.parse(bytes);
    assertThat(r.isError()).isFalse();
    assertThat(r.id()).isEqualTo(JsonRpcId.ofString("\"x\"", "x"));
    assertThat(r.result().text(bytes)).isEqualTo("{\"tools\":[]}");
    assertThat(r.error()).isNull();
  }

  @Test
  void resultNullIsAResult() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}");
    Response r = (Response) JsonRpcCodec.parse(bytes);
    assertThat(r.result().text(bytes)).isEqualTo("null");
    assertThat(r.isError()).isFalse();
  }

  @Test
  void errorResponse() throws Exception {
    byte[] bytes = utf8("{\"jsonrpc\":\"2.0\",\"id\":2,\"error\":{\"code\":-32601,\"message\":\"nope\"}}");
    Response r = (Response) JsonRpcCodec.parse(bytes);
    assertThat(r.isError()).isTrue();
    assertThat(r.result()).isNull();
    assertThat(r.error().text(bytes)).isEqualTo("{\"code\":-32601,\"message\":\"nope\"}");
  }

  @Test
  void errorResponseWithIdNullIsAResponseWithNullId() throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"p\"}}");
    assertThat(m).isInstanceOf(Response.class);
    assertThat(((Response) m).id()).isNull();
    assertThat(((Response) m).isError()).isTrue();
  }

  @Test
  void responseWithoutIdIsInvalid() throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"result\":1}");
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(((Invalid) m).reason()).contains("needs an id");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{}", "[]", "[1]", "true"})
  void responseWithNonScalarIdIsInvalid(String id) throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":1}");
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(((Invalid) m).id()).isNull();
    assertThat(((Invalid) m).reason()).contains("needs an id");
  }

  @Test
  void errorAndResultBothPresentIsInvalidButKeepsId() throws Exception {
    JsonRpcMessage m =
        parse("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}");
    assertThat(m).isInstanceOf(Invalid.class);
    Invalid inv = (Invalid) m;
    assertThat(inv.reason()).contains("both");
    assertThat(inv.id()).isEqualTo(JsonRpcId.ofNumber("9"));
  }

  @Test
  void objectWithNeitherMethodNorResultIsInvalidKeepingId() throws Exception {
    JsonRpcMessage m = parse("{\"jsonrpc\":\"2.0\",\"id\":4}");
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(((Invalid) m).id()).isEqualTo(JsonRpcId.ofNumber("4.0"));
    assertThat(((Invalid) m).reason()).contains("not a request, notification or response");
  }

  @Test
  void emptyObjectIsInvalid() throws Exception {
    assertThat(parse("{}")).isInstanceOf(Invalid.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"1", "\"str\"", "null", "true", "-2.5e3"})
  void topLevelScalarIsInvalidNotMalformed(String json) throws Exception {
    byte[] bytes = utf8(json);
    JsonRpcMessage m = JsonRpcCodec.parse(bytes);
    assertThat(m).isInstanceOf(Invalid.class);
    assertThat(m.bytes()).isSameAs(bytes);
    assertThat(((Invalid) m).reason()).contains("must be a JSON object");
  }

  // ---- batches ---------------------------------------------------------------------------

  @Test
  void batchClassifiesEachMemberOnItsOwnBytes() throws Exception {
    String req = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\",\"params\":{\"k\":\"v\"}}";
    String note = "{\"jsonrpc\":\"2.0\",\"method\":\"n\"}";
    String resp = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":[]}";
    byte[] bytes = utf8("[ " + req + " ,\n" + note + "," + resp + " ]");
    JsonRpcMessage m = JsonRpcCodec.parse(bytes);

    assertThat(m).isInstanceOf(Batch.class);
    Batch b = (Batch) m;
    assertThat(b.bytes()).isSameAs(bytes);
    assertThat(b.members()).hasSize(3);
    Request r = (Request) b.members().get(0);
    assertThat(new String(r.bytes(), StandardCharsets.UTF_8)).isEqualTo(req);
    // spans relative to the member's own bytes
    assertThat(r.params().text(r.bytes())).isEqualTo("{\"k\":\"v\"}");
    assertThat(r.idSpan().text(r.bytes())).isEqualTo("1");
    assertThat(new String(b.members().get(1).bytes(), StandardCharsets.UTF_8)).isEqualTo(note);
    assertThat(b.members().get(1)).isInstanceOf(Notification.class);
    Response resp2 = (Response) b.members().get(2);
    assertThat(resp2.result().text(resp2.bytes())).isEqualTo("[]");
  }

  @Test
  void batchNonObjectMembersAreInvalidWithTheirOwnBytes() throws Exception {
    Batch b = (Batch) parse("[1,\"s\",null,[{\"id\":1,\"method\":\"x\"}],{\"id\":3,\"method\":\"m\"}]");
    assertThat(b.members()).hasSize(5);
    for (int i = 0; i < 4; i++) {
      assertThat(b.members().get(i)).isInstanceOf(Invalid.class);
      assertThat(((Invalid) b.members().get(i)).reason()).contains("batch member must be a JSON object");
    }
    assertThat(new String(b.members().get(1).bytes(), StandardCharsets.UTF_8)).isEqualTo("\"s\"");
    assertThat(new String(b.members().get(3).bytes(), StandardCharsets.UTF_8))
        .isEqualTo("[{\"id\":1,\"method\":\"x\"}]");
    assertThat(b.members().get(4)).isInstanceOf(Request.class);
  }

  @Test
  void emptyBatchHasNoMembers() throws Exception {
    assertThat(((Batch) parse("[]")).members()).isEmpty();
  }

  @Test
  void batchMembersAreImmutable() throws Exception {
    Batch b = (Batch) parse("[{\"id\":1,\"method\":\"x\"}]");
    assertThatThrownBy(() -> b.members().add(b)).isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void malformedMemberMakesWholeBatchMalformed() {
    assertThatThrownBy(() -> parse("[{\"id\":1,\"method\":\"x\"},{\"id\":]"))
        .isInstanceOf(MalformedMessageException.class);
  }

  // ---- malformed -------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"id\":1,\"method\":\"x\"} {\"id\":2,\"method\":\"y\"}",
        "{\"id\":1,\"method\":\"x\"}x",
        "{\"id\":1,\"method\":\"x\"}]",
        "{\"id\":1,\"method\":\"x\"}}",
        "[]1",
        "1 2",
        "{\"id\":1,\"method\":\"x\"",
        "{\"id\":1,",
        "{\"id\" 1}",
        "{'id':1}",
        "{\"id\":01,\"method\":\"x\"}",
        "{\"id\":1,\"method\":\"x\",}",
        "[1,]",
        "nul",
        "\"unterminated",
        "{\"a\":\"\u0001\"}",
      })
  void malformed(String json) {
    assertThatThrownBy(() -> parse(json)).isInstanceOf(MalformedMessageException.class);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "\t\r\n  ", "\n"})
  void emptyOrWhitespaceIsMalformed(String json) {
    assertThatThrownBy(() -> parse(json))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("empty");
  }

  @Test
  void surroundingWhitespaceIsAllowed() throws Exception {
    byte[] bytes = utf8("  \t{\"id\":1,\"method\":\"x\",\"params\":[]} \r\n ");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.params().text(bytes)).isEqualTo("[]");
    assertThat(r.idSpan().text(bytes)).isEqualTo("1");
  }

  @Test
  void malformedMessageDoesNotEchoContent() {
    assertThatThrownBy(() -> parse("{\"secret-token-xyz\": oops}"))
        .isInstanceOf(MalformedMessageException.class)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("at [Source"));
  }

  // ---- size and depth --------------------------------------------------------------------

  @Test
  @Timeout(10)
  void nestingUpToTheBoundIsAccepted() throws Exception {
    int depth = Json.MAX_NESTING - 2; // the message object and params itself count as levels
    String params = "[".repeat(depth) + "]".repeat(depth);
    byte[] bytes = utf8("{\"id\":1,\"method\":\"deep\",\"params\":" + params + "}");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.params().length()).isEqualTo(2 * depth);
  }

  @Test
  @Timeout(10)
  void nestingBeyondTheBoundIsMalformedNotAMemoryHazard() {
    int depth = 2_500_000; // a few megabytes of brackets
    String params = "[".repeat(depth) + "]".repeat(depth);
    assertThatThrownBy(() -> parse("{\"id\":1,\"method\":\"deep\",\"params\":" + params + "}"))
        .isInstanceOf(MalformedMessageException.class)
        .hasMessageContaining("nesting depth");
  }

  @Test
  @Timeout(10)
  void deepNestingUnbalancedIsMalformed() {
    int depth = 50_000;
    String json = "{\"id\":1,\"method\":\"deep\",\"params\":" + "{\"a\":".repeat(depth) + "1" + "}".repeat(depth - 1) + "}";
    assertThatThrownBy(() -> parse(json)).isInstanceOf(MalformedMessageException.class);
  }

  @Test
  @Timeout(10)
  void hugeStringValueIsAcceptedWithExactSpan() throws Exception {
    String big = "x".repeat(30_000_000);
    byte[] bytes = utf8("{\"id\":1,\"method\":\"big\",\"params\":{\"s\":\"" + big + "\"},\"z\":0}");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.params().length()).isEqualTo(big.length() + 8);
    assertThat(bytes[r.params().start()]).isEqualTo((byte) '{');
    assertThat(bytes[r.params().end() - 1]).isEqualTo((byte) '}');
  }

  @Test
  @Timeout(10)
  void hugeStringIdIsRead() throws Exception {
    String big = "i".repeat(5_000_000);
    byte[] bytes = utf8("{\"id\":\"" + big + "\",\"method\":\"m\"}");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.id().value()).isEqualTo(big);
    assertThat(r.idSpan().length()).isEqualTo(big.length() + 2);
  }

  @Test
  @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void hugeExponentIdDoesNotExplode() throws Exception {
    // A short id whose plain decimal form would be a billion digits long.
    long start = System.nanoTime();
    Request a = (Request) parse("{\"id\":1e999999999,\"method\":\"m\"}");
    Request b = (Request) parse("{\"id\":10e999999998,\"method\":\"m\"}");
    Request c = (Request) parse("{\"id\":1e999999998,\"method\":\"m\"}");
    assertThat(a.id()).isEqualTo(b.id());
    assertThat(a.id()).isNotEqualTo(c.id());
    assertThat(a.id().json()).isEqualTo("1e999999999");
    // BigDecimal.toPlainString() here built a 10^9-digit string: seconds and gigabytes
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  @Test
  @Timeout(value = 10, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void longDigitRunIdIsNormalisedQuickly() throws Exception {
    String zeros = "0".repeat(1_000_000);
    long start = System.nanoTime();
    Request a = (Request) parse("{\"id\":1" + zeros + ",\"method\":\"m\"}");
    Request b = (Request) parse("{\"id\":1e1000000,\"method\":\"m\"}");
    assertThat(a.id()).isEqualTo(b.id());
    // stripping the zeros one division at a time (BigDecimal.stripTrailingZeros) took ~30 s
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
  }

  // ---- spans -----------------------------------------------------------------------------

  @Test
  void spansAreExactForEveryValueKind() throws Exception {
    String json =
        "{\"params\":{\"s\":\"a\\\"b\\\\c\\u00e9\",\"n\":-1.25e-3,\"o\":{\"x\":[1,{}]},\"a\":[ 1 , \"two\" ]},"
            + "\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\":12}";
    byte[] bytes = utf8(json);
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.idSpan().text(bytes)).isEqualTo("12");
    assertThat(r.idSpan().end()).isEqualTo(bytes.length - 1);

    var fields = Json.fields(bytes, r.params());
    assertThat(fields.get("s").text(bytes)).isEqualTo("\"a\\\"b\\\\c\\u00e9\"");
    assertThat(fields.get("n").text(bytes)).isEqualTo("-1.25e-3");
    assertThat(fields.get("o").text(bytes)).isEqualTo("{\"x\":[1,{}]}");
    assertThat(fields.get("a").text(bytes)).isEqualTo("[ 1 , \"two\" ]");
  }

  @Test
  void spansAreByteOffsetsWithMultiByteUtf8() throws Exception {
    // é is 2 bytes, 漢 3 bytes, 😀 4 bytes: char offsets and byte offsets differ.
    String json = "{\"params\":{\"k\":\"é漢😀\",\"after\":\"😀\"},\"method\":\"é\",\"id\":\"漢😀\"}";
    byte[] bytes = utf8(json);
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.method()).isEqualTo("é");
    assertThat(r.id().value()).isEqualTo("漢😀");
    assertThat(r.idSpan().text(bytes)).isEqualTo("\"漢😀\"");
    assertThat(r.params().text(bytes)).isEqualTo("{\"k\":\"é漢😀\",\"after\":\"😀\"}");
    assertThat(Json.field(bytes, r.params(), "after").text(bytes)).isEqualTo("\"😀\"");
    assertThat(Json.string(bytes, Json.field(bytes, r.params(), "k"))).isEqualTo("é漢😀");
  }

  @Test
  void numberAtEndOfObjectAndBeforeWhitespace() throws Exception {
    for (String json :
        new String[] {
          "{\"method\":\"m\",\"id\":12}",
          "{\"method\":\"m\",\"id\":12 }",
          "{\"method\":\"m\",\"id\":12\n}",
          "{\"method\":\"m\",\"id\":12,\"x\":1}",
          "{\"method\":\"m\",\"id\":-0.5E+10}",
        }) {
      byte[] bytes = utf8(json);
      Request r = (Request) JsonRpcCodec.parse(bytes);
      String expected = json.substring(json.indexOf("\"id\":") + 5).replaceAll("[ \n,}].*$", "");
      assertThat(r.idSpan().text(bytes)).as(json).isEqualTo(expected);
    }
  }

  @Test
  void paramsSpanAtEndOfObjectIsExact() throws Exception {
    byte[] bytes = utf8("{\"id\":1,\"method\":\"m\",\"params\":123}");
    Request r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.params().text(bytes)).isEqualTo("123");
    bytes = utf8("{\"id\":1,\"method\":\"m\",\"params\":\"x\"}");
    r = (Request) JsonRpcCodec.parse(bytes);
    assertThat(r.params().text(bytes)).isEqualTo("\"x\"");
  }

  @Test
  void anUnusedMemberWrittenAsNullIsReadAsAbsent() throws Exception {
    var withNullError = JsonRpcCodec.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":null}".getBytes(StandardCharsets.UTF_8));
    assertThat(withNullError).isInstanceOf(Response.class);
    assertThat(((Response) withNullError).isError()).isFalse();
    var withNullResult = JsonRpcCodec.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null,\"error\":{\"code\":1,\"message\":\"m\"}}".getBytes(StandardCharsets.UTF_8));
    assertThat(((Response) withNullResult).isError()).isTrue();
    var nullResult = JsonRpcCodec.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":null}".getBytes(StandardCharsets.UTF_8));
    assertThat(((Response) nullResult).isError()).isFalse();
    var both = JsonRpcCodec.parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"error\":{\"code\":1,\"message\":\"m\"}}".getBytes(StandardCharsets.UTF_8));
    assertThat(both).isInstanceOf(Invalid.class);
  }
}
