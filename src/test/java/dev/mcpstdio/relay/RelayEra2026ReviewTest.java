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
   * A replay-safe request whose first attempt broke is re-issued under a new id; the host's cancel
   * must close the re-issued request's stream too (the only cancellation a 2026 server knows).
   */
  @Test
  void theHostsCancelClosesTheStreamOfARequestReissuedAfterABrokenAttempt() {
    AtomicInteger reads = new AtomicInteger();
    try (Fake2026Server server = new Fake2026Server()
            .intercept(e -> !"resources/read".equals(e.rpcMethod()) ? null
                : reads.incrementAndGet() == 1 ? Fake2026Reply.drop() : Fake2026Reply.hang());
        RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"resources/read\",\"params\":{\"uri\":\"db://orders/1\"}}");
      Fake2026Exchange reissued = server.awaitPosts("resources/read", 2).get(1);
      assertThat(reissued.idJson()).as("re-issued under a new id").startsWith("\"mcp-stdio/reissue-");
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":30}}");
      reissued.awaitClientClosed();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":31,\"method\":\"ping\"}");
      assertThat(relay.next()).as("nothing for id 30").contains("\"id\":31");
    }
  }

  /**
   * A call the host cancelled while the relay re-listed the tools (after a -32020) must not be sent
   * again: nothing else can stop it on a 2026 server once it is POSTed.
   */
  @Test
  void aCallCancelledWhileTheToolsAreReListedIsNotSentAgain() {
    CountDownLatch relisting = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (Fake2026Server server = new Fake2026Server().toolsPageSize(100)
            .intercept(e -> {
              if (!"tools/list".equals(e.rpcMethod())) {
                return null;
              }
              relisting.countDown();
              try {
                release.await();
              } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
              }
              return null; // then the fake answers as usual
            });
        RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send(RelayEra2026ComponentTest.call(32, "headers", "{\"region\":\"eu\"}"));
      Await.latch(relisting);
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":32}}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":33,\"method\":\"ping\"}");
      assertThat(relay.next()).as("the cancel was taken in").contains("\"id\":33");
      release.countDown();
      relay.closeAndAwait(); // every exchange in flight ends first
      assertThat(server.posts("tools/call")).as("the refused call only; the cancelled one not again").hasSize(1);
      assertThat(relay.stdout.pending()).noneMatch(l -> l.contains("\"id\":32"));
    }
  }

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

  /**
   * The inventory's initialize answer: the discovered capabilities with {@code listChanged:true}
   * on each family present and {@code subscribe:true} on a present resources family (the relay
   * itself provides both through its listen streams), never a family the server lacks.
   */
  @Test
  void initializeAdvertisesListChangesAndSubscriptionsForTheFamiliesTheServerHas() {
    try (Fake2026Server server = new Fake2026Server().capabilities("{\"tools\":{},\"resources\":{}}");
        RelayHarness relay = modern(server)) {
      JsonNode caps = Jsons.parse(relay.initialize()).at("/result/capabilities");
      assertThat(caps.at("/tools/listChanged").asBoolean()).as(caps.toString()).isTrue();
      assertThat(caps.at("/resources/listChanged").asBoolean()).as(caps.toString()).isTrue();
      assertThat(caps.at("/resources/subscribe").asBoolean()).as(caps.toString()).isTrue();
      assertThat(caps.has("prompts")).as("never a family the server lacks").isFalse();
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
