package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** The relay's everyday path against a scriptable loopback server. */
class RelayBasicsComponentTest {

  @Test
  void relaysInitializeAndCarriesSessionAndVersionOnLaterRequests() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      String answer = relay.initialize();
      assertThat(answer).isEqualTo(FakeMcpServer.initializeResult("0", "2025-11-25"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
      relay.answerTo("1");

      FakeMcpServer.Exchange init = server.posts("initialize").get(0);
      assertThat(init.header("accept")).isEqualTo("application/json, text/event-stream");
      assertThat(init.header("content-type")).isEqualTo("application/json");
      assertThat(init.header("mcp-session-id")).isNull();
      assertThat(init.header("mcp-protocol-version")).isNull();
      assertThat(init.header("user-agent")).startsWith("mcp-stdio/");
      assertThat(init.text()).isEqualTo(RelayHarness.INITIALIZE);

      for (String method : List.of("notifications/initialized", "tools/call")) {
        FakeMcpServer.Exchange e = server.posts(method).get(0);
        assertThat(e.header("mcp-session-id")).as(method).isEqualTo(FakeMcpServer.SESSION);
        assertThat(e.header("mcp-protocol-version")).as(method).isEqualTo("2025-11-25");
        assertThat(e.header("accept")).isEqualTo("application/json, text/event-stream");
      }
    }
  }

