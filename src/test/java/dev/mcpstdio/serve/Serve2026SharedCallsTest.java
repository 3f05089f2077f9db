package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The calls of a 2026-era client that declares nothing a 2025-era child could ask (no
 * elicitation, sampling or roots) need no reverse MRTR bridge: they share their child, as a 2025
 * session's calls do, and a question the child puts while several of them are in flight is
 * refused without failing any of them.
 */
class Serve2026SharedCallsTest {

  /**
   * A 2025-era child: {@code hold} is answered only once a {@code release} call comes; {@code
   * release} first asks a sampling question (logging the gateway's refusal on stderr), then both
   * calls are answered.
   */
  private static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      read -r init; id=$(id_of "$init")
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{}},"serverInfo":{"name":"sh-shared","version":"1"}}}\\n' "$id"
      while read -r line; do
        id=$(id_of "$line")
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"prompts/list"'*)
            printf '%s\n' '{"jsonrpc":"2.0","id":"q-list","method":"roots/list"}'
            read -r refused; printf 'refused %s\n' "$refused" >&2
            printf '{"jsonrpc":"2.0","id":%s,"result":{"prompts":[]}}\n' "$id" ;;
          *'"name":"hold"'*) held=$id; printf 'holding %s\\n' "$id" >&2 ;;
          *'"name":"release"'*)
            printf '%s\\n' '{"jsonrpc":"2.0","id":"q-shared","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}'
            read -r refused; printf 'refused %s\\n' "$refused" >&2
            printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"held"}]}}\\n' "$held"
            printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"released"}]}}\\n' "$id" ;;
          *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\\n' "$id" ;;
        esac
      done
      """;

  private static String call(int id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{},"
        + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
  }

  private static HttpResponse<String> post(ServeHarness serve, int id, String tool) {
    try {
      return serve.post(null, call(id, tool), false, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
          "Mcp-Name", tool);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void callsOfAClientThatCanBeAskedNothingShareTheirChildAndAQuestionAmongThemFailsNone() throws Exception {
    // one child per principal: calls that each held a child of their own could not both reach it
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 2)))) {
      CompletableFuture<HttpResponse<String>> held = CompletableFuture.supplyAsync(() -> post(serve, 1, "hold"));
      Await.until("the first call to reach the child", Duration.ofSeconds(15), () -> serve.log().contains("holding "));
      HttpResponse<String> released = post(serve, 2, "release");
      assertThat(released.statusCode()).isEqualTo(200);
      assertThat(released.body()).contains("\"id\":2,\"result\"", "released");
      HttpResponse<String> first = held.get(15, TimeUnit.SECONDS);
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.body()).contains("\"id\":1,\"result\"", "held");
      Await.until("the refusal on the child's stderr", Duration.ofSeconds(10), () -> serve.log().contains("refused "));
      assertThat(serve.log()).contains("\"id\":\"q-shared\",\"error\":{\"code\":-32601,\"message\":\"the client did not declare"
          + " the capability sampling\"}");
    }
  }

  @Test
  void aQuestionDuringAListingFailsNoCall() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD)))) {
      HttpResponse<String> listed = serve.post(null, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/list\",\"params\":"
          + "{\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}",
          false, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "prompts/list");
      assertThat(listed.statusCode()).isEqualTo(200);
      assertThat(listed.body()).contains("\"id\":3,\"result\"", "\"prompts\":[]").doesNotContain("-32021");
      Await.until("the refusal on the child's stderr", Duration.ofSeconds(10), () -> serve.log().contains("refused "));
      assertThat(serve.log()).contains("\"id\":\"q-list\",\"error\":{\"code\":-32601,\"message\":\"the client did not declare"
          + " the capability roots\"}");
    }
  }
}
