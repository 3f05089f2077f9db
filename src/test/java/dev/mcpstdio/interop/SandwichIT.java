package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The sandwich, end to end and all real processes: the official Java SDK as a stdio host → the
 * relay (packaged jar) → {@code serve} (packaged jar) → the demo server (a child of serve). To the
 * host this must look exactly like spawning the demo directly: tool calls, progress, and the demo's
 * own sampling and elicitation requests answered by the host.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class SandwichIT {

  private static ServeProcess serveProcess;
  private static JarProcess serve;
  private static String url;

  @BeforeAll
  static void startServe() {
    serveProcess = ServeProcess.start();
    serve = serveProcess.process();
    url = serveProcess.url();
  }

  @AfterAll
  static void stopServe() {
    if (serveProcess != null) {
      serveProcess.stop();
    }
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }

  /** The 2025 era end to end: serve speaks both eras, so the relay's default (auto) would pick the 2026 era. */
  private static final String[] ERA_2025 = {"--protocol-era", "legacy"};

  @Test
  void aHostReachesTheDemoThroughRelayAndServe() {
    try (RelayHost host = RelayHost.spawn(url, ERA_2025)) {
      McpSchema.InitializeResult init = host.client.initialize();
      assertThat(init.serverInfo().name()).isEqualTo("mcp-stdio-demo");
      assertThat(host.client.listTools().tools()).extracting(McpSchema.Tool::name)
          .containsExactly("echo", "add", "slow", "ask", "summarize");
      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("echo", Map.of("text", "through two gateways")))))
          .isEqualTo("through two gateways");
      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("add", Map.of("a", 20, "b", 22))))).isEqualTo("42");

      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("slow", Map.of("steps", 3, "delayMs", 20),
          Map.of("progressToken", "sandwich"))))).isEqualTo("done after 3 steps");
      host.await("three progress notifications", () -> host.progress.size() == 3);
      // the SDK client hands notifications to its consumers concurrently, in any order
      assertThat(host.progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);

      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("summarize", Map.of("text", "bread"))))).isEqualTo(
          "summary: sampled: Summarise in one sentence: bread");
      assertThat(host.samplingRequests).hasSize(1);

      // the host's default elicitation answer carries no "answer" field: the demo reports what it got
      assertThat(text(host.client.callTool(new McpSchema.CallToolRequest("ask", Map.of("question", "Sure?")))))
          .isEqualTo("the user answered: null");
      assertThat(host.elicitationRequests).singleElement().satisfies(e -> assertThat(e.message()).isEqualTo("Sure?"));
    }
  }

  @Test
  void whenTheHostLeavesTheRelayEndsTheSessionAndServeEndsTheChild() {
    RelayHost host = RelayHost.spawn(url, ERA_2025);
    host.client.initialize();
    // this host's session is the newest one serve started
    String started = serve.stderr.snapshot().stream().filter(l -> l.contains("] started ")).reduce((a, b) -> b).orElseThrow();
    Matcher m = Pattern.compile("\\[session ([0-9a-f]{8})\\] started .*\\(pid (\\d+)\\)").matcher(started);
    assertThat(m.find()).as(started).isTrue();
    long child = Long.parseLong(m.group(2));
    assertThat(host.closeAndAwaitExit()).isZero();
    String ended = "[session " + m.group(1) + "] ended by the client";
    Await.until("serve to log '" + ended + "'", Duration.ofSeconds(20),
        () -> serve.stderr.snapshot().stream().anyMatch(l -> l.contains(ended)));
    Await.until("demo child " + child + " to exit", Duration.ofSeconds(15),
        () -> ProcessHandle.of(child).map(p -> !p.isAlive()).orElse(true));
  }
}
