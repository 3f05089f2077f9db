package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SessionLinkTest {

  static HttpHeaders headers(String name, String... values) {
    return HttpHeaders.of(Map.of(name, List.of(values)), (a, b) -> true);
  }

  static Response resp(String json) throws Exception {
    return (Response) JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void sessionIdIsReadCaseInsensitively() {
    assertThat(SessionLink.sessionIdOf(headers("Mcp-Session-Id", "abc-123"))).isEqualTo("abc-123");
    assertThat(SessionLink.sessionIdOf(headers("MCP-SESSION-ID", "x"))).isEqualTo("x");
    assertThat(SessionLink.sessionIdOf(headers("Other", "x"))).isNull();
    assertThat(SessionLink.sessionIdOf(HttpHeaders.of(Map.of(), (a, b) -> true))).isNull();
  }

  @Test
  void firstSessionIdValueIsUsed() {
    assertThat(SessionLink.sessionIdOf(headers("mcp-session-id", "first", "second"))).isEqualTo("first");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a b", "a\tb", "é", "id\u007f", "a\u0000b"})
  void sessionIdMustBeVisibleAscii(String id) {
    assertThat(SessionLink.sessionIdOf(headers("mcp-session-id", id))).isNull();
  }

  @Test
  void protocolVersionFromInitializeResult() throws Exception {
    assertThat(SessionLink.protocolVersionOf(resp("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-06-18\",\"capabilities\":{}}}")))
        .isEqualTo("2025-06-18");
    assertThat(SessionLink.protocolVersionOf(resp("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025\\u002d03-26\"}}")))
        .isEqualTo("2025-03-26");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":20250618}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025 06 18\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"v\\r\\nX-Evil: 1\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"é\"}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"nested\":{\"protocolVersion\":\"2025-06-18\"}}}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"2025-06-18\"}",
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":1,\"message\":\"m\",\"data\":{\"protocolVersion\":\"x\"}}}",
      })
  void unusableProtocolVersionsAreNull(String json) throws Exception {
    assertThat(SessionLink.protocolVersionOf(resp(json))).isNull();
  }

  @Test
  void nullAnswer() {
    assertThat(SessionLink.protocolVersionOf(null)).isNull();
  }
}
