package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** The cancel filter and list pagination. */
class RelayCancelAndPagesComponentTest {

  private static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}";
  private static final String CANCEL =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"user\"}}";

  private static FakeMcpServer lateAnswering(CountDownLatch release) {
    return new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
        ? Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"late\":true}"))))
        : FakeMcpServer.standard(e));
  }

  @Test
  void dropsTheLateResponseToACancelledRequest() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = lateAnswering(release);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      relay.send(CANCEL);
      Await.until("cancel forwarded", () -> !server.posts("notifications/cancelled").isEmpty());
      release.countDown();
      Await.until("drop logged", () -> relay.log().contains("dropped late response for cancelled id 7"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
      relay.answerTo("8");
      assertThat(relay.stdout.snapshot()).noneMatch(l -> l.contains("late"));
    }
  }

  @Test
  void theFilterCanBeSwitchedOff() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = lateAnswering(release);
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withBehaviour(false, true))) {
      relay.initialize();
      relay.send(CALL);
      relay.send(CANCEL);
      Await.until("cancel forwarded", () -> !server.posts("notifications/cancelled").isEmpty());
      release.countDown();
      assertThat(relay.answerTo("7")).contains("late");
    }
  }

  @Test
  void theRelaysOwnErrorForACancelledRequestIsStillWritten() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) ? Reply.status(500) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}");
      relay.send(CALL); // reusing the id supersedes the earlier cancel
      assertThat(Jsons.errorMessage(relay.answerTo("7"))).contains("HTTP 500");
    }
  }

  /** A server whose "slow" tool answers {@code {"late":true}} once {@code release} opens, and whose other tool calls get {@code fast}. */
  private static FakeMcpServer slowThenFast(CountDownLatch release, java.util.function.Function<FakeMcpServer.Exchange, Reply> fast) {
    return new FakeMcpServer(e -> {
      if (!"tools/call".equals(e.rpcMethod())) {
        return FakeMcpServer.standard(e);
      }
      return e.text().contains("\"slow\"")
          ? Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"late\":true}"))))
          : fast.apply(e);
    });
  }

  /** Sends the slow call 7, cancels it while it runs, reuses 7 for a "fast" call; returns the answer to 7. */
  private static String cancelAndReuse(RelayHarness relay, FakeMcpServer server) {
    relay.initialize();
    relay.send(CALL);
    Await.until("the first call is upstream", () -> server.posts("tools/call").size() == 1);
    relay.send(CANCEL);
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"fast\",\"arguments\":{}}}");
    return relay.answerTo("7");
  }

  /**
   * The host cancels id 7 while its call is still running upstream and at once reuses 7 for a new
   * call. The new call gets exactly one answer, its own; the cancelled call's late answer, released
   * only after that, never reaches stdout (the new call went upstream under an alias: ReusedIds).
   */
  @Test
  void aReusedIdIsAnsweredAgain() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = slowThenFast(release, e -> Reply.json(FakeMcpServer.result(e.rpcIdJson(), "{\"fresh\":true}")));
        RelayHarness relay = RelayHarness.start(server.url())) {
      String answer = cancelAndReuse(relay, server);
      assertThat(answer).as("the answer to the new request").contains("\"fresh\":true");
      release.countDown();
      Await.until("the late answer is dropped or written", () -> relay.log().matches("(?s).*dropped[^\n]*id 7.*")
          || relay.stdout.snapshot().stream().anyMatch(l -> l.contains("late")));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
      relay.answerTo("8"); // everything before the ping's answer has been written
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "7")))
          .as("answers for id 7").containsExactly(answer);
    }
  }

  /**
   * A reused id travels upstream under an alias; the server's own JSON-RPC error in an HTTP error
   * body names that alias, and still reaches the host under the host's id, in the server's words.
   */
  @Test
  void theServersErrorBodyForAReusedIdReachesTheHost() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = slowThenFast(release, e -> Reply.body(400, "application/json",
            "{\"jsonrpc\":\"2.0\",\"id\":" + e.rpcIdJson() + ",\"error\":{\"code\":-32602,\"message\":\"unknown tool: fast\"}}"));
        RelayHarness relay = RelayHarness.start(server.url())) {
      String answer = cancelAndReuse(relay, server);
      assertThat(server.posts("tools/call").get(1).rpcIdJson()).startsWith("\"mcp-stdio/reused-");
      assertThat(answer).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"error\":{\"code\":-32602,\"message\":\"unknown tool: fast\"}}");
      release.countDown();
    }
  }

  /**
   * A list the relay pages under a reused id (so under an alias upstream) stops paging when the
   * host cancels it, as a list under the host's own id does: no page after the one in flight.
   */
  @Test
  void aPagedListUnderAReusedIdStopsWhenCancelled() {
    CountDownLatch releaseCall = new CountDownLatch(1);
    CountDownLatch releasePage = new CountDownLatch(1);
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          String id = e.rpcIdJson();
          if ("tools/call".equals(e.rpcMethod())) {
            return Reply.sse(List.of(Step.await(releaseCall), Step.message(FakeMcpServer.result(id, "{\"late\":true}"))));
          }
          if (!"tools/list".equals(e.rpcMethod())) {
            return FakeMcpServer.standard(e);
          }
          String cursor = e.param("cursor");
          if (cursor == null) {
            return Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"a\"}],\"nextCursor\":\"c2\"}"));
          }
          return Reply.sse(List.of(Step.await(releasePage),
              Step.message(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"b\"}],\"nextCursor\":\"c3\"}"))));
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      Await.until("the first call is upstream", () -> server.posts("tools/call").size() == 1);
      relay.send(CANCEL);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/list\"}");
      Await.until("the second page is asked for", () -> server.posts("tools/list").size() == 2);
      relay.send(CANCEL);
      Await.until("the cancel names the page in flight", () -> server.posts("notifications/cancelled").stream()
          .anyMatch(c -> c.text().contains(server.posts("tools/list").get(1).rpcIdJson())));
      releasePage.countDown();
      Await.until("paging stopped", () -> relay.log().contains("tools/list 7 was cancelled; stopped paging"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}");
      relay.answerTo("8"); // everything before the ping's answer has been written
      assertThat(server.posts("tools/list")).hasSize(2);
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "7"))).isEmpty();
      releaseCall.countDown();
    }
  }

  /** An id reused after its request was answered gets exactly one more answer: the new request's. */
  @Test
  void anAnsweredIdReusedGetsTheNewRequestsAnswer() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
      String first = relay.answerTo("5");
      assertThat(first).contains("\"result\":{}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
      String second = relay.answerTo("5");
      assertThat(second).as("the answer to the second request").contains("\"text\":\"ok\"");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
      relay.answerTo("6"); // everything before the ping's answer has been written
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "5")))
          .as("answers for id 5").containsExactly(first, second);
      assertThat(server.posts("ping")).hasSize(2);
      assertThat(server.posts("tools/call")).hasSize(1);
    }
  }

  @Test
  void aSecondAnswerForOneIdIsHeldBack() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"n\":1}")),
                Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"n\":2}"))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      assertThat(relay.answerTo("7")).contains("\"n\":1");
      Await.until("duplicate dropped", () -> relay.log().contains("dropped a second response for id 7"));
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "7"))).hasSize(1);
    }
  }

  @Test
  void aDuplicateInFlightIdIsRefused() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = lateAnswering(release);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      relay.send(CALL);
      String refusal = relay.answerTo("7");
      assertThat(Jsons.errorMessage(refusal)).contains("already in use by a request in flight");
      release.countDown();
      assertThat(relay.answerTo("7")).contains("late");
      assertThat(server.posts("tools/call")).hasSize(1);
    }
  }

  /** Serves tools in three pages: a,b / c / d. */
  private static FakeMcpServer pagedServer(boolean failThirdPage) {
    return new FakeMcpServer(e -> {
      if (!"tools/list".equals(e.rpcMethod())) {
        return FakeMcpServer.standard(e);
      }
      String cursor = e.param("cursor");
      String id = e.rpcIdJson();
      if (cursor == null) {
        return Reply.sse(List.of(
            Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"paging\"}}"),
            Step.message(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"a\"},{\"name\":\"b\", \"x\": 1.50}],\"nextCursor\":\"c2\",\"ttlMs\":500,\"cacheScope\":\"public\"}"))));
      }
      if (cursor.equals("\"c2\"")) {
        return Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"c\"}],\"nextCursor\":\"c3\",\"ttlMs\":200,\"cacheScope\":\"private\",\"_meta\":{\"late\":1}}"));
      }
      return failThirdPage ? Reply.status(500)
          : Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"d\"}],\"ttlMs\":900,\"cacheScope\":\"public\"}"));
    });
  }

  @Test
  void mergesEveryPageForAHostThatDidNotAskForOne() {
    try (FakeMcpServer server = pagedServer(false);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"tools/list\",\"params\":{}}");
      String line = relay.answerTo("\"L\"");
      JsonNode result = Jsons.parse(line).get("result");
      assertThat(result.get("tools").findValuesAsString("name")).containsExactly("a", "b", "c", "d");
      assertThat(result.has("nextCursor")).isFalse();
      assertThat(result.get("ttlMs").asInt()).isEqualTo(200);
      assertThat(result.get("cacheScope").asString()).isEqualTo("private");
      assertThat(result.get("_meta").get("late").asInt()).isEqualTo(1);
      assertThat(line).contains("{\"name\":\"b\", \"x\": 1.50}"); // items keep their bytes
      assertThat(relay.stdout.snapshot()).anyMatch(l -> l.contains("\"paging\""));
      List<FakeMcpServer.Exchange> pages = server.posts("tools/list");
      assertThat(pages).hasSize(3);
      assertThat(pages).allMatch(p -> p.rpcIdJson().startsWith("\"mcp-stdio/page-"));
      assertThat(pages.get(1).param("cursor")).isEqualTo("\"c2\"");
    }
  }

  @Test
  void aFailedLaterPageYieldsThePagesSoFarWithAResumableCursor() {
    try (FakeMcpServer server = pagedServer(true);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
      JsonNode result = Jsons.parse(relay.answerTo("3")).get("result");
      assertThat(result.get("tools").findValuesAsString("name")).containsExactly("a", "b", "c");
      assertThat(result.get("nextCursor").asString()).isEqualTo("c3");
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "3"))).hasSize(1);
    }
  }

  @Test
  void aHostThatPagesItselfIsPassedThrough() {
    try (FakeMcpServer server = pagedServer(false);
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      String request = "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c2\"}}";
      relay.send(request);
      JsonNode result = Jsons.parse(relay.answerTo("4")).get("result");
      assertThat(result.get("nextCursor").asString()).isEqualTo("c3");
      assertThat(server.posts("tools/list")).hasSize(1);
      assertThat(server.posts("tools/list").get(0).text()).isEqualTo(request);
    }
  }

  @Test
  void aSinglePageKeepsTheServersBytesUnderTheHostsId() {
    String page = "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"prompts\":[ {\"name\":\"p\"} ] , \"extra\":true}}";
    try (FakeMcpServer server = new FakeMcpServer(e -> "prompts/list".equals(e.rpcMethod())
            ? Reply.json(page.formatted(e.rpcIdJson()))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"prompts/list\"}");
      assertThat(relay.answerTo("12")).isEqualTo(page.formatted("12"));
    }
  }

  @Test
  void aFirstPageErrorIsTheServersErrorUnderTheHostsId() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "resources/list".equals(e.rpcMethod())
            ? Reply.json("{\"jsonrpc\":\"2.0\",\"id\":" + e.rpcIdJson() + ",\"error\":{\"code\":-32601,\"message\":\"no resources\"}}")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"resources/list\"}");
      assertThat(relay.answerTo("13"))
          .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":13,\"error\":{\"code\":-32601,\"message\":\"no resources\"}}");
    }
  }
}
