package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Exchange;
import dev.mcpstdio.testing.Fake2026Server;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context through the relay: in the 2026 era a request's {@code _meta} trace keys also
 * travel as HTTP headers, so the server's HTTP layer joins the host's trace; the 2025 era's wire
 * is left as it was.
 */
class RelayTraceContextComponentTest {

  static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

  static String tracedCall(int id, String meta) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{},"
        + "\"_meta\":{" + meta + "}}}";
  }

  @Test
  void the2026EraSendsTheMetaTraceKeysAsHeadersAndKeepsThemInTheBody() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = RelayEra2026ComponentTest.modern(server)) {
      relay.initialize();
      relay.send(tracedCall(3, "\"traceparent\":\"" + PARENT + "\",\"tracestate\":\"rojo=00f067aa0ba902b7\",\"baggage\":\"user=alice\""));
      relay.answerTo("3");
      Fake2026Exchange sent = server.awaitPost("tools/call");
      assertThat(sent.header("traceparent")).isEqualTo(PARENT);
      assertThat(sent.header("tracestate")).isEqualTo("rojo=00f067aa0ba902b7");
      assertThat(sent.header("baggage")).isEqualTo("user=alice");
      assertThat(sent.meta("traceparent").asString()).as("the body keeps its keys").isEqualTo(PARENT);
      assertThat(server.failures()).isEmpty();
    }
  }

  @Test
  void malformedValuesAndAStateWithoutItsParentAreNotSentAsHeaders() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = RelayEra2026ComponentTest.modern(server)) {
      relay.initialize();
      relay.send(tracedCall(4, "\"traceparent\":\"00-not-a-trace\",\"tracestate\":\"rojo=1\",\"baggage\":\"k=v\\r\\nX-Injected: 1\""));
      relay.answerTo("4");
      Fake2026Exchange sent = server.awaitPost("tools/call");
      assertThat(sent.header("mcp-method")).as("the request went, with its routing headers").isEqualTo("tools/call");
      assertThat(sent.header("traceparent")).isNull();
      assertThat(sent.header("tracestate")).isNull();
      assertThat(sent.header("baggage")).isNull();
      assertThat(sent.header("x-injected")).isNull();
      assertThat(sent.meta("traceparent").asString()).as("the body is the host's, untouched").isEqualTo("00-not-a-trace");
    }
  }

  @Test
  void the2025EraWireIsUnchanged() {
    try (FakeMcpServer server = new FakeMcpServer(FakeMcpServer::standard); RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      String call = tracedCall(5, "\"traceparent\":\"" + PARENT + "\"");
      relay.send(call);
      relay.answerTo("5");
      FakeMcpServer.Exchange sent = server.posts("tools/call").getFirst();
      assertThat(sent.header("mcp-session-id")).as("a 2025-era session").isNotNull();
      assertThat(sent.header("traceparent")).isNull();
      assertThat(new String(sent.body(), java.nio.charset.StandardCharsets.UTF_8)).isEqualTo(call);
    }
  }
}
