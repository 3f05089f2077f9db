package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class RewritesTest {

  static Request req(String json) throws Exception {
    return (Request) JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  static Response resp(String json) throws Exception {
    return (Response) JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  static String s(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void withIdOnRequestReplacesOnlyTheId() throws Exception {
    Request r = req("{ \"jsonrpc\":\"2.0\", \"id\" : 1.0 ,\"method\":\"tools/list\",\"params\":{\"id\":5}}");
    JsonRpcId id = JsonRpcId.relayOwned("mcp-stdio/page-7");
    Request out = Rewrites.withId(r, id);
    assertThat(s(out.bytes()))
        .isEqualTo("{ \"jsonrpc\":\"2.0\", \"id\" : \"mcp-stdio/page-7\" ,\"method\":\"tools/list\",\"params\":{\"id\":5}}");
    assertThat(out.id()).isEqualTo(id);
    assertThat(out.idSpan().text(out.bytes())).isEqualTo("\"mcp-stdio/page-7\"");
    assertThat(out.params().text(out.bytes())).isEqualTo("{\"id\":5}");
    assertThat(out.method()).isEqualTo("tools/list");
  }

  @Test
  void withIdOnResponseRestoresTheHostsSpelling() throws Exception {
    Response r = resp("{\"jsonrpc\":\"2.0\",\"result\":{\"id\":\"inner\"},\"id\":\"mcp-stdio/page-1\"}");
    JsonRpcId host = JsonRpcId.ofString("\"\\u0061bc\"", "abc");
    Response out = Rewrites.withId(r, host);
    assertThat(s(out.bytes())).isEqualTo("{\"jsonrpc\":\"2.0\",\"result\":{\"id\":\"inner\"},\"id\":\"\\u0061bc\"}");
    assertThat(out.id()).isEqualTo(host);
    assertThat(out.result().text(out.bytes())).isEqualTo("{\"id\":\"inner\"}");
  }

  @Test
  void withIdOnIdNullErrorResponse() throws Exception {
    Response r = resp("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":1,\"message\":\"m\"}}");
    Response out = Rewrites.withId(r, JsonRpcId.ofNumber("12"));
    assertThat(s(out.bytes())).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":12,\"error\":{\"code\":1,\"message\":\"m\"}}");
    assertThat(out.isError()).isTrue();
  }

  @Test
  void withParamReplacesAnExistingMember() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"old\",\"x\":[1, 2]}}");
    Request out = Rewrites.withParam(r, "cursor", Json.quote("new"));
    assertThat(s(out.bytes())).isEqualTo("{\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"new\",\"x\":[1, 2]}}");
    assertThat(Json.string(out.bytes(), Json.field(out.bytes(), out.params(), "cursor"))).isEqualTo("new");
  }

  @Test
  void withParamAppendsToNonEmptyParams() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{} }, \"z\":0}");
    Request out = Rewrites.withParam(r, "protocolVersion", "\"2025-06-18\"");
    assertThat(s(out.bytes()))
        .isEqualTo("{\"id\":1,\"method\":\"initialize\",\"params\":{\"capabilities\":{} ,\"protocolVersion\":\"2025-06-18\"}, \"z\":0}");
  }

  @Test
  void withParamIntoEmptyParamsObject() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"tools/list\",\"params\":{ }}");
    Request out = Rewrites.withParam(r, "cursor", "\"c\"");
    assertThat(s(out.bytes())).isEqualTo("{\"id\":1,\"method\":\"tools/list\",\"params\":{ \"cursor\":\"c\"}}");
    assertThat(Json.fields(out.bytes(), out.params())).containsOnlyKeys("cursor");
  }

  @Test
  void withParamCreatesParams() throws Exception {
    Request r = req("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}  ");
    Request out = Rewrites.withParam(r, "cursor", "\"c\\\"1\"");
    assertThat(s(out.bytes())).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c\\\"1\"}}  ");
    assertThat(Json.string(out.bytes(), Json.field(out.bytes(), out.params(), "cursor"))).isEqualTo("c\"1");
  }

  @Test
  void withParamWhenParamsIsNotAnObject() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"initialize\",\"params\":null}");
    Request out = Rewrites.withParam(r, "protocolVersion", "\"v\"");
    assertThat(s(out.bytes())).isEqualTo("{\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"v\"}}");
  }

  @Test
  void withParamNameIsQuoted() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"m\",\"params\":{}}");
    Request out = Rewrites.withParam(r, "we\"ird", "1");
    assertThat(Json.fields(out.bytes(), out.params())).containsOnlyKeys("we\"ird");
  }

  @Test
  void nestedMemberWithTheSameNameIsNotReplaced() throws Exception {
    Request r = req("{\"id\":1,\"method\":\"m\",\"params\":{\"inner\":{\"cursor\":\"keep\"}}}");
    Request out = Rewrites.withParam(r, "cursor", "\"top\"");
    assertThat(s(out.bytes())).isEqualTo("{\"id\":1,\"method\":\"m\",\"params\":{\"inner\":{\"cursor\":\"keep\"},\"cursor\":\"top\"}}");
  }

  @Test
  void isRelayOwned() {
    assertThat(Rewrites.isRelayOwned(JsonRpcId.relayOwned("mcp-stdio/x"))).isTrue();
    assertThat(Rewrites.isRelayOwned(JsonRpcId.ofString("\"mcp-stdio\\/x\"", "mcp-stdio/x"))).isTrue();
    assertThat(Rewrites.isRelayOwned(JsonRpcId.ofString("\"mcp-stdiox\"", "mcp-stdiox"))).isFalse();
    assertThat(Rewrites.isRelayOwned(JsonRpcId.ofNumber("1"))).isFalse();
    assertThat(Rewrites.isRelayOwned(null)).isFalse();
  }
}
