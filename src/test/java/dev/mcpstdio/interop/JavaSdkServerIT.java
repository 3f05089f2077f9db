package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import io.modelcontextprotocol.spec.McpError;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Interop: official Java SDK stdio client (the host) → packaged relay jar → official Java SDK
 * Streamable HTTP server. Everything a host does in a session must work through the relay in both
 * directions, including the server's own requests (sampling, elicitation) answered by the host.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class JavaSdkServerIT {

  private static JavaSdkServer server;

  @BeforeAll
  static void startServer() {
    server = new JavaSdkServer();
  }

  @AfterAll
  static void stopServer() {
    if (server != null) {
      server.close();
    }
  }

  /** The relay under the host, with default settings. */
  private static RelayHost spawn() {
    return RelayHost.spawn(server.url().toString());
  }

  private static McpSchema.CallToolResult call(RelayHost host, String tool, Map<String, Object> args) {
    return host.client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).as("tool result isError").isNotEqualTo(Boolean.TRUE);
    assertThat(result.content()).hasSize(1);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  @Test
  void initializeNegotiatesAndDiscoveryListsEverything() {
    try (RelayHost host = spawn()) {
      McpSchema.InitializeResult init = host.client.initialize();

      assertThat(init.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(init.serverInfo().name()).isEqualTo(JavaSdkServer.NAME);
      assertThat(init.serverInfo().version()).isEqualTo(JavaSdkServer.VERSION);
      assertThat(init.capabilities().tools()).isNotNull();
      assertThat(init.capabilities().resources()).isNotNull();
      assertThat(init.capabilities().prompts()).isNotNull();

      McpSchema.ListToolsResult tools = host.client.listTools(McpSchema.FIRST_PAGE);
      assertThat(tools.tools()).extracting(McpSchema.Tool::name)
          .containsExactlyInAnyOrder("echo", "add", "progress", "gate", "sample", "elicit");
      assertThat(tools.nextCursor()).isNull();

      McpSchema.ListResourcesResult resources = host.client.listResources(McpSchema.FIRST_PAGE);
      assertThat(resources.resources()).extracting(McpSchema.Resource::uri).containsExactly("test://hello");
      McpSchema.ReadResourceResult read = host.client.readResource(new McpSchema.ReadResourceRequest("test://hello"));
      assertThat(read.contents()).singleElement()
          .isInstanceOfSatisfying(McpSchema.TextResourceContents.class,
              c -> assertThat(c.text()).isEqualTo("hello from java"));

      McpSchema.ListPromptsResult prompts = host.client.listPrompts(McpSchema.FIRST_PAGE);
      assertThat(prompts.prompts()).extracting(McpSchema.Prompt::name).containsExactly("greet");
      McpSchema.GetPromptResult prompt =
          host.client.getPrompt(new McpSchema.GetPromptRequest("greet", Map.of("name", "relay")));
      assertThat(prompt.messages()).singleElement()
          .satisfies(m -> assertThat(((McpSchema.TextContent) m.content()).text()).isEqualTo("Hello, relay!"));

      assertThat(host.client.ping()).isNotNull();
      assertThat(host.stderr).noneMatch(line -> line.contains("internal relay error"));
    }
  }

  @Test
  void toolCallsReturnTheServersResultsAndErrors() {
    try (RelayHost host = spawn()) {
      host.client.initialize();

      assertThat(text(call(host, "echo", Map.of("text", "héllo wörld ✓ \"quoted\"\n")))).isEqualTo("héllo wörld ✓ \"quoted\"\n");
      assertThat(text(call(host, "add", Map.of("a", 40, "b", 2)))).isEqualTo("42");

      // The server's own error for an unknown tool reaches the host, not one the relay made up.
      Throwable unknown = catchThrowable(() -> call(host, "no-such-tool", Map.of()));
      assertThat(unknown).isInstanceOf(McpError.class);
      McpSchema.JSONRPCResponse.JSONRPCError error = ((McpError) unknown).getJsonRpcError();
      assertThat(error.message()).startsWith("Unknown tool").doesNotContain("upstream");
      assertThat(error.code()).isNotEqualTo(-32000);

      // The session is still usable afterwards.
      assertThat(text(call(host, "echo", Map.of("text", "after")))).isEqualTo("after");
    }
  }

  @Test
  void progressNotificationsReachTheHostsProgressConsumer() {
    try (RelayHost host = spawn()) {
      host.client.initialize();

      McpSchema.CallToolResult result =
          host.client.callTool(
              McpSchema.CallToolRequest.builder().name("progress").arguments(Map.of("steps", 4)).progressToken("tok-7").build());

      assertThat(text(result)).isEqualTo("progressed 4");
      host.await("4 progress notifications", () -> host.progress.size() >= 4);
      assertThat(host.progress).extracting(McpSchema.ProgressNotification::progressToken).containsOnly("tok-7");
      // The SDK client hands notifications to its consumers concurrently, so the host may see them
      // in any order; the relay's own ordering is checked on raw stdout below.
      assertThat(host.progress).extracting(McpSchema.ProgressNotification::progress)
          .containsExactlyInAnyOrder(1.0, 2.0, 3.0, 4.0);
      assertThat(host.progress).extracting(McpSchema.ProgressNotification::total).containsOnly(4.0);
      assertThat(host.progress).extracting(McpSchema.ProgressNotification::message).contains("step 4/4");
    }
  }

  @Test
  void samplingRequestFromTheServerIsAnsweredByTheHost() {
    try (RelayHost host = spawn()) {
      host.client.initialize();

      String answer = text(call(host, "sample", Map.of("text", "what is 2+2?")));

      assertThat(answer).isEqualTo("sampled: what is 2+2? [model=host-model]");
      assertThat(host.samplingRequests).singleElement()
          .satisfies(r -> assertThat(r.maxTokens()).isEqualTo(50));
    }
  }

  @Test
  void elicitationRequestFromTheServerIsAnsweredByTheHost() {
    try (RelayHost host = spawn()) {
      host.client.initialize();

      String answer = text(call(host, "elicit", Map.of()));

      assertThat(answer).isEqualTo("ACCEPT {ok=true}");
      assertThat(host.elicitationRequests).singleElement()
          .satisfies(r -> assertThat(r.message()).isEqualTo("Is it ok?"));
    }
  }

  @Test
  void aBlockedToolCallDoesNotHoldBackAConcurrentOne() throws Exception {
    server.gateEntered = new CountDownLatch(1);
    server.release = new CountDownLatch(1);
    try (RelayHost host = spawn()) {
      host.client.initialize();

      CompletableFuture<McpSchema.CallToolResult> gated =
          CompletableFuture.supplyAsync(() -> call(host, "gate", Map.of()));
      assertThat(server.gateEntered.await(20, TimeUnit.SECONDS)).as("gate tool entered").isTrue();

      // The gate is still closed: the fast call must complete on its own.
      assertThat(text(call(host, "echo", Map.of("text", "fast")))).isEqualTo("fast");
      assertThat(gated).isNotDone();

      server.release.countDown();
      assertThat(text(gated.get(20, TimeUnit.SECONDS))).isEqualTo("released");
    } finally {
      server.release.countDown();
    }
  }

  @Test
  void closingTheHostEndsTheRelayCleanlyAndDeletesTheSession() {
    int before = server.hits.size();
    try (RelayHost host = spawn()) {
      host.client.initialize();
      assertThat(text(call(host, "echo", Map.of("text", "x")))).isEqualTo("x");
      String session =
          hitsSince(before).stream()
              .filter(h -> h.method().equals("POST") && h.sessionId() != null)
              .map(JavaSdkServer.Hit::sessionId)
              .reduce((a, b) -> b)
              .orElseThrow(() -> new AssertionError("no POST carried Mcp-Session-Id: " + server.hits));

      int exit = host.closeAndAwaitExit();

      assertThat(exit).as("relay exit code; stderr:\n" + String.join("\n", host.stderr)).isZero();
      assertThat(host.process().isAlive()).isFalse();
      assertThat(hitsSince(before))
          .contains(new JavaSdkServer.Hit("DELETE", session, null));
    }
  }

  /** A snapshot of the hits after the first {@code from}: the server goes on recording. */
  private static List<JavaSdkServer.Hit> hitsSince(int from) {
    List<JavaSdkServer.Hit> all = List.copyOf(server.hits);
    return all.subList(from, all.size());
  }

  /**
   * The relay's own ordering: one SSE response carries the progress notifications and then the
   * result; stdout must keep that order.
   */
  @Test
  void progressAndResultKeepTheServersOrderOnStdout() {
    try (JarProcess relay = JarProcess.start(List.of(server.url().toString()))) {
      relay.send(INITIALIZE);
      assertThat(Jsons.parse(relay.stdout.next(Duration.ofSeconds(15))).get("id").asInt()).isEqualTo(1);
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\","
          + "\"arguments\":{\"steps\":5},\"_meta\":{\"progressToken\":\"order\"}}}");

      List<Double> progress = new ArrayList<>();
      JsonNode message;
      while (!(message = Jsons.parse(relay.stdout.next(Duration.ofSeconds(20)))).has("id")) {
        assertThat(message.get("method").asString()).isEqualTo("notifications/progress");
        progress.add(message.get("params").get("progress").asDouble());
      }
      assertThat(message.get("id").asInt()).isEqualTo(2);
      assertThat(message.get("result").get("content").get(0).get("text").asString()).isEqualTo("progressed 5");
      assertThat(progress).containsExactly(1.0, 2.0, 3.0, 4.0, 5.0);
      relay.closeStdin();
      assertThat(relay.awaitExit(Duration.ofSeconds(15))).isZero();
    }
  }

  /**
   * The Java SDK server commits its GET response only when it has an event to send, so the relay
   * cannot see the stream open: discovery and the first tool calls must still go through (each
   * tool call waits at most the one bounded second, once). How long they take is not asserted
   * here, since a wall-clock limit fails on a busy machine; that discovery does not spend the wait
   * is shown with a lower bound by {@code QuietServerStreamComponentTest}.
   */
  @Test
  void theFirstRequestsAfterTheHandshakeAreNotHeldBackByAQuietGetStream() {
    try (RelayHost host = RelayHost.spawn(server.url().toString())) {
      host.client.initialize();
      assertThat(host.client.listTools().tools()).isNotEmpty();
      assertThat(text(call(host, "echo", Map.of("text", "first")))).isEqualTo("first");
      assertThat(text(call(host, "echo", Map.of("text", "second")))).isEqualTo("second");
    }
  }

  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}";
}
