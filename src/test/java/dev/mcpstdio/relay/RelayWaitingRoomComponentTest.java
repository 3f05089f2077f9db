package dev.mcpstdio.relay;

import static dev.mcpstdio.relay.WaitingRoomFixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/**
 * Requests read while the relay has no room for them wait in the {@link WaitingRoom}; what the
 * host writes after them is not stuck behind them. Every relay here may have one request in flight.
 */
class RelayWaitingRoomComponentTest {

  /**
   * The one call in flight needs the host's answer to the server's question before it can end;
   * the host sends another call and then the answer. The answer must reach the server although
   * the second call is waiting for room (a reader that waited would deadlock until --timeout-read).
   */
  @Test
  void theHostsAnswerToTheServerIsNotStuckBehindARequestWaitingForRoom() {
    CountDownLatch answered = new CountDownLatch(1);
    try (FakeMcpServer server = asking(answered);
        RelayHarness relay = withOneAsking(server)) {
      relay.send(call(2, "plain"));
      relay.send(ACCEPT);
      Map<String, String> answers = relay.answersTo("1", "2"); // once call 1 ends, 2 may answer first
      assertThat(answers.get("1")).contains("\"asked\":true");
      assertThat(answers.get("2")).contains("\"text\":\"ok\"");
      List<FakeMcpServer.Exchange> posts = server.exchanges().stream().filter(x -> x.method().equals("POST")).toList();
      int answer = posts.indexOf(posts.stream().filter(x -> x.message() instanceof JsonRpcMessage.Response).findFirst().orElseThrow());
      int second = posts.indexOf(server.posts("tools/call").get(1));
      assertThat(answer).as("the host's answer went before the call that waited").isLessThan(second);
    }
  }

  /** A request cancelled while it waits for room is never sent, and nothing is written for it. */
  @Test
  void aRequestCancelledWhileItWaitsIsNeverSent() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release);
        RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(cancel(2));
      Await.until("the waiting call withdrawn",
          () -> relay.log().contains("request 2 was cancelled while it waited for room; it was never sent"));
      release.countDown();
      assertThat(relay.answerTo("1")).contains("\"held\":true");
      pingThrough(relay);
      assertThat(server.posts("tools/call")).hasSize(1);
      assertThat(server.posts("notifications/cancelled")).isEmpty();
      assertThat(relay.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "2"));
    }
  }

  /** A cancel of the call in flight is not stuck behind the calls waiting for room either. */
  @Test
  void aCancelOfTheCallInFlightGoesOutPastTheWaitingOnes() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release);
        RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(cancel(1));
      Await.until("the cancel reached the server", () -> server.posts("notifications/cancelled").size() == 1);
      assertThat(server.posts("tools/call")).as("the second call still waits").hasSize(1);
      release.countDown(); // the server ignores the cancel and answers late: dropped
      assertThat(relay.answerTo("2")).contains("\"text\":\"ok\"");
      pingThrough(relay);
      assertThat(relay.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "1"));
    }
  }

  /** Waiting requests keep the host's order, and a notification after them stays behind them. */
  @Test
  void waitingRequestsKeepTheirOrderAndANotificationStaysBehindThem() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release);
        RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(call(3, "plain"));
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
      release.countDown();
      relay.answersTo("1", "2", "3"); // the server may answer 2 and 3 in either order: it is their posting that keeps the host's
      Await.until("the notification posted", () -> !server.posts("notifications/roots/list_changed").isEmpty());
      List<FakeMcpServer.Exchange> calls = server.posts("tools/call");
      assertThat(calls).extracting(FakeMcpServer.Exchange::rpcIdJson).containsExactly("1", "2", "3");
      assertThat(server.posts("notifications/roots/list_changed").get(0).seq()).isGreaterThan(calls.get(2).seq());
    }
  }

  /** At stdin's end the requests still waiting are sent and answered before the relay exits. */
  @Test
  void atStdinsEndTheWaitingRequestsAreStillSent() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release);
        RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(call(3, "plain"));
      relay.stdin.close();
      release.countDown();
      assertThat(relay.closeAndAwait()).isZero();
      for (String id : List.of("1", "2", "3")) {
        assertThat(relay.stdout.snapshot()).filteredOn(l -> RelayHarness.hasId(l, id)).singleElement()
            .satisfies(l -> assertThat(l).contains("\"result\""));
      }
    }
  }

  /** A shutdown answers each request still waiting for room, once. */
  @Test
  void aShutdownAnswersTheWaitingRequests() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = holding(release);
        RelayHarness relay = withOneInFlight(server)) {
      relay.send(call(2, "plain"));
      relay.send(call(3, "plain"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
      relay.send(cancel(4)); // read after 2, 3 and 4: once it is handled, all of them wait in the room
      Await.until("the ping withdrawn", () -> relay.log().contains("request 4 was cancelled while it waited"));
      relay.shutdown("test stops the relay");
      release.countDown();
      for (String id : List.of("1", "2", "3")) {
        assertThat(relay.stdout.snapshot()).filteredOn(l -> RelayHarness.hasId(l, id)).singleElement()
            .satisfies(l -> assertThat(Jsons.errorMessage(l)).contains("relay shutting down"));
      }
      assertThat(relay.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "4"));
      assertThat(server.posts("tools/call")).hasSize(1);
    }
  }
}
