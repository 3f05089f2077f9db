package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.testing.RelayHarness;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The relay's {@code --transport sse} (legacy HTTP+SSE, 2024-11-05) against {@code serve}'s legacy
 * endpoints with the demo server behind them: both halves of the legacy transport, end to end.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayOverLegacySseTest {

  private static RelayHarness relay(ServeHarness serve, Duration readTimeout) {
    URI sse = serve.url.resolve("/sse");
    return RelayHarness.start(sse, c -> c.withTransport(RelayConfig.Transport.SSE)
        .withTimeouts(Duration.ofSeconds(5), readTimeout, Duration.ofSeconds(300)));
  }

  @Test
  void aWholeSessionRunsOverTheLegacyTransport() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = relay(serve, Duration.ofSeconds(20))) {
      assertThat(host.initialize()).contains("mcp-stdio-demo");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"old school\"}}}");
      assertThat(host.answerTo("1")).contains("old school");

      host.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
          + "{\"steps\":2,\"delayMs\":10},\"_meta\":{\"progressToken\":\"p\"}}}");
      assertThat(host.stdout.nextMatching(l -> l.contains("notifications/progress"), RelayHarness.TIMEOUT)).contains("\"p\"");
      assertThat(host.answerTo("2")).contains("done after 2 steps");

      // the server's own request reaches the host, and the host's answer goes back through the relay
      host.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{\"question\":\"Q\"}}}");
      String ask = host.stdout.nextMatching(l -> l.contains("elicitation/create"), RelayHarness.TIMEOUT);
      String askId = ask.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":" + askId + ",\"result\":{\"action\":\"accept\",\"content\":{\"answer\":\"Bo\"}}}");
      assertThat(host.answerTo("3")).contains("the user answered: Bo");
      assertThat(host.closeAndAwait()).isZero();
    }
  }

  @Test
  void aLostStreamAnswersEveryRequestInFlightExactlyOnce() throws Exception {
    ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
    try (RelayHarness host = relay(serve, Duration.ofSeconds(30))) {
      host.initialize();
      for (int id = 10; id < 13; id++) {
        host.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
            + "{\"steps\":100,\"delayMs\":100},\"_meta\":{\"progressToken\":" + id + "}}}");
      }
      for (int id = 10; id < 13; id++) { // all three are running
        String token = "\"progressToken\":" + id + ",";
        host.stdout.nextMatching(l -> l.contains(token), RelayHarness.TIMEOUT);
      }
      serve.close(); // the server goes away mid-call: the stream is lost
      // each call's own wait ends with the stream, so their errors come in any order
      dev.mcpstdio.testing.Await.until("every call in flight answered", () -> java.util.stream.IntStream.range(10, 13)
          .allMatch(id -> host.stdout.snapshot().stream().anyMatch(l -> RelayHarness.hasId(l, String.valueOf(id)))));
      for (int id = 10; id < 13; id++) {
        String idJson = String.valueOf(id);
        assertThat(host.stdout.snapshot()).filteredOn(l -> RelayHarness.hasId(l, idJson)).singleElement()
            .satisfies(l -> assertThat(l).contains("-32000").contains("SSE stream disconnected"));
      }
      // a request sent now waits for a new stream, which never comes, and gets its own single error
      host.send("{\"jsonrpc\":\"2.0\",\"id\":20,\"method\":\"ping\"}");
      assertThat(host.answerTo("20")).contains("error");
      for (int id = 10; id < 13; id++) {
        String idJson = String.valueOf(id);
        assertThat(host.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, idJson)).count())
            .as("answers to id " + id).isEqualTo(1);
      }
    }
  }

  /** Over HTTP+SSE too, a host that reuses a cancelled id gets its new request's answer, once. */
  @Test
  void aCancelledIdReusedGetsTheNewRequestsAnswer() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = relay(serve, Duration.ofSeconds(20))) {
      host.initialize();
      host.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
          + "{\"steps\":20,\"delayMs\":100},\"_meta\":{\"progressToken\":\"old\"}}}");
      host.stdout.nextMatching(l -> l.contains("\"old\""), RelayHarness.TIMEOUT); // running
      host.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":5}}");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"new one\"}}}");
      assertThat(host.answerTo("5")).contains("new one");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
          + "{\"steps\":30,\"delayMs\":100}}}");
      host.answerTo("6"); // outlasts the cancelled call: whatever it sent has been written by now
      assertThat(host.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "5")).count())
          .as("answers to id 5").isEqualTo(1);
    }
  }

  @Test
  void aCancelledRequestIsClosedSilentlyAndAPingStillGoesThrough() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = relay(serve, Duration.ofSeconds(1))) {
      host.initialize();
      host.send("{\"jsonrpc\":\"2.0\",\"id\":30,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
          + "{\"steps\":100,\"delayMs\":100},\"_meta\":{\"progressToken\":30}}}");
      host.stdout.nextMatching(l -> l.contains("\"progressToken\":30"), RelayHarness.TIMEOUT);
      host.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":30}}");
      long t0 = System.nanoTime();
      int[] ping = {100};
      dev.mcpstdio.testing.Await.until("pings answered past the read timeout", Duration.ofSeconds(15), () -> {
        host.send("{\"jsonrpc\":\"2.0\",\"id\":" + ping[0] + ",\"method\":\"ping\"}");
        host.answerTo(String.valueOf(ping[0]++));
        return System.nanoTime() - t0 > Duration.ofMillis(2500).toNanos(); // well past --timeout-read (1 s)
      });
      assertThat(host.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "30")); // no made-up timeout error
    }
  }

  @Test
  void aBatchOverTheLegacyTransportWaitsForTheStreamInsteadOfFailingAt202() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = relay(serve, Duration.ofSeconds(2))) {
      host.initialize();
      host.send("[{\"jsonrpc\":\"2.0\",\"id\":50,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":51,\"method\":\"ping\"}]");
      // the demo refuses batches (with id null); the relay then answers each member once, at the timeout
      assertThat(host.answerTo("50")).doesNotContain("HTTP 202").contains("no response from the server within 2 s");
      assertThat(host.answerTo("51")).doesNotContain("HTTP 202");
    }
  }

  @Test
  void autoChoosesStreamableHttpWhereTheServerSpeaksIt() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = RelayHarness.start(serve.url, c -> c.withTransport(RelayConfig.Transport.AUTO))) {
      assertThat(host.initialize()).contains("mcp-stdio-demo");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      assertThat(host.answerTo("1")).contains("\"result\":{}");
      assertThat(host.log()).contains("transport: Streamable HTTP").doesNotContain("HTTP+SSE");
    }
  }

  @Test
  void autoFallsBackToHttpSseWhenTheInitializePostIsRefused() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = RelayHarness.start(serve.url.resolve("/sse"), c -> c.withTransport(RelayConfig.Transport.AUTO))) {
      assertThat(host.initialize()).contains("mcp-stdio-demo"); // POST /sse is 405, then GET /sse
      host.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"fell back\"}}}");
      assertThat(host.answerTo("1")).contains("fell back");
      assertThat(host.log()).contains("refused Streamable HTTP (HTTP 405)").contains("transport: HTTP+SSE");
    }
  }

  @Test
  void autoReportsTheOriginalRefusalWhenNeitherTransportWorks() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()));
        RelayHarness host = RelayHarness.start(serve.url.resolve("/nowhere"), c -> c.withTransport(RelayConfig.Transport.AUTO))) {
      host.send(RelayHarness.INITIALIZE);
      assertThat(host.answerTo("0")).contains("error").contains("404");
      assertThat(host.log()).contains("HTTP+SSE did not work either");
    }
  }

  @Test
  void aServerWithoutTheLegacyEndpointFailsAtStartup() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()).withLegacySse(null, "/messages"));
        RelayHarness host = relay(serve, Duration.ofSeconds(5))) {
      assertThat(host.closeAndAwait()).isEqualTo(1);
      assertThat(host.log()).contains("the event stream was refused with HTTP 404");
    }
  }
}
