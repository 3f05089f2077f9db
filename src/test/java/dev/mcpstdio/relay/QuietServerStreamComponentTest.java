package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A server that never commits its GET response (the Java SDK's servlet transport sends no headers
 * before its first event) leaves the relay's GET stream unestablished. Discovery must not spend
 * the one bounded wait (AwaitServerStream.BOUND) on it; a tool call does. Shown with a lower
 * bound only, which a busy machine cannot break: the tool call after a tools/list still waits,
 * so the tools/list did not.
 */
class QuietServerStreamComponentTest {

  @Test
  void discoveryDoesNotSpendTheOneWaitForAQuietGetStream() {
    AtomicLong callArrived = new AtomicLong();
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (e.method().equals("GET")) {
            return Reply.hang(); // no headers, ever: the stream is never established
          }
          if ("tools/call".equals(e.rpcMethod())) {
            callArrived.compareAndSet(0, System.nanoTime());
          }
          return FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
      assertThat(relay.answerTo("2")).contains("\"tools\"");
      long sent = System.nanoTime();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
      assertThat(relay.answerTo("3")).contains("\"result\"");
      Duration held = Duration.ofNanos(callArrived.get() - sent);
      assertThat(held).as("the tool call's wait for the GET stream (the tools/list before it must not have used it)")
          .isGreaterThanOrEqualTo(AwaitServerStream.BOUND.minusMillis(50));
    }
  }
}
