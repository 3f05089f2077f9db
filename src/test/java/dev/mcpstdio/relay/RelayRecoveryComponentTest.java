package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.net.ServerSocket;
import java.net.URI;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Session recovery, retries, rate limits and replay safety. */
class RelayRecoveryComponentTest {

  private static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}";
  private static final String LIST = "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}";

  /** A server that forgets session "session-1" after initialize and hands out "session-2". */
  private static FakeMcpServer forgetfulServer(AtomicInteger inits) {
    return new FakeMcpServer(e -> {
      if ("initialize".equals(e.rpcMethod())) {
        String session = "session-" + inits.incrementAndGet();
        return Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-06-18"), "Mcp-Session-Id", session);
      }
      if ("session-1".equals(e.header("mcp-session-id")) && e.method().equals("POST")
          && !"notifications/initialized".equals(e.rpcMethod())) {
        return Reply.body(404, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}");
      }
      return FakeMcpServer.standard(e);
    });
  }

  @Test
  void reinitializesWithTheHostsHandshakeAndReplaysOnce() {
    AtomicInteger inits = new AtomicInteger();
    try (FakeMcpServer server = forgetfulServer(inits);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String answer = relay.answerTo("7");
      assertThat(answer).contains("\"result\"");
      assertThat(relay.stdout.snapshot()).hasSize(2); // the re-initialize answer stays internal

      List<FakeMcpServer.Exchange> initializes = server.posts("initialize");
      assertThat(initializes).hasSize(2);
      FakeMcpServer.Exchange replay = initializes.get(1);
      assertThat(replay.rpcIdJson()).startsWith("\"mcp-stdio/reinit-");
      assertThat(replay.param("protocolVersion")).isEqualTo("\"2025-06-18\"");
      assertThat(replay.param("capabilities")).isEqualTo("{\"sampling\":{},\"elicitation\":{}}");
      assertThat(replay.param("clientInfo")).contains("test-host");
      assertThat(replay.header("mcp-session-id")).isNull();

      List<FakeMcpServer.Exchange> initialized = server.posts("notifications/initialized");
      assertThat(initialized).hasSize(2);
      assertThat(initialized.get(1).header("mcp-session-id")).isEqualTo("session-2");
      List<FakeMcpServer.Exchange> calls = server.posts("tools/call");
      assertThat(calls).hasSize(2);
      assertThat(calls.get(1).header("mcp-session-id")).isEqualTo("session-2");
      assertThat(calls.get(1).text()).isEqualTo(CALL);
      assertThat(relay.log()).contains("session expired, re-initializing and retrying");
      // the host asked twice and got two results; the replay was the relay's own business
      assertThat(relay.relay.counts()).isEqualTo(new RelayCounts.Snapshot(2, 2, 0, 0, 0, 0, 1));
    }
  }

  @Test
  void concurrentRequestsThatAllSee404ShareOneReinitialization() {
    AtomicInteger inits = new AtomicInteger();
    try (FakeMcpServer server = forgetfulServer(inits);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      for (int i = 100; i < 110; i++) {
        relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + i + ",\"method\":\"ping\"}");
      }
      for (int i = 0; i < 10; i++) {
        assertThat(relay.next()).contains("\"result\":{}");
      }
      assertThat(server.posts("initialize")).hasSize(2);
    }
  }

  @Test
  void aFailedReinitializationSaysSessionLost() {
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if ("initialize".equals(e.rpcMethod())) {
            return e.rpcIdJson().startsWith("\"mcp-stdio/") ? Reply.status(500)
                : Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-11-25"), "Mcp-Session-Id", "s1");
          }
          return "tools/call".equals(e.rpcMethod()) ? Reply.status(404) : FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).startsWith("session lost: re-initialize failed (HTTP 500)");
    }
  }

  @Test
  void aColdNotFoundIsAPlainError() {
    try (FakeMcpServer server = new FakeMcpServer(e -> Reply.status(404));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream server returned HTTP 404");
      assertThat(server.exchanges()).hasSize(1);
    }
  }

  @Test
  void connectionRefusedIsRetriedThreeTimesThenReported() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort(); // closed again: nothing listens there
    }
    try (RelayHarness relay = RelayHarness.start(URI.create("http://127.0.0.1:" + port + "/mcp"))) {
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream request failed: connection refused");
      assertThat(relay.sleeps).containsExactly(Duration.ofMillis(10), Duration.ofMillis(20));
      assertThat(relay.log()).contains("attempt 1/3 failed").contains("attempt 2/3 failed");
      assertThat(relay.relay.counts()).isEqualTo(new RelayCounts.Snapshot(1, 0, 0, 1, 0, 2, 0));
    }
  }

  @Test
  void honoursRetryAfterSecondsOn429() {
    AtomicInteger calls = new AtomicInteger();
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) && calls.incrementAndGet() == 1
            ? Reply.status(429, "Retry-After", "7")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      assertThat(relay.answerTo("7")).contains("\"result\"");
      assertThat(relay.sleeps).contains(Duration.ofSeconds(7));
      assertThat(server.posts("tools/call")).hasSize(2);
      assertThat(relay.log()).contains("attempt 1/3 got HTTP 429, sleeping 7s before retry");
      assertThat(relay.relay.counts().retries()).isEqualTo(1);
    }
  }

  @Test
  void honoursRetryAfterAsHttpDateOn503() {
    AtomicInteger calls = new AtomicInteger();
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(30));
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/list".equals(e.rpcMethod()) && calls.incrementAndGet() == 1
            ? Reply.status(503, "Retry-After", date)
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(LIST);
      assertThat(relay.answerTo("8")).contains("\"tools\"");
      Duration slept = relay.sleeps.get(0);
      assertThat(slept).isBetween(Duration.ofSeconds(25), Duration.ofSeconds(31));
    }
  }

  @Test
  void aRetryAfterBeyondTheCapGivesUpAtOnceWithRetryAfterInData() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.status(429, "Retry-After", "3600")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream server returned HTTP 429");
      assertThat(Jsons.parse(line).get("error").get("data").get("retryAfter").asInt()).isEqualTo(3600);
      assertThat(server.posts("tools/call")).hasSize(1);
      assertThat(relay.sleeps).isEmpty();
    }
  }

  @Test
  void exhaustedRateLimitRetriesSurfaceTheStatus() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.status(503, "Retry-After", "1")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream server returned HTTP 503");
      assertThat(Jsons.parse(line).get("error").get("data").get("retryAfter").asInt()).isEqualTo(1);
      assertThat(server.posts("tools/call")).hasSize(3);
      assertThat(relay.sleeps).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
    }
  }

  @Test
  void aToolCallIsNeverReplayedAfterItWasSent() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) ? Reply.drop() : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line))
          .startsWith("upstream connection failed after the request was sent")
          .contains("tools/call may already have run");
      assertThat(server.posts("tools/call")).hasSize(1);
    }
  }

  @Test
  void anIdempotentRequestIsReplayedAfterAPostSendFailure() {
    AtomicInteger calls = new AtomicInteger();
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/list".equals(e.rpcMethod()) && calls.incrementAndGet() < 3
            ? Reply.drop()
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(LIST);
      assertThat(relay.answerTo("8")).contains("\"tools\"");
      assertThat(server.posts("tools/list")).hasSize(3);
    }
  }

  @Test
  void aStreamDroppedAfterPartOfTheAnswerIsReportedAndNotRetried() {
    // The server cuts the stream only once the host has the first message: "part of the answer
    // was delivered" must be a fact of the test, not a race between the data and the cut.
    CountDownLatch delivered = new CountDownLatch(1);
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/list".equals(e.rpcMethod())
            ? Reply.sseThenDrop(List.of(
                Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}"),
                Step.await(delivered)))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(LIST);
      assertThat(relay.stdout.nextMatching(l -> l.contains("notifications/message"), RelayHarness.TIMEOUT)).isNotNull();
      delivered.countDown();
      String line = relay.answerTo("8");
      assertThat(Jsons.errorMessage(line)).startsWith("upstream stream interrupted");
      assertThat(server.posts("tools/list")).hasSize(1); // at most once after part was delivered
    }
  }

  @Test
  void aStreamThatEndsWithoutTheAnswerIsAnError() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.raw(": just a comment\n\n")))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      assertThat(Jsons.errorMessage(relay.answerTo("7"))).isEqualTo("empty response from server");
    }
  }

  @Test
  void malformedEventDataIsDroppedWithAWarning() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message("{not json"), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{}"))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      assertThat(relay.answerTo("7")).isEqualTo(FakeMcpServer.result("7", "{}"));
      assertThat(relay.log()).contains("dropped a malformed message from upstream");
      assertThat(relay.stdout.snapshot()).hasSize(2);
    }
  }

  @Test
  void aServerThatNeverAnswersTimesOut() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) ? Reply.hang() : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(),
            c -> c.withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(300), Duration.ofSeconds(300)))) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).contains("no response within --timeout-read");
      assertThat(server.posts("tools/call")).hasSize(1);
    }
  }

  @Test
  void silenceInsideAStreamTimesOut() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}"),
                Step.pause(Duration.ofSeconds(20))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(),
            c -> c.withTimeouts(Duration.ofSeconds(2), Duration.ofMillis(400), Duration.ofSeconds(300)))) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).contains("no data from upstream for");
    }
  }
}
