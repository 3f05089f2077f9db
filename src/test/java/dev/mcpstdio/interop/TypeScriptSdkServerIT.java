package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;

/**
 * Interop: official Java SDK stdio client (the host) → packaged relay jar → the official
 * TypeScript SDK's Streamable HTTP server ({@code src/test/node/streamable-server.mjs}), in its
 * SSE and JSON response modes, with resumable event streams, and with a paginated tools/list.
 *
 * <p>In JSON mode the peer cannot put server messages on the POST's response, so progress,
 * sampling and elicitation travel on the relay's GET stream: those tests also prove the relay opens
 * that stream before it sends the host's next message.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TypeScriptSdkServerIT {

  static final String SERVER_NAME = "mcpstdio-ts-interop";
  static final List<String> TOOLS = List.of("echo", "add", "slow", "sample", "elicit", "big", "notify_later");

  private static McpSchema.CallToolResult call(RelayHost host, String tool, Map<String, Object> args) {
    return host.client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).as("tool result isError: " + result).isNotEqualTo(Boolean.TRUE);
    assertThat(result.content()).hasSize(1);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  private static String why(RelayHost host, NodePeer peer) {
    return "\nrelay stderr:\n" + String.join("\n", host.stderr) + "\npeer stderr:\n" + peer.log();
  }

  private static void closeCleanly(RelayHost host, NodePeer peer) {
    assertThat(host.closeAndAwaitExit()).as("relay exit code" + why(host, peer)).isZero();
  }

  @ParameterizedTest(name = "{0} responses")
  @ValueSource(strings = {"sse", "json"})
  void discoveryAndToolCalls(String mode) {
    try (NodePeer peer = NodePeer.start(mode); RelayHost host = RelayHost.spawn(peer.url())) {
      McpSchema.InitializeResult init = host.client.initialize();
      assertThat(init.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(init.serverInfo().name()).isEqualTo(SERVER_NAME);
      assertThat(init.serverInfo().version()).isEqualTo("1.0.0");
      assertThat(init.capabilities().logging()).isNotNull();

      McpSchema.ListToolsResult tools = host.client.listTools(McpSchema.FIRST_PAGE);
      assertThat(tools.tools()).extracting(McpSchema.Tool::name).containsExactlyElementsOf(TOOLS);
      assertThat(tools.nextCursor()).isNull();

      assertThat(host.client.listResources(McpSchema.FIRST_PAGE).resources())
          .extracting(McpSchema.Resource::uri).containsExactly("test://hello");
      assertThat(host.client.readResource(new McpSchema.ReadResourceRequest("test://hello")).contents())
          .singleElement()
          .isInstanceOfSatisfying(McpSchema.TextResourceContents.class, c -> assertThat(c.text()).isEqualTo("hello"));
      assertThat(host.client.listPrompts(McpSchema.FIRST_PAGE).prompts())
          .extracting(McpSchema.Prompt::name).containsExactly("greet");
      assertThat(host.client.getPrompt(new McpSchema.GetPromptRequest("greet", Map.of("name", "relay"))).messages())
          .singleElement()
          .satisfies(m -> assertThat(((McpSchema.TextContent) m.content()).text()).isEqualTo("Hello, relay!"));

      assertThat(text(call(host, "echo", Map.of("text", "héllo ✓ \"q\"\n")))).isEqualTo("héllo ✓ \"q\"\n");
      assertThat(text(call(host, "add", Map.of("a", 40, "b", 2.5)))).isEqualTo("42.5");
      assertThat(host.client.ping()).isNotNull();

      closeCleanly(host, peer);
    }
  }

  @ParameterizedTest(name = "{0} responses")
  @ValueSource(strings = {"sse", "json"})
  void serverMessagesReachTheHostAndItsAnswersReachTheServer(String mode) {
    try (NodePeer peer = NodePeer.start(mode); RelayHost host = RelayHost.spawn(peer.url())) {
      host.client.initialize();
      serverMessages(host, peer);
      closeCleanly(host, peer);
    }
  }

  /** Progress, sampling, elicitation and a GET-stream logging message, end to end. */
  private static void serverMessages(RelayHost host, NodePeer peer) {
    McpSchema.CallToolResult slow =
        host.client.callTool(
            McpSchema.CallToolRequest.builder().name("slow").arguments(Map.of("ms", 5, "steps", 3))
                .progressToken("ts-progress").build());
    assertThat(text(slow)).isEqualTo("done");
    host.await("3 progress notifications", () -> host.progress.size() >= 3);
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progressToken).containsOnly("ts-progress");
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progress)
        .containsExactlyInAnyOrder(1.0, 2.0, 3.0);

    assertThat(text(call(host, "sample", Map.of("prompt", "capital of France?"))))
        .as("sampling answered by the host" + why(host, peer))
        .isEqualTo("sampled: capital of France?");
    assertThat(host.samplingRequests).singleElement().satisfies(r -> assertThat(r.maxTokens()).isEqualTo(100));

    JsonNode elicited = Jsons.parse(text(call(host, "elicit", Map.of())));
    assertThat(elicited.get("action").asString()).isEqualTo("accept");
    assertThat(elicited.get("content").get("ok").asBoolean()).isTrue();
    assertThat(host.elicitationRequests).singleElement().satisfies(r -> assertThat(r.message()).isEqualTo("Is it ok?"));

    assertThat(text(call(host, "notify_later", Map.of("delayMs", 10, "text", "from the GET stream")))).isEqualTo("ok");
    host.await("the notify_later logging notification", () -> !host.logs.isEmpty());
    assertThat(host.logs).singleElement().satisfies(n -> {
      assertThat(n.level()).isEqualTo(McpSchema.LoggingLevel.INFO);
      assertThat(n.logger()).isEqualTo("notify_later");
      assertThat(String.valueOf(n.data())).contains("from the GET stream");
    });
  }

  @ParameterizedTest(name = "{0} responses")
  @ValueSource(strings = {"sse", "json"})
  void aOneMebibyteResultPassesIntact(String mode) {
    try (NodePeer peer = NodePeer.start(mode); RelayHost host = RelayHost.spawn(peer.url())) {
      host.client.initialize();
      String big = text(call(host, "big", Map.of("bytes", 1 << 20)));
      assertThat(big).hasSize(1 << 20);
      assertThat(big.chars().allMatch(c -> c == 'x')).isTrue();
      assertThat(text(call(host, "echo", Map.of("text", "after")))).isEqualTo("after");
      closeCleanly(host, peer);
    }
  }

  @Test
  void resumableEventStreamsWork() {
    try (NodePeer peer = NodePeer.start("sse", "resumable"); RelayHost host = RelayHost.spawn(peer.url())) {
      host.client.initialize();
      assertThat(text(call(host, "echo", Map.of("text", "resumable")))).isEqualTo("resumable");
      serverMessages(host, peer);
      closeCleanly(host, peer);
    }
  }

  /**
   * Resumable streams carry ids and priming events with empty data: none of that may reach the
   * host as a line of its own, and every message arrives exactly once.
   */
  @Test
  void resumableStreamsLeaveOnlyJsonRpcOnStdout() {
    try (NodePeer peer = NodePeer.start("sse", "resumable");
        JarProcess relay = JarProcess.start(List.of(peer.url()))) {
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw\",\"version\":\"1\"}}}");
      assertThat(Jsons.parse(relay.stdout.next(Duration.ofSeconds(15))).get("id").asInt()).isEqualTo(1);
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
          + "\"arguments\":{\"ms\":5,\"steps\":3},\"_meta\":{\"progressToken\":\"p\"}}}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"e\"}}}");

      List<JsonNode> seen = new ArrayList<>();
      while (seen.stream().filter(m -> m.has("id")).count() < 2) {
        seen.add(Jsons.parse(relay.stdout.next(Duration.ofSeconds(15))));
      }
      relay.closeStdin();
      assertThat(relay.awaitExit(Duration.ofSeconds(15))).isZero();

      List<String> lines = relay.stdout.snapshot();
      assertThat(relay.stdout.unterminatedBytes()).isZero();
      for (String line : lines) {
        JsonNode node = Jsons.parse(line);
        assertThat(node.get("jsonrpc").asString()).as(line).isEqualTo("2.0");
      }
      List<String> progress = lines.stream().filter(l -> l.contains("notifications/progress")).toList();
      assertThat(progress).hasSize(3);
      assertThat(lines.stream().filter(l -> l.contains("\"id\":2")).count()).isEqualTo(1);
      assertThat(lines.stream().filter(l -> l.contains("\"id\":3")).count()).isEqualTo(1);
      // Progress for id 2 is written before id 2's result (same stream, server order).
      int lastProgress = lines.lastIndexOf(progress.getLast());
      int result2 = lines.indexOf(lines.stream().filter(l -> l.contains("\"id\":2")).findFirst().orElseThrow());
      assertThat(lastProgress).isLessThan(result2);
    }
  }

  @Test
  void pagedToolsListIsMergedForAHostThatAsksOnce() {
    try (NodePeer peer = NodePeer.start("sse", "paged"); RelayHost host = RelayHost.spawn(peer.url())) {
      host.client.initialize();

      // One tools/list without a cursor; the peer serves 3 tools a page.
      McpSchema.ListToolsResult tools = host.client.listTools(McpSchema.FIRST_PAGE);

      assertThat(tools.tools()).extracting(McpSchema.Tool::name).containsExactlyElementsOf(TOOLS);
      assertThat(tools.nextCursor()).isNull();
      assertThat(text(call(host, "add", Map.of("a", 1, "b", 2)))).isEqualTo("3");
      closeCleanly(host, peer);
    }
  }
}