  @Test
  void versionHeaderComesFromTheServersAnswerNotTheHostsRequest() {
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "initialize".equals(e.rpcMethod())
                ? Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-06-18"), "Mcp-Session-Id", "s")
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      assertThat(server.posts("ping").get(0).header("mcp-protocol-version")).isEqualTo("2025-06-18");
      assertThat(relay.log()).contains("negotiated MCP protocol version: 2025-06-18");
    }
  }

  @Test
  void streamsEventStreamMessagesAsTheyArrive() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
                ? Reply.sse(List.of(
                    Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"p\",\"progress\":1}}"),
                    Step.await(release),
                    Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"content\":[]}"))))
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"_meta\":{\"progressToken\":\"p\"}}}");
      // The progress notification must reach stdout while the server still holds the stream open.
      String progress = relay.stdout.nextMatching(l -> l.contains("notifications/progress"), RelayHarness.TIMEOUT);
      assertThat(progress).contains("\"progress\":1");
      assertThat(relay.stdout.pending()).noneMatch(l -> l.contains("\"id\":5"));
      release.countDown();
      assertThat(relay.answerTo("5")).isEqualTo(FakeMcpServer.result("5", "{\"content\":[]}"));
    }
  }

  @Test
  void notificationsAreAcceptedWith202AndNeverAnswered() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
      relay.answerTo("9");
      Await.until("notification posted", () -> !server.posts("notifications/roots/list_changed").isEmpty());
      assertThat(relay.stdout.snapshot()).hasSize(2); // initialize and ping answers only
    }
  }

  @Test
  void a202ToARequestBecomesAnError() {
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) ? Reply.status(202) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
      String line = relay.answerTo("\"a\"");
      assertThat(Jsons.errorCode(line)).isEqualTo(-32000);
      assertThat(Jsons.errorMessage(line)).isEqualTo("HTTP 202 (no response body for request)");
    }
  }

  @Test
  void badStdinLinesAreAnsweredAndLoseNothing() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withLimits(2048))) {
      relay.initialize();
      relay.send("this is not json");
      assertThat(Jsons.parse(relay.next()).get("error").get("code").asInt()).isEqualTo(-32700);
      relay.stdin.write(new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xC3, (byte) 0x28, '"', '}', '\n'});
      String utf8 = relay.next();
      assertThat(Jsons.errorCode(utf8)).isEqualTo(-32700);
      assertThat(Jsons.errorMessage(utf8)).contains("UTF-8");
      assertThat(Jsons.parse(utf8).get("id").isNull()).isTrue();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"tools/call\",\"params\":{\"blob\":\"" + "x".repeat(5000) + "\"}}");
      String big = relay.answerTo("77");
      assertThat(Jsons.errorCode(big)).isEqualTo(-32600);
      assertThat(Jsons.errorMessage(big)).contains("--max-message-size");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":78,\"method\":1}");
      assertThat(Jsons.errorCode(relay.answerTo("78"))).isEqualTo(-32600);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":{\"x\":1},\"method\":\"ping\"}");
      String nonScalar = relay.next();
      assertThat(Jsons.errorCode(nonScalar)).isEqualTo(-32600);
      assertThat(Jsons.parse(nonScalar).get("id").isNull()).isTrue();
      relay.send("   ");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":79,\"method\":\"ping\"}");
      assertThat(relay.answerTo("79")).contains("\"result\":{}");
      assertThat(server.posts("tools/call")).isEmpty(); // the oversized request never left
    }
  }

  @Test
  void aSlowCallNeverDelaysOtherRequests() {
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
                ? Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(e.rpcIdJson(), "{}"))))
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\"}}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      assertThat(relay.next()).contains("\"id\":2");
      release.countDown();
      assertThat(relay.next()).contains("\"id\":1");
    }
  }

  @Test
  void nothingOvertakesInitialize() {
    try (FakeMcpServer server =
            new FakeMcpServer(e -> {
              if ("initialize".equals(e.rpcMethod())) {
                return Reply.sse(List.of(Step.pause(Duration.ofMillis(300)),
                    Step.message(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-11-25"))), "Mcp-Session-Id", "late-session");
              }
              return FakeMcpServer.standard(e);
            });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.send(RelayHarness.INITIALIZE);
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
      relay.answerTo("1");
      FakeMcpServer.Exchange list = server.posts("tools/list").get(0);
      assertThat(list.header("mcp-session-id")).isEqualTo("late-session");
      assertThat(server.posts("notifications/initialized").get(0).header("mcp-session-id")).isEqualTo("late-session");
    }
  }

  @Test
  void normalisesNullArgumentsAndKeepsEveryOtherByte() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"n\",  \"arguments\" : null ,\"x\":\"\\u00e9\"}}");
      relay.answerTo("1");
      assertThat(server.posts("tools/call").get(0).text())
          .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"n\",  \"arguments\" : {} ,\"x\":\"\\u00e9\"}}");
    }
  }

  @Test
  void normalisationCanBeSwitchedOff() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withBehaviour(true, false))) {
      relay.initialize();
      String call = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"n\",\"arguments\":null}}";
      relay.send(call);
      relay.answerTo("1");
      assertThat(server.posts("tools/call").get(0).text()).isEqualTo(call);
    }
  }

  @Test
  void prettyPrintedBodiesLeaveAsOneLineWithLineSeparatorsEscaped() {
    String pretty = "{\n  \"jsonrpc\": \"2.0\",\r\n  \"id\": 1,\n  \"result\": {\"text\": \"a\u2028b\u2029c\"}\n}\n";
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod()) ? Reply.json(pretty) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"p\"}}");
      String line = relay.answerTo("1");
      assertThat(line).doesNotContain("\n").doesNotContain("\r").contains("a\\u2028b\\u2029c");
      assertThat(Jsons.parse(line).get("result").get("text").asString()).isEqualTo("a\u2028b\u2029c");
      assertThat(relay.stdout.unterminatedBytes()).isZero();
      byte[] raw = relay.stdout.rawSnapshot().get(1);
      assertThat(new String(raw, StandardCharsets.UTF_8)).doesNotContain("\u2028");
    }
  }

  @Test
  void userHeadersAndBearerTokenAreSentAndTheTokenNeverLogged() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withHeaders(List.of(
            new Header("Authorization", "Bearer s3cr3t-token"), new Header("X-Tenant", "blue"))))) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      for (FakeMcpServer.Exchange e : server.exchanges()) {
        assertThat(e.header("authorization")).isEqualTo("Bearer s3cr3t-token");
        assertThat(e.header("x-tenant")).isEqualTo("blue");
      }
      assertThat(relay.log()).doesNotContain("s3cr3t-token");
    }
  }

  @Test
  void theServersJsonRpcErrorOnA4xxIsRelayedAsIs() {
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
                ? Reply.body(400, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":" + e.rpcIdJson() + ",\"error\":{\"code\":-32602,\"message\":\"bad tool args\"}}")
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
      assertThat(relay.answerTo("3"))
          .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":-32602,\"message\":\"bad tool args\"}}");
    }
  }

  @Test
  void aServerErrorWithoutIdIsReportedWithStatusAndTheServersError() {
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
                ? Reply.body(500, "application/json", "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"boom\"}}")
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"x\"}}");
      String line = relay.answerTo("3");
      assertThat(Jsons.errorMessage(line)).isEqualTo("upstream server returned HTTP 500");
      assertThat(Jsons.parse(line).get("error").get("data").get("status").asInt()).isEqualTo(500);
      assertThat(Jsons.parse(line).get("error").get("data").get("upstreamError").get("message").asString()).isEqualTo("boom");
      assertThat(server.posts("tools/call")).hasSize(1); // a 500 is not retried
    }
  }

  @Test
  void endsTheSessionWithDeleteWhenStdinCloses() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      assertThat(relay.closeAndAwait()).isZero();
      List<FakeMcpServer.Exchange> deletes = server.requests("DELETE");
      assertThat(deletes).hasSize(1);
      assertThat(deletes.get(0).header("mcp-session-id")).isEqualTo(FakeMcpServer.SESSION);
    }
  }

  @Test
  void inFlightWorkFinishesWithinTheGraceAndTheRestIsAnswered() {
    CountDownLatch never = new CountDownLatch(1);
    try (FakeMcpServer server =
            new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
                ? Reply.sse(List.of(Step.await(never)))
                : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"forever\"}}");
      Await.until("call posted", () -> !server.posts("tools/call").isEmpty());
      assertThat(relay.closeAndAwait()).isZero();
      String line = relay.answerTo("4");
      assertThat(Jsons.errorMessage(line)).contains("shutting down");
      never.countDown();
    }
  }
}
