package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** Edges found in review: shutdown races, batches, hostile stream fields, paging bounds. */
class RelayEdgesComponentTest {

  @Test
  void aRequestFollowedAtOnceByEndOfInputIsStillAnswered() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.pause(Duration.ofMillis(50)), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{}"))))
            : FakeMcpServer.standard(e))) {
      for (int round = 0; round < 10; round++) {
        try (RelayHarness relay = RelayHarness.start(server.url())) {
          relay.stdin.write((RelayHarness.INITIALIZE + "\n"
              + "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}\n")
              .getBytes(java.nio.charset.StandardCharsets.UTF_8));
          assertThat(relay.closeAndAwait()).isZero();
          assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "7")))
              .as("round %d: exactly one answer to the request sent just before EOF", round).hasSize(1);
        }
      }
    }
  }

  @Test
  void aBatchGetsExactlyOneAnswerPerRequest() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.text().startsWith("[")
            ? Reply.json("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":1}},{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"b\":2}}]")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"},"
          + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}]");
      String reply = relay.stdout.nextMatching(l -> l.startsWith("["), RelayHarness.TIMEOUT);
      assertThat(Jsons.parse(reply)).hasSize(2);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
      relay.answerTo("3");
      assertThat(relay.stdout.snapshot()).hasSize(3); // initialize, the batch, the ping: no extra errors
    }
  }

  @Test
  void aFailedBatchAnswersEachRequestOnceAndRejectedMembersNeverLeave() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.text().startsWith("[") ? Reply.status(500) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/x\",\"method\":\"ping\"},"
          + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
      Await.until("three answers", () -> relay.stdout.snapshot().size() == 4);
      List<String> lines = relay.stdout.snapshot();
      assertThat(lines.stream().filter(l -> RelayHarness.hasId(l, "1"))).hasSize(1);
      assertThat(lines.stream().filter(l -> RelayHarness.hasId(l, "2"))).hasSize(1);
      assertThat(lines.stream().filter(l -> RelayHarness.hasId(l, "\"mcp-stdio/x\""))).hasSize(1);
      String sent = server.exchanges().stream().filter(e -> e.text().startsWith("[")).findFirst().orElseThrow().text();
      assertThat(sent).doesNotContain("mcp-stdio/x");
    }
  }

  @Test
  void aNonAsciiEventIdNeitherKillsTheStreamNorReachesAHeader() {
    AtomicInteger gets = new AtomicInteger();
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (e.method().equals("GET")) {
            int n = gets.incrementAndGet();
            String data = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"n" + n + "\"}}";
            return n <= 2
                ? Reply.sse(List.of(Step.raw("id: caf\u00e9 \u65e5\u672c\nretry: 100\ndata: " + data + "\n\n")))
                : Reply.sse(List.of(Step.message(data), Step.pause(Duration.ofSeconds(20))));
          }
          return FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.stdout.nextMatching(l -> l.contains("\"n3\""), RelayHarness.TIMEOUT);
      assertThat(server.requests("GET")).allMatch(e -> e.header("last-event-id") == null);
      assertThat(relay.log()).doesNotContain("unexpected");
    }
  }

  @Test
  void aServerThatEndsItsStreamAtOnceIsNotHammered() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.method().equals("GET")
            ? Reply.sse(List.of(Step.raw("retry: 0\n\n")))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      Await.until("several reopenings", () -> server.requests("GET").size() >= 4);
      List<Duration> waits = List.copyOf(relay.sleeps).subList(0, 3); // a snapshot: the relay goes on sleeping
      assertThat(waits).allMatch(d -> d.compareTo(RetryPolicy.MIN_SERVER_RETRY) >= 0);
      assertThat(waits.get(2)).isGreaterThan(waits.get(0)); // an empty stream backs off
    }
  }

  @Test
  void pagingStopsAtTheSizeBoundWithAResumableCursor() {
    String bigTool = "{\"name\":\"t\",\"description\":\"" + "d".repeat(1500) + "\"}";
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (!"tools/list".equals(e.rpcMethod())) {
            return FakeMcpServer.standard(e);
          }
          int page = e.param("cursor") == null ? 1 : Integer.parseInt(e.param("cursor").replace("\"", ""));
          return Reply.json(FakeMcpServer.result(e.rpcIdJson(), "{\"tools\":[" + bigTool + "],\"nextCursor\":\"" + (page + 1) + "\"}"));
        });
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withLimits(5000))) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
      JsonNode result = Jsons.parse(relay.answerTo("4")).get("result");
      assertThat(result.get("tools").size()).isBetween(1, 3);
      assertThat(result.get("nextCursor").asString()).isEqualTo(String.valueOf(result.get("tools").size() + 1));
      assertThat(server.posts("tools/list").size()).isLessThan(10);
    }
  }

  @Test
  void cancellingAListBeingPagedCancelsThePageInFlightAndStops() {
    CountDownLatch secondPage = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (!"tools/list".equals(e.rpcMethod())) {
            return FakeMcpServer.standard(e);
          }
          if (e.param("cursor") == null) {
            return Reply.json(FakeMcpServer.result(e.rpcIdJson(), "{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"2\"}"));
          }
          secondPage.countDown();
          return Reply.sse(List.of(Step.await(release),
              Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"tools\":[{\"name\":\"b\"}],\"nextCursor\":\"3\"}"))));
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}");
      Await.until("second page requested", () -> secondPage.getCount() == 0);
      String pageId = server.posts("tools/list").get(1).rpcIdJson();
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":9}}");
      Await.until("cancel forwarded", () -> !server.posts("notifications/cancelled").isEmpty());
      assertThat(server.posts("notifications/cancelled").get(0).param("requestId")).isEqualTo(pageId);
      release.countDown();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}");
      relay.answerTo("10");
      Await.until("paging stopped", () -> relay.log().contains("stopped paging"));
      assertThat(server.posts("tools/list")).hasSize(2);
      assertThat(relay.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "9"));
    }
  }

  @Test
  void aSecondInitializeEndsTheOldSessionAndMovesTheStream() {
    AtomicInteger sessions = new AtomicInteger();
    FakeMcpServer[] holder = new FakeMcpServer[1];
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if ("initialize".equals(e.rpcMethod())) {
            return Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-11-25"), "Mcp-Session-Id", "s" + sessions.incrementAndGet());
          }
          return e.method().equals("GET") ? holder[0].getStream() : FakeMcpServer.standard(e);
        })) {
      holder[0] = server;
      try (RelayHarness relay = RelayHarness.start(server.url())) {
        relay.initialize();
        Await.until("first stream", () -> server.requests("GET").size() == 1);
        relay.send(RelayHarness.INITIALIZE.replace("\"id\":0", "\"id\":50"));
        relay.answerTo("50");
        Await.until("old session deleted", () -> server.requests("DELETE").stream().anyMatch(e -> "s1".equals(e.header("mcp-session-id"))));
        Await.until("stream moved", () -> server.requests("GET").stream().anyMatch(e -> "s2".equals(e.header("mcp-session-id"))));
      }
    }
  }
}
