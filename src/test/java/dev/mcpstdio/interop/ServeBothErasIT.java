package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.NodePeers;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.HttpClientStreamableHttpTransport;
import io.modelcontextprotocol.spec.McpSchema;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One {@code mcp-stdio serve} (the packaged jar, in front of the built-in demo, a 2025-era stdio
 * server) answering both eras at the same time: the TypeScript SDK v2 client pinned to 2026-07-28
 * and in its {@code auto} mode (both must end up in the 2026 era, stateless, served from the
 * pool), and the official Java SDK client (2025-11-25, a session with its own child), all three
 * running concurrently.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeBothErasIT {

  private static ServeProcess serveProcess;
  private static JarProcess serve;
  private static String url;

  @BeforeAll
  static void startServe() {
    NodePeers.assumeNode();
    serveProcess = ServeProcess.start("-v");
    serve = serveProcess.process();
    url = serveProcess.url();
  }

  @AfterAll
  static void stopServe() {
    if (serveProcess != null) {
      serveProcess.stop();
    }
  }

  @Test
  void twoEra2026ClientsAndAnEra2025ClientAtOnce() throws Exception {
    // threads of their own: the common pool (one thread on two cores) is what the SDK's client needs
    java.util.concurrent.ExecutorService threads = java.util.concurrent.Executors.newThreadPerTaskExecutor(
        Thread.ofPlatform().daemon().factory());
    CompletableFuture<Era2026Peers.ClientRun> pinned = CompletableFuture.supplyAsync(
        () -> Era2026Peers.serveClient(url, "pin", Duration.ofSeconds(90)), threads);
    CompletableFuture<Era2026Peers.ClientRun> auto = CompletableFuture.supplyAsync(
        () -> Era2026Peers.serveClient(url, "auto", Duration.ofSeconds(90)), threads);
    CompletableFuture<List<String>> era2025 = CompletableFuture.supplyAsync(ServeBothErasIT::javaSdkSession, threads);

    for (Era2026Peers.ClientRun run : List.of(pinned.get(100, TimeUnit.SECONDS), auto.get(100, TimeUnit.SECONDS))) {
      assertThat(run.step("connect").path("protocolVersion").asString("")).as(run.toString()).isEqualTo("2026-07-28");
      assertThat(run.step("connect").path("serverInfo").path("name").asString("")).isEqualTo("mcp-stdio-demo");
      assertThat(run.step("tools/list").path("tools").toString()).as(run.toString()).contains("echo", "slow", "ask");
      assertThat(run.step("echo").path("text").asString("")).as(run.toString()).isEqualTo("héllo ✓");
      assertThat(run.step("add").path("text").asString("")).as(run.toString()).isEqualTo("42");
      assertThat(run.step("slow").path("text").asString("")).as(run.toString()).isEqualTo("done after 3 steps");
      assertThat(run.step("slow").path("progress").size()).as(run.toString()).isEqualTo(3);
    }
    assertThat(era2025.handle((answers, failure) -> failure == null ? answers : List.of("failed: " + failure
        + "\nserve's log:\n" + String.join("\n", serve.stderr.snapshot()))).get(100, TimeUnit.SECONDS)).containsExactly("42", "done after 3 steps", "through serve");
    assertThat(String.join("\n", serve.stderr.snapshot()))
        .contains("is a 2025-era server") // the pool's probe of the demo's command
        .contains("] started "); // the Java SDK client's 2025-era session
  }

  /**
   * A 2025-era client in front of a child that speaks only the 2026 era (the SDK v2 conformance
   * fixture, {@code legacy: 'reject'}): its initialize is answered at once with the child's own
   * -32022, the session it was minted is gone (404 for the id it was given) and its child ends,
   * serve says why; the same endpoint keeps serving 2026-era requests from the pool.
   */
  @Test
  void a2025ClientOverA2026OnlyChildIsRefusedAtOnceAndLeavesNothingBehind() throws Exception {
    String fixture = NodePeers.era2026().resolve("conformance-fixture.mjs").toString();
    ServeProcess only2026 = ServeProcess.start("--", NodePeers.node().toString(), fixture);
    try (HttpClient http = HttpClient.newHttpClient()) {
      String endpoint = only2026.url();
      HttpResponse<String> init = post(http, endpoint, null,
          "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
              + "\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}");
      String why = "\nserve's log:\n" + String.join("\n", only2026.process().stderr.snapshot());
      assertThat(init.body()).as(why).contains("\"id\":1", "\"code\":-32022", "\"supported\":[\"2026-07-28\"]");
      String session = init.headers().firstValue("Mcp-Session-Id").orElseThrow();
      String refused = only2026.process().stderr.nextMatching(l -> l.contains("the child refused initialize"),
          Duration.ofSeconds(20));
      assertThat(refused).contains("error -32022", "only 2026-era clients can use it", "session ended");
      Matcher started = Pattern.compile("started \\S+ \\(pid (\\d+)\\)").matcher(String.join("\n",
          only2026.process().stderr.snapshot()));
      assertThat(started.find()).as(why).isTrue();
      long child = Long.parseLong(started.group(1));
      Await.until("the refused session's child " + child + " to exit", Duration.ofSeconds(15),
          () -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
      assertThat(post(http, endpoint, session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}").statusCode())
          .as("the refused session is gone" + why).isEqualTo(404);

      HttpResponse<String> discover = post(http, endpoint, null,
          "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"server/discover\",\"params\":{\"_meta\":{"
              + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
      assertThat(discover.statusCode()).as(discover.body() + why).isEqualTo(200);
      assertThat(discover.body()).as(why).contains("\"id\":3", "2026-07-28", "\"resultType\"");
    } finally {
      only2026.stop();
    }
  }

  private static HttpResponse<String> post(HttpClient http, String endpoint, String session,
      String body) throws Exception {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(endpoint))
        .timeout(Duration.ofSeconds(30))
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    if (session != null) {
      request.header("Mcp-Session-Id", session).header("MCP-Protocol-Version", "2025-11-25");
    }
    if (body.contains("server/discover")) {
      request.header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "server/discover");
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A 2025-era session of the Java SDK client: the answers of three calls. */
  private static List<String> javaSdkSession() {
    HttpClientStreamableHttpTransport transport = HttpClientStreamableHttpTransport
        .builder(url.substring(0, url.length() - "/mcp".length())).endpoint("/mcp").build();
    try (McpSyncClient client = McpClient.sync(transport).requestTimeout(Duration.ofSeconds(60))
        .initializationTimeout(Duration.ofSeconds(60))
        .clientInfo(new McpSchema.Implementation("sdk-2025", "1.0.0")).build()) {
      McpSchema.InitializeResult init = client.initialize();
      assertThat(init.protocolVersion()).isEqualTo("2025-11-25");
      return List.of(text(client.callTool(new McpSchema.CallToolRequest("add", Map.of("a", 20, "b", 22)))),
          text(client.callTool(new McpSchema.CallToolRequest("slow", Map.of("steps", 3, "delayMs", 10)))),
          text(client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "through serve")))));
    }
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }
}
