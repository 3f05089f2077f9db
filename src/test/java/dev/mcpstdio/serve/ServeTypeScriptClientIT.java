package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;

/**
 * Interop: the official TypeScript SDK's Streamable HTTP client (npm, pinned) against
 * {@code serve} running the demo server: a whole session including progress, elicitation and
 * sampling round trips and session termination.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeTypeScriptClientIT {

  @Test
  void theTypeScriptClientRunsAWholeSessionThroughServe() throws Exception {
    Path peers = NodePeers.interopPeers();
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()))) {
      Process node = new ProcessBuilder(NodePeers.node().toString(), peers.resolve("streamable-client.mjs").toString(),
          serve.url.toString()).directory(peers.toFile()).start();
      CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> read(node.getErrorStream()), dev.mcpstdio.testing.Threads.VIRTUAL);
      String stdout = read(node.getInputStream());
      assertThat(node.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(node.exitValue()).as("client exit; stderr:\n" + stderr.get(10, TimeUnit.SECONDS)
          + "\ngateway log:\n" + serve.log()).isZero();

      JsonNode report = Jsons.parse(stdout.trim());
      assertThat(report.get("server").asString()).isEqualTo("mcp-stdio-demo");
      assertThat(report.get("sessionId").asString()).matches("[0-9a-f]{32}");
      assertThat(strings(report.get("tools"))).containsExactly("echo", "add", "slow", "ask", "summarize");
      assertThat(report.get("echo").asString()).isEqualTo("from typescript");
      assertThat(report.get("slow").asString()).isEqualTo("done after 3 steps");
      assertThat(report.get("progress").toString()).isEqualTo("[1,2,3]");
      assertThat(report.get("ask").asString()).isEqualTo("the user answered: Lin");
      assertThat(strings(report.get("elicitations"))).containsExactly("Your name?");
      assertThat(report.get("summarize").asString()).isEqualTo("summary: ts summary");
      assertThat(report.get("resource").asString()).contains("demo server");
      assertThat(report.get("prompt").asString()).contains("Ada");
      assertThat(report.get("terminated").asBoolean()).isTrue();
      serve.awaitLog("ended by the client");
    }
  }

  private static java.util.List<String> strings(JsonNode array) {
    java.util.List<String> values = new java.util.ArrayList<>();
    array.forEach(v -> values.add(v.asString()));
    return values;
  }

  private static String read(java.io.InputStream in) {
    try (in) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
