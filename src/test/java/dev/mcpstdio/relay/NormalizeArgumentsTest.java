package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class NormalizeArgumentsTest {

  static JsonRpcMessage msg(String json) throws Exception {
    return JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  static String s(JsonRpcMessage m) {
    return new String(m.bytes(), StandardCharsets.UTF_8);
  }

  @Test
  void nullArgumentsBecomeEmptyObjectWithEveryOtherByteKept() throws Exception {
    String in = "{ \"jsonrpc\" : \"2.0\",\n \"id\":\"é1\", \"method\":\"tools/call\",\"params\":{\"name\":\"t\\u0041\", \"arguments\" :  null , \"_meta\":{}} }";
    JsonRpcMessage out = NormalizeArguments.normalize(msg(in));
    assertThat(s(out)).isEqualTo(in.replace("\"arguments\" :  null ", "\"arguments\" :  {} "));
    assertThat(out).isInstanceOf(Request.class);
    assertThat(((Request) out).id().value()).isEqualTo("é1");
  }

  @ParameterizedTest
  @ValueSource(strings = {"{}", "{\"a\":null}", "[]", "0", "\"null\"", "false"})
  void otherArgumentValuesAreUntouched(String args) throws Exception {
    JsonRpcMessage in = msg("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":" + args + "}}");
    assertThat(NormalizeArguments.normalize(in)).isSameAs(in);
  }

  @Test
  void missingArgumentsAndMissingParamsAreUntouched() throws Exception {
    JsonRpcMessage noArgs = msg("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\"}}");
    assertThat(NormalizeArguments.normalize(noArgs)).isSameAs(noArgs);
    JsonRpcMessage noParams = msg("{\"id\":1,\"method\":\"tools/call\"}");
    assertThat(NormalizeArguments.normalize(noParams)).isSameAs(noParams);
    JsonRpcMessage nullParams = msg("{\"id\":1,\"method\":\"tools/call\",\"params\":null}");
    assertThat(NormalizeArguments.normalize(nullParams)).isSameAs(nullParams);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"id\":1,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\",\"arguments\":null}}",
        "{\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":null}}",
        "{\"id\":1,\"result\":{\"arguments\":null}}",
        "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"\\\"arguments\\\":null\"}}",
        "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"deeper\":{\"arguments\":null}}}",
        "{\"id\":1,\"method\":\"tools/call\",\"arguments\":null,\"params\":{\"name\":\"t\",\"arguments\":{}}}",
        "[{\"id\":1,\"method\":\"tools/call\",\"params\":{\"arguments\":null}}]",
      })
  void otherMessagesAndNestedNullsAreUntouched(String json) throws Exception {
    JsonRpcMessage in = msg(json);
    assertThat(NormalizeArguments.normalize(in)).isSameAs(in);
  }

  @Test
  void onlyTheTopLevelArgumentsChangeWhenNestedOnesAlsoHoldNull() throws Exception {
    String in = "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"x\":{\"arguments\":null},\"arguments\":null,\"s\":\"arguments: null\"}}";
    assertThat(s(NormalizeArguments.normalize(msg(in))))
        .isEqualTo("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"x\":{\"arguments\":null},\"arguments\":{},\"s\":\"arguments: null\"}}");
  }

  @Test
  void aRepeatedArgumentsInSmallParamsCountsByItsLastValue() throws Exception {
    String in = "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"arguments\":{},\"arguments\":null}}";
    assertThat(s(NormalizeArguments.normalize(msg(in))))
        .isEqualTo("{\"id\":1,\"method\":\"tools/call\",\"params\":{\"arguments\":{},\"arguments\":{}}}");
  }

  @Test
  void largeParamsAreJudgedByTheirFirstArgumentsMemberAlone() throws Exception {
    String big = "x".repeat(NormalizeArguments.WHOLE_MAX);
    String nulled = "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":null,\"_meta\":{\"pad\":\"" + big + "\"}}}";
    assertThat(s(NormalizeArguments.normalize(msg(nulled))))
        .isEqualTo(nulled.replace("\"arguments\":null", "\"arguments\":{}"));
    String kept = "{\"id\":1,\"method\":\"tools/call\",\"params\":{\"arguments\":{\"v\":null,\"pad\":\"" + big + "\"}}}";
    JsonRpcMessage keptMessage = msg(kept);
    assertThat(NormalizeArguments.normalize(keptMessage)).isSameAs(keptMessage);
  }
}
