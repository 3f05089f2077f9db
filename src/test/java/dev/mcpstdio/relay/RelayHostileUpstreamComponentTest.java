package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.FakeMcpServer.Step;
import dev.mcpstdio.testing.RelayHarness;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Exactly one answer per request, also against an upstream that answers what nobody asked. */
class RelayHostileUpstreamComponentTest {

  private static String call(int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{}}}";
  }

  @Test
  void answersToIdsNobodyAskedDuplicatesAndArraysNeverReachTheHostAsSuch() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(
                Step.message(FakeMcpServer.result("99999", "{\"unasked\":1}")),
                Step.message(FakeMcpServer.result("\"never-asked-1\"", "{\"unasked\":2}")),
                Step.message("[" + FakeMcpServer.result(e.rpcIdJson(), "{\"n\":1}") + "]"),
                Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"n\":2}"))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(call(7));
      String answer = relay.answerTo("7");
      assertThat(answer).startsWith("{").contains("\"n\":1"); // the array taken apart, not a batch
      Await.until("the unasked answers dropped", () -> relay.log().contains("dropped a response for id 99999")
          && relay.log().contains("dropped a response for id \"never-asked-1\""));
      Await.until("the duplicate dropped", () -> relay.log().contains("dropped a second response for id 7"));
      // The host now really sends 99999: it gets its own answer, once.
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":99999,\"method\":\"ping\"}");
      String ping = relay.answerTo("99999");
      assertThat(ping).contains("\"result\":{}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
      relay.answerTo("8"); // everything before the ping's answer has been written
      List<String> lines = relay.stdout.snapshot();
      assertThat(lines).filteredOn(l -> RelayHarness.hasId(l, "7")).containsExactly(answer);
      assertThat(lines).filteredOn(l -> RelayHarness.hasId(l, "99999")).containsExactly(ping);
      assertThat(lines).noneMatch(l -> l.contains("never-asked-1") || l.startsWith("["));
    }
  }

  @Test
  void aHostBatchIsStillAnsweredWithABatch() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.text().startsWith("[")
            ? Reply.json("[" + FakeMcpServer.result("1", "{}") + "," + FakeMcpServer.result("2", "{}") + "]")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
      String batch = relay.next();
      assertThat(batch).startsWith("[").contains("\"id\":1").contains("\"id\":2");
    }
  }

  /**
   * An out-of-memory error that killed a thread the relay needs (its usher, say) leaves it unable
   * to go on: every open request gets an error that says so, and it
   * exits 1 rather than living on with requests nobody can answer.
   */
  @Test
  void anOutOfMemoryErrorThatKillsAThreadAnswersEveryOpenRequestAndExitsOne() {
    CountDownLatch never = new CountDownLatch(1);
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.await(never)))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(call(1));
      relay.send(call(2));
      Await.until("both calls upstream", () -> server.posts("tools/call").size() == 2);
      Thread usher = Thread.ofPlatform().name("mcp-stdio-usher").unstarted(() -> {});
      relay.relay.threadDied(usher, new OutOfMemoryError("Java heap space"));
      Await.until("both answered", () -> relay.stdout.snapshot().stream()
          .filter(l -> RelayHarness.hasId(l, "1") || RelayHarness.hasId(l, "2")).count() == 2);
      assertThat(relay.stdout.snapshot()).filteredOn(l -> RelayHarness.hasId(l, "1") || RelayHarness.hasId(l, "2"))
          .allMatch(l -> l.contains("-32603") && l.contains("out of memory"));
      assertThat(relay.closeAndAwait()).isEqualTo(1);
      assertThat(relay.log()).contains("the relay cannot go on");
    } finally {
      never.countDown();
    }
  }

  @Test
  void pastItsBoundTheRelayReadsStdinLaterAndLosesNothing() {
    List<CountDownLatch> releases = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      releases.add(new CountDownLatch(1));
    }
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (!"tools/call".equals(e.rpcMethod())) {
            return FakeMcpServer.standard(e);
          }
          int id = Integer.parseInt(e.rpcIdJson());
          return Reply.sse(List.of(Step.await(releases.get(id - 1)),
              Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"n\":" + id + "}"))));
        });
        RelayHarness relay = RelayHarness.startWithBounds(server.url(), new InFlightBounds(2, 1 << 20))) {
      relay.initialize();
      for (int id = 1; id <= 5; id++) {
        relay.send(call(id));
      }
      Await.until("two calls upstream", () -> server.posts("tools/call").size() == 2);
      releases.get(0).countDown();
      assertThat(relay.answerTo("1")).contains("\"n\":1");
      Await.until("a third call upstream", () -> server.posts("tools/call").size() == 3);
      // With two still open (2 and 3) nothing more may be sent: a relay that ignored its bound
      // would have sent all five by now.
      assertThat(server.posts("tools/call")).hasSize(3);
      for (int id = 2; id <= 5; id++) {
        releases.get(id - 1).countDown();
      }
      Await.until("every call answered", () -> relay.stdout.snapshot().stream()
          .filter(l -> l.contains("\"n\":")).count() == 5); // in any order
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
      relay.answerTo("9");
      for (int id = 1; id <= 5; id++) {
        String idJson = String.valueOf(id);
        assertThat(relay.stdout.snapshot()).filteredOn(l -> RelayHarness.hasId(l, idJson)).hasSize(1);
      }
    }
  }
}
