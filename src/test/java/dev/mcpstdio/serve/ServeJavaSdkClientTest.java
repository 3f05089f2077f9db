package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Interop: the official Java SDK's Streamable HTTP client against {@code serve} running the demo
 * server. Everything a client does in a session must work, including the child's own requests
 * (sampling, elicitation) answered by the client while a tool call runs.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeJavaSdkClientTest {

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  private final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
  private final List<McpSchema.ElicitFormRequest> elicitations = new CopyOnWriteArrayList<>();

  private McpSyncClient client() {
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
        .builder("http://127.0.0.1:" + serve.gateway.port()).endpoint("/mcp").build();
    return McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(20))
        .clientInfo(new McpSchema.Implementation("sdk-interop", "1.0.0"))
        .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().build())
        .progressConsumer(progress::add)
        .sampling(request -> McpSchema.CreateMessageResult.builder()
            .role(McpSchema.Role.ASSISTANT)
            .content(new McpSchema.TextContent("a short summary"))
            .model("test-model")
            .stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN)
            .build())
        .elicitation(request -> {
          elicitations.add(request);
          return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("answer", "Grace"));
        })
        .build();
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  @Test
  void aWholeSessionWorksThroughServe() {
    try (McpSyncClient client = client()) {
      McpSchema.InitializeResult init = client.initialize();
      assertThat(init.protocolVersion()).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(init.serverInfo().name()).isEqualTo("mcp-stdio-demo");

      assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name)
          .containsExactly("echo", "add", "slow", "ask", "summarize");
      assertThat(text(client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "héllo \u2028 wörld")))))
          .isEqualTo("héllo \u2028 wörld");
      assertThat(text(client.callTool(new McpSchema.CallToolRequest("add", Map.of("a", 1.5, "b", 2)))))
          .isEqualTo("3.5");

      McpSchema.ReadResourceResult read = client.readResource(new McpSchema.ReadResourceRequest("demo://readme"));
      assertThat(((McpSchema.TextResourceContents) read.contents().getFirst()).text()).contains("demo server");
      McpSchema.GetPromptResult prompt = client.getPrompt(new McpSchema.GetPromptRequest("greet", Map.of("name", "Ada")));
      assertThat(((McpSchema.TextContent) prompt.messages().getFirst().content()).text()).contains("Ada");
      client.ping();
    }
  }

  @Test
  void progressReachesTheClientDuringACall() {
    try (McpSyncClient client = client()) {
      client.initialize();
      McpSchema.CallToolResult result = client.callTool(new McpSchema.CallToolRequest("slow",
          Map.of("steps", 3, "delayMs", 20), Map.of("progressToken", "job-1")));
      assertThat(text(result)).isEqualTo("done after 3 steps");
      // The SDK client hands notifications to its consumers concurrently: the last may follow the
      // result, and they may arrive in any order (serve's own order is checked on the raw stream).
      dev.mcpstdio.testing.Await.until("three progress notifications", Duration.ofSeconds(10), () -> progress.size() >= 3);
      assertThat(progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);
      assertThat(progress).allSatisfy(p -> assertThat(p.progressToken()).isEqualTo("job-1"));
    }
  }

  @Test
  void theChildsElicitationAndSamplingRequestsAreAnsweredByTheClient() {
    try (McpSyncClient client = client()) {
      client.initialize();
      assertThat(text(client.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", "Who?")))))
          .isEqualTo("the user answered: Grace");
      assertThat(elicitations).singleElement().satisfies(e -> assertThat(e.message()).isEqualTo("Who?"));
      assertThat(text(client.callTool(new McpSchema.CallToolRequest("summarize", Map.of("text", "a long text")))))
          .isEqualTo("summary: a short summary");
    }
  }

  @Test
  void closingTheClientEndsItsSessionAndChild() {
    McpSyncClient client = client();
    client.initialize();
    String log = serve.log();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\[session ([0-9a-f]{8})\\] started .*\\(pid (\\d+)\\)")
        .matcher(log);
    long pid = -1;
    while (m.find()) {
      pid = Long.parseLong(m.group(2)); // the newest session is this client's
    }
    assertThat(pid).isPositive();
    client.closeGracefully();
    long child = pid;
    dev.mcpstdio.testing.Await.until("child " + child + " to exit after the client closed", Duration.ofSeconds(15),
        () -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
  }
}
