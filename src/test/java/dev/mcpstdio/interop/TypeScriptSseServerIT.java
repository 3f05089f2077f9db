package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.spec.McpSchema;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.RelayHarness;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Interop: the official Java SDK stdio host → packaged relay jar → the official TypeScript SDK's
 * legacy HTTP+SSE server (npm, pinned). Both {@code --transport sse} and the default {@code auto}
 * must reach it, and a stream the server drops mid-call must cost exactly one error.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class TypeScriptSseServerIT {

  private static String text(McpSchema.CallToolResult result) {
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  private static void session(RelayHost host) {
    McpSchema.InitializeResult init = host.client.initialize();
    assertThat(init.serverInfo().name()).isEqualTo("mcpstdio-ts-sse");
    assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "legacy"))))).isEqualTo("legacy");
    assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("slow", Map.of("ms", 10, "steps", 3),
        Map.of("progressToken", "ts"))))).isEqualTo("done");
    host.await("three progress notifications", () -> host.progress.size() == 3);
    assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("sample", Map.of("prompt", "hi")))))
        .isEqualTo("sampled: hi");
  }

  @Test
  void theRelayReachesATypeScriptSseServerWithTransportSse() {
    try (NodePeer peer = NodePeer.script("sse-server.mjs", List.of("0"));
        RelayHost host = RelayHost.spawn("http://127.0.0.1:" + peer.port + "/sse", "--transport", "sse")) {
      session(host);
    }
  }

  @Test
  void autoFallsBackToHttpSseOnItsOwn() {
    try (NodePeer peer = NodePeer.script("sse-server.mjs", List.of("0"));
        RelayHost host = RelayHost.spawn("http://127.0.0.1:" + peer.port + "/sse")) {
      session(host);
      assertThat(String.join("\n", host.stderr)).contains("transport: HTTP+SSE");
    }
  }

  /**
   * Spoken as raw lines rather than through the SDK client, which would quietly ignore a second
   * answer for an id it has done with: every stdout line is counted, so an answer for the dropped
   * call written twice (by the stream loss and by the call's own wait) fails the test. The relay
   * writes in order, so counting after a later request's answer sees whatever came before it.
   */
  @Test
  void aStreamDroppedMidCallCostsExactlyOneErrorForTheCall() throws Exception {
    try (NodePeer peer = NodePeer.script("sse-server.mjs", List.of("0"));
        JarProcess relay = JarProcess.start(List.of("--transport", "sse", "http://127.0.0.1:" + peer.port + "/sse"))) {
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-host\",\"version\":\"1\"}}}");
      assertThat(relay.stdout.nextMatching(l -> RelayHarness.hasId(l, "1"), WAIT)).as(relay.log()).contains("\"result\"");
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
          + "\"arguments\":{\"ms\":200,\"steps\":100},\"_meta\":{\"progressToken\":\"k\"}}}");
      relay.stdout.nextMatching(l -> l.contains("notifications/progress"), WAIT);
      HttpResponse<String> killed = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + peer.port + "/kill")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(killed.body()).isEqualTo("1");
      String error = relay.stdout.nextMatching(l -> RelayHarness.hasId(l, "2"), WAIT);
      assertThat(error).contains("\"error\"").contains("SSE stream disconnected");
      // the relay reconnects to a new server session and initializes it again before going on
      Await.until("the new session to be initialized", WAIT,
          () -> relay.log().contains("the server's new session was initialized again"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
          + "\"arguments\":{\"text\":\"after\"}}}");
      assertThat(relay.stdout.nextMatching(l -> RelayHarness.hasId(l, "3"), WAIT)).contains("after");
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "2")))
          .as("answers for the dropped call").containsExactly(error);
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "3"))).hasSize(1);
    }
  }

  private static final Duration WAIT = Duration.ofSeconds(30);
}
