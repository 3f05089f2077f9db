package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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

  @Test
  void aStreamDroppedMidCallCostsExactlyOneErrorForTheCall() throws Exception {
    try (NodePeer peer = NodePeer.script("sse-server.mjs", List.of("0"));
        RelayHost host = RelayHost.spawn("http://127.0.0.1:" + peer.port + "/sse", "--transport", "sse")) {
      host.client.initialize();
      CompletableFuture<Throwable> call = CompletableFuture.supplyAsync(() -> catchThrowable(() -> host.client.callTool(
          new McpSchema.CallToolRequest("slow", Map.of("ms", 200, "steps", 100), Map.of("progressToken", "k")))), dev.mcpstdio.testing.Threads.VIRTUAL);
      host.await("the call to be running", () -> !host.progress.isEmpty());
      HttpResponse<String> killed = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + peer.port + "/kill")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(killed.body()).isEqualTo("1");
      Throwable failure = call.get(30, TimeUnit.SECONDS);
      assertThat(failure).isNotNull().hasMessageContaining("SSE stream disconnected");
      // the relay reconnects to a new server session and initializes it again before going on
      host.await("the new session to be initialized", () -> String.join("\n", host.stderr)
          .contains("the server's new session was initialized again"));
      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "after")))))
          .isEqualTo("after");
    }
  }
}
