package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class PaginateListsTest {

  static Request req(String params) throws Exception {
    String json = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"" + (params == null ? "" : ",\"params\":" + params) + "}";
    return (Request) JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  static Response resp(String result) throws Exception {
    return (Response) JsonRpcCodec.parse(("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":" + result + "}").getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void unpaged() throws Exception {
    assertThat(PaginateLists.unpaged(req(null))).isTrue();
    assertThat(PaginateLists.unpaged(req("{}"))).isTrue();
    assertThat(PaginateLists.unpaged(req("{\"_meta\":{\"cursor\":\"x\"}}"))).isTrue(); // nested cursor is not a cursor
    assertThat(PaginateLists.unpaged(req("{\"cursor\":\"abc\"}"))).isFalse();
    assertThat(PaginateLists.unpaged(req("{\"cursor\":null}"))).isFalse(); // the host chose to page
    assertThat(PaginateLists.unpaged(req("{\"cursor\":\"\"}"))).isFalse();
    assertThat(PaginateLists.unpaged(req("null"))).isFalse(); // not an object: passed through untouched
    assertThat(PaginateLists.unpaged(req("[]"))).isFalse();
  }

  @Test
  void nextCursor() throws Exception {
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[],\"nextCursor\":\"c\\u0031\"}"))).isEqualTo("c1");
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[]}"))).isNull();
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[],\"nextCursor\":\"\"}"))).isNull();
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[],\"nextCursor\":null}"))).isNull();
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[],\"nextCursor\":5}"))).isNull();
    assertThat(PaginateLists.nextCursor(resp("{\"tools\":[],\"_meta\":{\"nextCursor\":\"x\"}}"))).isNull();
    assertThat(PaginateLists.nextCursor(resp("[1]"))).isNull();
  }

  @Test
  void listFields() {
    assertThat(PaginateLists.LIST_FIELDS)
        .containsExactlyInAnyOrderEntriesOf(
            java.util.Map.of(
                "tools/list", "tools",
                "resources/list", "resources",
                "resources/templates/list", "resourceTemplates",
                "prompts/list", "prompts"));
  }
}
