package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Exchange;
import dev.mcpstdio.testing.Fake2026Reply;
import dev.mcpstdio.testing.Fake2026Reply.Step;
import dev.mcpstdio.testing.Fake2026Server;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Review of the 2026 era: the host's cancel, a 2026-era host's own listen, and what a 2025-era host
 * is told about the server. Each test names the rule it holds the relay to.
 */
class RelayEra2026ReviewTest {

  static RelayHarness modern(Fake2026Server server) {
    return RelayEra2026ComponentTest.modern(server);
  }

  static final String DISCOVER_2026 = "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{\"_meta\":{"
      + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
      + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"v2\",\"version\":\"2\"}}}}";

  /**
   * A 2026-era host is relayed as it is: its own {@code subscriptions/listen} is a long-lived
   * stream, and its silence is bounded by {@code --sse-read-timeout}, as the relay's own listens
   * are, not by {@code --timeout-read}.
   */
  @Test
  void aHostsOwnListenStreamOutlivesTheReadTimeout() {
    String ack = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\",\"params\":{\"notifications\":"
        + "{\"toolsListChanged\":true}}}";
    String changed = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":{\"_meta\":"
        + "{\"io.modelcontextprotocol/subscriptionId\":\"l\"}}}";
    try (Fake2026Server server = new Fake2026Server()
            .intercept(e -> "subscriptions/listen".equals(e.rpcMethod())
                ? Fake2026Reply.sse(Step.event(ack), Step.pause(Duration.ofMillis(2500)), Step.event(changed), Step.hang())
                : null);
        RelayHarness relay = RelayHarness.start(server.url(), c -> c
            .withEra(new RelayConfig.EraSettings(ProtocolEra.Choice.MODERN, null))
            .withTimeouts(c.connectTimeout(), Duration.ofSeconds(1), Duration.ofSeconds(300)))) {
      relay.send(DISCOVER_2026);
      relay.answerTo("\"d\"");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"subscriptions/listen\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}},"
          + "\"notifications\":{\"toolsListChanged\":true}}}");
      assertThat(relay.next()).isEqualTo(ack);
      assertThat(relay.next()).as("the change, not an error for the listen").isEqualTo(changed);
    }
  }

  /** The host's cancel of a question the bridge asked ends the call with one error (inventory: abort with error). */
  @Test
  void theHostCancellingAQuestionEndsTheCallWithOneError() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("ask", "{\"type\":\"object\"}", server.mrtr().round("s", dev.mcpstdio.testing.Fake2026Mrtr.elicit("k", "Yes?")));
      relay.initialize();
      relay.send(RelayEra2026ComponentTest.call(34, "ask", "{}"));
      JsonNode question = Jsons.parse(relay.next());
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + question.get("id") + "}}");
      JsonNode answer = Jsons.parse(relay.answerTo("34"));
      assertThat(answer.at("/error/message").asString()).contains("MCP bridge");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":35,\"method\":\"ping\"}");
      assertThat(relay.next()).as("one answer for 34, nothing more").contains("\"id\":35");
    }
  }

  /** Bounded waits for the test's own latches. */
  static final class Await {
    static void latch(CountDownLatch latch) {
      try {
        assertThat(latch.await(RelayHarness.TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
    }
  }
}
