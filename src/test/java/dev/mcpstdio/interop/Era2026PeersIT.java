package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.Jsons;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * The 2026-07-28 era fixtures ({@link Era2026Peers}) proved on their own, without the relay, so a
 * relay test that fails through them fails because of the relay: the TypeScript SDK v2 client as a
 * 2026 host straight against the SDK v2 server in both modes, the official Java SDK (2025 era)
 * against the dual server's session-based 2025 leg with real server-to-client requests, a 2025
 * {@code initialize} refused by the 2026-only server, and a closed connection aborting a 2026
 * handler for real.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Era2026PeersIT {

  private static final Duration CLIENT_RUN = Duration.ofSeconds(90);
  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5)).build();

  private static String meta() {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{},"
        + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"era2026-it\",\"version\":\"1\"}}";
  }

  /** One 2026-era tools/call body with the routing headers it needs. */
  private static String toolCall(int id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + arguments + "," + meta() + "}}";
  }

  private static HttpRequest.Builder post2026(String url, String method, String name) {
    return HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15))
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name);
  }

  /** The first text content of a tools/call answered as JSON (the fixture tools used here do not stream). */
  private static String callText(String url, int id, String tool, String arguments) throws Exception {
    HttpResponse<String> response = HTTP.send(
        post2026(url, "tools/call", tool).POST(HttpRequest.BodyPublishers.ofString(toolCall(id, tool, arguments))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode result = Jsons.parse(response.body()).path("result");
    assertThat(result.path("resultType").asString()).as(response.body()).isEqualTo("complete");
    return result.path("content").get(0).path("text").asString();
  }

  @ParameterizedTest(name = "{0} server")
  @EnumSource(Era2026Peers.Mode.class)
  void the2026HostRunsItsWholeScriptAgainstTheServerDirectly(Era2026Peers.Mode mode) {
    try (Era2026Peers.Server server = Era2026Peers.server(mode)) {
      Era2026Peers.ClientRun run = Era2026Peers.clientOverHttp(server.url(), CLIENT_RUN);
      String why = run + "\nserver stderr:\n" + server.log();

      assertThat(run.exitCode()).as("client exit" + why).isZero();
      JsonNode connect = run.step("connect");
      assertThat(connect.path("era").asString()).as(why).isEqualTo("modern");
      assertThat(connect.path("protocolVersion").asString()).as(why).isEqualTo("2026-07-28");
      assertThat(connect.path("serverInfo").path("name").asString()).isEqualTo("mcpstdio-era2026-peer");

      List<String> tools = names(run.step("tools/list").path("tools"));
      assertThat(tools).as("the SDK client drops the tool with an invalid x-mcp-header" + why)
          .contains("echo", "progress", "ask_name", "summarize", "list_roots", "multi_input", "multi_round",
              "slow", "was_aborted", "add_tool", "bump", "regional_echo")
          .doesNotContain("bad_header");

      assertThat(text(run, "echo")).isEqualTo("héllo ✓");
      assertThat(run.step("progress").path("progress").toString()).as(why).isEqualTo("[1,2,3]");
      assertThat(text(run, "ask_name")).isEqualTo("Hello, Ada!");
      assertThat(run.step("ask_name").path("elicitations").asInt()).isEqualTo(1);
      assertThat(text(run, "summarize")).isEqualTo("summary: sampled: Summarize: a long story");
      assertThat(text(run, "list_roots")).isEqualTo("[\"file:///tmp/era2026-root\"]");
      assertThat(Jsons.parse(text(run, "multi_input")).toString())
          .isEqualTo("{\"name\":\"Ada\",\"summary\":\"sampled: Summarize: three inputs\",\"roots\":[\"file:///tmp/era2026-root\"]}");
      assertThat(text(run, "multi_round")).isEqualTo("{\"rounds\":3,\"answers\":[\"Ada\",\"Ada\",\"Ada\"]}");
      assertThat(run.step("multi_round").path("elicitations").asInt()).as("one elicitation per round").isEqualTo(3);
      assertThat(text(run, "regional_echo")).as("the Mcp-Param-Region header reached the server")
          .isEqualTo("region=eu-west-1 header=eu-west-1");

      JsonNode listen = run.step("listen");
      assertThat(listen.path("ok").asBoolean()).as(why).isTrue();
      assertThat(listen.path("honored").path("toolsListChanged").asBoolean()).isTrue();
      assertThat(listen.path("updatedUri").asString()).isEqualTo("demo://counter");
      assertThat(run.step("tools/list-after").path("listed").asBoolean()).as(why).isTrue();
      assertThat(text(run, "prompt")).isEqualTo("Hello, relay!");
      assertThat(Integer.parseInt(text(run, "resource"))).isPositive();
      assertThat(run.step("done").path("failed").isEmpty()).as(why).isTrue();
    }
  }

  private static String text(Era2026Peers.ClientRun run, String step) {
    JsonNode line = run.step(step);
    assertThat(line.path("ok").asBoolean()).as("step " + step + run).isTrue();
    return line.path("text").asString();
  }

  private static List<String> names(JsonNode array) {
    return array.valueStream().map(JsonNode::asString).toList();
  }

  @Test
  void theModernServerRefusesA2025Initialize() throws Exception {
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.MODERN)) {
      HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(server.url()))
          .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
          .POST(HttpRequest.BodyPublishers.ofString("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":"
              + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}"))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(400);
      JsonNode error = Jsons.parse(response.body()).path("error");
      assertThat(error.path("code").asInt()).as(response.body()).isEqualTo(-32022);
      assertThat(error.path("data").path("supported").toString()).isEqualTo("[\"2026-07-28\"]");
      assertThat(response.headers().firstValue("Mcp-Session-Id")).isEmpty();
    }
  }

  /**
   * The dual server's 2025 leg is session-based: the official Java SDK (2025 era) initializes, gets
   * a session, and the same MRTR tools reach it as real server-to-client requests (the SDK's legacy
   * shim), with progress, a tools/list_changed notification and a resource update on the session.
   */
  @Test
  void theDualServers2025LegServesTheJavaSdkWithRealServerRequests() {
    List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
    List<McpSchema.ElicitFormRequest> elicitations = new CopyOnWriteArrayList<>();
    List<McpSchema.CreateMessageRequest> samplings = new CopyOnWriteArrayList<>();
    List<List<McpSchema.Tool>> toolChanges = new CopyOnWriteArrayList<>();
    List<String> updates = new CopyOnWriteArrayList<>();
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.DUAL)) {
      HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
          .builder("http://127.0.0.1:" + server.port()).endpoint("/mcp").build();
      McpSyncClient client = McpClient.sync(transport)
          .requestTimeout(Duration.ofSeconds(20))
          .clientInfo(new McpSchema.Implementation("era2026-it-java-sdk", "1.0.0"))
          .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().roots(true).build())
          .roots(new McpSchema.Root("file:///tmp/java-sdk-root", "root"))
          .progressConsumer(progress::add)
          .toolsChangeConsumer(toolChanges::add)
          .resourcesUpdateConsumer(contents -> updates.add("updated"))
          .sampling(request -> {
            samplings.add(request);
            return McpSchema.CreateMessageResult.builder().role(McpSchema.Role.ASSISTANT)
                .content(new McpSchema.TextContent("java sampled")).model("m")
                .stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN).build();
          })
          .elicitation(request -> {
            elicitations.add(request);
            return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("name", "Grace"));
          })
          .build();
      try {
        McpSchema.InitializeResult init = client.initialize();
        String why = "\nserver stderr:\n" + server.log();
        assertThat(init.protocolVersion()).as(why).isEqualTo(ProtocolVersions.MCP_2025_11_25);
        assertThat(init.serverInfo().name()).isEqualTo("mcpstdio-era2026-peer");
        assertThat(server.log()).as("a session was minted").contains("2025 session ");

        assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name)
            .contains("echo", "ask_name", "summarize", "list_roots", "regional_echo", "bad_header");
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "2025 leg")))))
            .isEqualTo("2025 leg");

        McpSchema.CallToolResult steps = client.callTool(McpSchema.CallToolRequest.builder().name("progress")
            .arguments(Map.of("steps", 3)).progressToken("java-progress").build());
        assertThat(textOf(steps)).isEqualTo("done");
        Await.until("3 progress notifications", Duration.ofSeconds(10), () -> progress.size() >= 3);
        // the SDK does not promise the order its consumer sees them in (seen 2, 1, 3 under load)
        assertThat(progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);

        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("ask_name", Map.of()))))
            .as("elicitation as a real server-to-client request" + why).isEqualTo("Hello, Grace!");
        assertThat(elicitations).hasSize(1);
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("summarize", Map.of("text", "it")))))
            .isEqualTo("summary: java sampled");
        assertThat(samplings).hasSize(1);
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("list_roots", Map.of()))))
            .isEqualTo("[\"file:///tmp/java-sdk-root\"]");
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("regional_echo", Map.of("region", "x")))))
            .as("no routing header on the 2025 leg").isEqualTo("region=x header=(none)");

        client.subscribeResource(new McpSchema.SubscribeRequest("demo://counter"));
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("bump", Map.of())))).startsWith("counter=");
        Await.until("a resources/updated notification", Duration.ofSeconds(10), () -> !updates.isEmpty());
        String added = "java_" + UUID.randomUUID().toString().substring(0, 8).replace('-', '_');
        assertThat(textOf(client.callTool(new McpSchema.CallToolRequest("add_tool", Map.of("name", added)))))
            .isEqualTo("added " + added);
        Await.until("a tools/list_changed notification", Duration.ofSeconds(10), () -> !toolChanges.isEmpty());
        assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).contains(added);
      } finally {
        client.closeGracefully();
      }
    }
  }

  private static String textOf(McpSchema.CallToolResult result) {
    assertThat(result.isError()).as(String.valueOf(result)).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  /**
   * A 2026 handler stops when its connection closes (the only cancellation the 2026 era has over
   * HTTP): slow is seen running, its connection is closed, and was_aborted then reports "aborted".
   */
  @Test
  void closingA2026CallsConnectionAbortsTheServersHandler() throws Exception {
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.MODERN)) {
      String key = "k" + UUID.randomUUID();
      String body = toolCall(7, "slow", "{\"key\":\"" + key + "\"}");
      try (Socket socket = new Socket("127.0.0.1", server.port())) {
        OutputStream out = socket.getOutputStream();
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        out.write(("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + server.port() + "\r\n"
            + "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            + "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: slow\r\n"
            + "Content-Length: " + bytes.length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(bytes);
        out.flush();
        Await.until("slow is running", Duration.ofSeconds(10), () -> fate(server, key).equals("started"));
      } // closes the connection mid-call
      Await.until("slow's handler was aborted", Duration.ofSeconds(10), () -> fate(server, key).equals("aborted"));
      assertThat(server.log()).contains("slow " + key + ": aborted");
    }
  }

  private static String fate(Era2026Peers.Server server, String key) {
    try {
      return callText(server.url(), 99, "was_aborted", "{\"key\":\"" + key + "\"}");
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }
}
