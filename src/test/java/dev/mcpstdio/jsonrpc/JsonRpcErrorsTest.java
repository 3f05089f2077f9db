package dev.mcpstdio.jsonrpc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonRpcErrorsTest {

  static Response parse(byte[] bytes) throws MalformedMessageException {
    JsonRpcMessage m = JsonRpcCodec.parse(bytes);
    assertThat(m).isInstanceOf(Response.class);
    return (Response) m;
  }

  @Test
  void errorForStringIdEchoesOriginalSpelling() throws Exception {
    JsonRpcId id = JsonRpcId.ofString("\"\\u0061\"", "a");
    byte[] bytes = JsonRpcErrors.error(id, ErrorCodes.INVALID_REQUEST, "bad \"thing\"\n here");
    Response r = parse(bytes);
    assertThat(r.id()).isEqualTo(id);
    assertThat(Json.field(bytes, new JsonSpan(0, bytes.length), "id").text(bytes)).isEqualTo("\"\\u0061\"");
    assertThat(r.isError()).isTrue();
    Map<String, JsonSpan> error = Json.fields(bytes, r.error());
    assertThat(error.get("code").text(bytes)).isEqualTo("-32600");
    assertThat(Json.string(bytes, error.get("message"))).isEqualTo("bad \"thing\"\n here");
    assertThat(error).doesNotContainKey("data");
    assertThat(Json.string(bytes, Json.field(bytes, new JsonSpan(0, bytes.length), "jsonrpc"))).isEqualTo("2.0");
    assertThat(new String(bytes, StandardCharsets.UTF_8)).doesNotContain("\n");
  }

  @Test
  void errorForNumericIdKeepsSpelling() throws Exception {
    byte[] bytes = JsonRpcErrors.error(JsonRpcId.ofNumber("1.0"), ErrorCodes.UPSTREAM_ERROR, "m");
    Response r = parse(bytes);
    assertThat(r.id()).isEqualTo(JsonRpcId.ofNumber("1"));
    assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"id\":1.0,");
  }

  @Test
  void errorWithNullIdWritesIdNull() throws Exception {
    byte[] bytes = JsonRpcErrors.error(null, ErrorCodes.PARSE_ERROR, "Parse error");
    Response r = parse(bytes);
    assertThat(r.id()).isNull();
    assertThat(new String(bytes, StandardCharsets.UTF_8)).contains("\"id\":null");
    assertThat(Json.fields(bytes, r.error()).get("code").text(bytes)).isEqualTo("-32700");
  }

  @Test
  void errorWithData() throws Exception {
    byte[] bytes =
        JsonRpcErrors.error(JsonRpcId.ofNumber("3"), -32000, "upstream", "{\"status\":502,\"x\":[1]}");
    Response r = parse(bytes);
    Map<String, JsonSpan> error = Json.fields(bytes, r.error());
    assertThat(error.get("data").text(bytes)).isEqualTo("{\"status\":502,\"x\":[1]}");
    assertThat(error.get("code").text(bytes)).isEqualTo("-32000");
  }

  @Test
  void messageWithUnicodeAndControlCharactersParses() throws Exception {
    String message = "é 😀 \u0000 \u2028 \t";
    byte[] bytes = JsonRpcErrors.error(JsonRpcId.ofNumber("1"), -32603, message);
    Response r = parse(bytes);
    assertThat(Json.string(bytes, Json.fields(bytes, r.error()).get("message"))).isEqualTo(message);
  }
}
