package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/** Messages, servers and relays for the waiting room's component tests: every relay may have one request in flight. */
final class WaitingRoomFixtures {

  private WaitingRoomFixtures() {}

  static final InFlightBounds ONE_AT_A_TIME = new InFlightBounds(1, 1 << 20);

  static String call(int id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{}}}";
  }

  static String cancel(int id) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + id + "}}";
  }

  static final String ELICIT =
      "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"elicitation/create\",\"params\":{\"message\":\"ok?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}";

  static final String ACCEPT = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"action\":\"accept\",\"content\":{}}}";

  /** Calls named "held" wait for {@code release}; others answer at once. */
  static FakeMcpServer holding(CountDownLatch release) {
    return new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) && e.text().contains("\"held\"")
        ? Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"held\":true}"))))
        : FakeMcpServer.standard(e));
  }

  /** Call "asks" puts a question to the host and ends only once the host's answer (alone or in a batch) arrived. */
  static FakeMcpServer asking(CountDownLatch answered) {
    return new FakeMcpServer(e -> {
      JsonRpcMessage m = e.message();
      if (m instanceof JsonRpcMessage.Response
          || m instanceof JsonRpcMessage.Batch b && b.members().stream().anyMatch(x -> x instanceof JsonRpcMessage.Response)) {
        answered.countDown();
        return Reply.status(202);
      }
      if ("tools/call".equals(e.rpcMethod()) && e.text().contains("\"asks\"")) {
        return Reply.sse(List.of(Step.message(ELICIT), Step.await(answered),
            Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"asked\":true}"))));
      }
      return FakeMcpServer.standard(e);
    });
  }

  static RelayHarness withOneInFlight(FakeMcpServer server) {
    RelayHarness relay = RelayHarness.startWithBounds(server.url(), ONE_AT_A_TIME);
    relay.initialize();
    relay.send(call(1, "held"));
    Await.until("the first call is upstream", () -> server.posts("tools/call").size() == 1);
    return relay;
  }

  static RelayHarness withOneAsking(FakeMcpServer server) {
    RelayHarness relay = RelayHarness.startWithBounds(server.url(), ONE_AT_A_TIME);
    relay.initialize();
    relay.send(call(1, "asks"));
    assertThat(relay.stdout.nextMatching(l -> l.contains("elicitation/create"), RelayHarness.TIMEOUT)).isEqualTo(ELICIT);
    return relay;
  }

  /** A ping answered: it went through the same room, so everything before it is done. */
  static void pingThrough(RelayHarness relay) {
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
    relay.answerTo("9");
  }
}
