package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReplaySafetyTest {

  static Call call(String json) throws Exception {
    return Call.of(JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "initialize", "ping", "server/discover", "tools/list", "resources/list", "resources/templates/list",
        "resources/read", "resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
        "completion/complete", "logging/setLevel",
      })
  void idempotentRequestsMayReplay(String method) throws Exception {
    assertThat(ReplaySafety.mayReplay(call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\"}"))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"tools/call", "sampling/createMessage", "tasks/cancel", "unknown/method", "Tools/List", "ping "})
  void otherRequestsMayNot(String method) throws Exception {
    assertThat(ReplaySafety.mayReplay(call("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"" + method + "\"}"))).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}",
        "{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\"}}",
      })
  void notificationsAndResponsesMayReplay(String json) throws Exception {
    assertThat(ReplaySafety.mayReplay(call(json))).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]",
        "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]",
      })
  void batchesNever(String json) throws Exception {
    assertThat(ReplaySafety.mayReplay(call(json))).isFalse();
  }
}
