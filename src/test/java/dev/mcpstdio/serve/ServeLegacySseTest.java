package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientSseClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** serve's legacy HTTP+SSE endpoints (MCP 2024-11-05): the raw wire, then the official Java SDK client. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeLegacySseTest {

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo())
        .withLimits(20, Duration.ZERO, 1 << 20, Duration.ofSeconds(20), Duration.ofMillis(500)));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  private static URI at(String path) {
    return serve.url.resolve(path);
  }

  /** The next event as {name, data}; comments skipped; null at the end. */
  private static String[] nextEvent(Iterator<String> lines) {
    String name = "message";
    String data = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data != null) {
          return new String[] {name, data};
        }
      } else if (line.startsWith("event:")) {
        name = line.substring(6).trim();
      } else if (line.startsWith("data:")) {
        data = line.substring(5).trim();
      }
    }
    return null;
  }

  private static HttpResponse<String> post(String endpoint, String json) throws Exception {
    return serve.http.send(HttpRequest.newBuilder(at(endpoint)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theStreamNamesTheEndpointAndCarriesEveryAnswer() throws Exception {
    HttpResponse<Stream<String>> stream = serve.http.send(HttpRequest.newBuilder(at("/sse"))
        .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    Iterator<String> lines = stream.body().iterator();
    String[] endpoint = nextEvent(lines);
    assertThat(endpoint[0]).isEqualTo("endpoint");
    assertThat(endpoint[1]).matches("/messages\\?sessionId=[0-9a-f]{32}");

    HttpResponse<String> accepted = post(endpoint[1], INIT);
    assertThat(accepted.statusCode()).isEqualTo(202);
    String[] init = nextEvent(lines);
    assertThat(init[0]).isEqualTo("message");
    assertThat(init[1]).contains("\"id\":1").contains("mcp-stdio-demo");

    post(endpoint[1], ServeHarness.INITIALIZED);
    post(endpoint[1], "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
        + "\"arguments\":{\"steps\":2,\"delayMs\":10},\"_meta\":{\"progressToken\":\"p\"}}}");
    List<String> next = List.of(nextEvent(lines)[1], nextEvent(lines)[1], nextEvent(lines)[1]);
    assertThat(next.get(0)).contains("notifications/progress");
    assertThat(next.get(1)).contains("notifications/progress");
    assertThat(next.get(2)).contains("\"id\":2").contains("done after 2 steps");

    String sessionId = endpoint[1].substring(endpoint[1].indexOf('=') + 1);
    long pid = serve.childPid(sessionId);
    stream.body().close(); // the client leaves: its session and child end
    Await.until("child " + pid + " to exit", Duration.ofSeconds(15),
        () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    assertThat(post(endpoint[1], "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}").statusCode()).isEqualTo(404);
  }

  @Test
  void postsNeedAKnownSessionAndValidJson() throws Exception {
    assertThat(post("/messages", "{}").statusCode()).isEqualTo(400);
    assertThat(post("/messages?sessionId=nope", "{}").statusCode()).isEqualTo(404);
    HttpResponse<Stream<String>> stream = serve.http.send(HttpRequest.newBuilder(at("/sse")).GET().build(),
        HttpResponse.BodyHandlers.ofLines());
    String endpoint = nextEvent(stream.body().iterator())[1];
    HttpResponse<String> bad = post(endpoint, "{\"jsonrpc\":");
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("-32700");
    assertThat(serve.http.send(HttpRequest.newBuilder(at("/sse")).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(405);
    // a Streamable HTTP session id is not a legacy one
    String modern = serve.initialize();
    assertThat(post("/messages?sessionId=" + modern, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}").statusCode())
        .isEqualTo(404);
    stream.body().close();
  }

  @Test
  void theOfficialJavaSdkSseClientRunsASessionWithSamplingAndElicitation() {
    List<McpSchema.ElicitFormRequest> asked = new CopyOnWriteArrayList<>();
    HttpClientSseClientTransport transport = HttpClientSseClientTransport
        .builder("http://127.0.0.1:" + serve.gateway.port()).sseEndpoint("/sse").build();
    try (McpSyncClient client = McpClient.sync(transport)
        .requestTimeout(Duration.ofSeconds(20))
        .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().build())
        .sampling(request -> McpSchema.CreateMessageResult.builder().role(McpSchema.Role.ASSISTANT)
            .content(new McpSchema.TextContent("legacy summary")).model("m")
            .stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN).build())
        .elicitation(request -> {
          asked.add(request);
          return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("answer", "Ola"));
        })
        .build()) {
      McpSchema.InitializeResult init = client.initialize();
      assertThat(init.serverInfo().name()).isEqualTo("mcp-stdio-demo");
      assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).contains("echo", "ask");
      McpSchema.CallToolResult echo = client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "over SSE")));
      assertThat(((McpSchema.TextContent) echo.content().getFirst()).text()).isEqualTo("over SSE");
      McpSchema.CallToolResult ask = client.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", "Name?")));
      assertThat(((McpSchema.TextContent) ask.content().getFirst()).text()).isEqualTo("the user answered: Ola");
      assertThat(asked).hasSize(1);
      McpSchema.CallToolResult summary = client.callTool(new McpSchema.CallToolRequest("summarize", Map.of("text", "t")));
      assertThat(((McpSchema.TextContent) summary.content().getFirst()).text()).isEqualTo("summary: legacy summary");
    }
  }
}
