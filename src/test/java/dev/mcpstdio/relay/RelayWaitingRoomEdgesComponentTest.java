package dev.mcpstdio.relay;

import static dev.mcpstdio.relay.WaitingRoomFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * The {@link WaitingRoom}'s edges (batches, withdrawn requests, stdin's end). Every relay here may have one
 * request in flight; the first call is held upstream, so everything after it waits for room.
 */
class RelayWaitingRoomEdgesComponentTest {

  /**
   * The host's answer to the server's question, sent as a one-element batch (JSON-RPC allows it),
   * must not wait behind a request waiting for room either: the call in flight needs it to end.
   */
  @Test
  void aBatchedAnswerToTheServerIsNotStuckBehindARequestWaitingForRoom() {
    CountDownLatch answered = new CountDownLatch(1);
    try (FakeMcpServer server = asking(answered); RelayHarness relay = withOneAsking(server)) {
      relay.send(call(2, "plain"));
      relay.send("[" + ACCEPT + "]");
      Map<String, String> answers = relay.answersTo("1", "2"); // once call 1 ends, 2 may answer first
      assertThat(answers.get("1")).contains("\"asked\":true");
      assertThat(answers.get("2")).contains("\"text\":\"ok\"");
    }
  }

  /**
   * Withdrawn requests are never sent, so they must not keep the room full: a host that cancelled
   * the requests waiting must still get its answer to the server through.
   */
  @Test
  void withdrawnRequestsDoNotKeepTheRoomFull() {
    CountDownLatch answered = new CountDownLatch(1);
    try (FakeMcpServer server = asking(answered); RelayHarness relay = withOneAsking(server)) {
      int room = ONE_AT_A_TIME.waitingMessages();
      for (int id = 2; id < 2 + room; id++) {
        relay.send(call(id, "plain"));
        relay.send(cancel(id));
      }
      int last = 1 + room;
      Await.until("every waiting call withdrawn",
          () -> relay.log().contains("request " + last + " was cancelled while it waited for room"));
      relay.send(call(100, "plain")); // the room holds nothing that will ever be sent
      relay.send(ACCEPT);
      Map<String, String> answers = relay.answersTo("1", "100"); // once call 1 ends, 100 may answer first
      assertThat(answers.get("1")).contains("\"asked\":true");
      assertThat(answers.get("100")).contains("\"text\":\"ok\"");
    }
  }

  /** A notification behind a withdrawn request waits for nothing: that request is never sent. */
  @Test
  void aNotificationBehindAWithdrawnRequestDoesNotWaitForRoom() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release); RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(cancel(2));
      Await.until("the waiting call withdrawn",
          () -> relay.log().contains("request 2 was cancelled while it waited for room; it was never sent"));
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
      Await.until("the notification posted while call 1 is still held",
          () -> !server.posts("notifications/roots/list_changed").isEmpty());
      release.countDown();
    }
  }

  /** At stdin's end a withdrawn request does not hold the exit back until --timeout-read. */
  @Test
  void atStdinsEndAWithdrawnRequestDoesNotHoldTheExit() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release); RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(cancel(2));
      Await.until("the waiting call withdrawn",
          () -> relay.log().contains("request 2 was cancelled while it waited for room; it was never sent"));
      // call 1 stays held: the shutdown's grace (500 ms here) ends it, and the relay exits
      assertThat(relay.closeAndAwait()).isZero();
      assertThat(relay.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "2"));
    } finally {
      release.countDown();
    }
  }

  /**
   * A cancel of a request that waits for room inside a batch must not reach the server before the
   * batch that carries the request (DispatchOrder's promise: a cancel never overtakes its request).
   */
  @Test
  void aCancelOfABatchMemberWaitingForRoomDoesNotOvertakeTheBatch() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release); RelayHarness relay = withOneInFlight(server)) {
      relay.send("[" + call(2, "plain") + "]");
      relay.send(cancel(2));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}"); // read after the cancel
      release.countDown();
      relay.answerTo("1");
      relay.answerTo("9"); // behind the batch in the room: the batch was let in before it
      Await.until("the batch posted, unless the cancel never went",
          () -> server.posts("notifications/cancelled").isEmpty() || batchWith(server, 2).isPresent());
      for (FakeMcpServer.Exchange c : server.posts("notifications/cancelled")) {
        assertThat(batchWith(server, 2)).isPresent();
        assertThat(c.seq()).as("the cancel's POST came after the batch's").isGreaterThan(batchWith(server, 2).get().seq());
      }
    }
  }

  private static Optional<FakeMcpServer.Exchange> batchWith(FakeMcpServer server, int id) {
    return server.requests("POST").stream()
        .filter(x -> x.message() instanceof JsonRpcMessage.Batch b && b.members().stream()
            .anyMatch(m -> m instanceof JsonRpcMessage.Request r && r.id().equals(JsonRpcId.ofNumber(Integer.toString(id)))))
        .findFirst();
  }
}
