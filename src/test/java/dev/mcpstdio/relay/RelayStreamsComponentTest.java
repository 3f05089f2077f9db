package dev.mcpstdio.relay;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/** Server-initiated traffic, stream resumption, size bounds and encodings. */
class RelayStreamsComponentTest {

  private static final String CALL =
      "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}";

  @Test
  void opensTheGetStreamAfterInitializedAndCarriesServerRequestsBothWays() {
    FakeMcpServer[] holder = new FakeMcpServer[1];
    try (FakeMcpServer server = new FakeMcpServer(e -> e.method().equals("GET") ? holder[0].getStream() : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      holder[0] = server;
      relay.initialize();
      Await.until("GET stream opened", () -> !server.requests("GET").isEmpty());
      FakeMcpServer.Exchange get = server.requests("GET").get(0);
      assertThat(get.header("accept")).isEqualTo("text/event-stream");
      assertThat(get.header("mcp-session-id")).isEqualTo(FakeMcpServer.SESSION);
      assertThat(get.header("mcp-protocol-version")).isEqualTo("2025-11-25");

      String sampling = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":[],\"maxTokens\":5}}";
      server.push(sampling);
      assertThat(relay.stdout.nextMatching(l -> l.contains("sampling/createMessage"), RelayHarness.TIMEOUT)).isEqualTo(sampling);
      String answer = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"hi\"},\"model\":\"m\"}}";
      relay.send(answer);
      Await.until("answer posted", () -> server.exchanges().stream().anyMatch(e -> e.method().equals("POST") && e.text().equals(answer)));
      FakeMcpServer.Exchange posted = server.exchanges().stream().filter(e -> e.text().equals(answer)).findFirst().orElseThrow();
      assertThat(posted.header("mcp-session-id")).isEqualTo(FakeMcpServer.SESSION);

      server.push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}");
      relay.stdout.nextMatching(l -> l.contains("list_changed"), RelayHarness.TIMEOUT);
    }
  }

  @Test
  void aServerWithoutGetStreamIsAskedOnceQuietly() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      Await.until("GET attempted", () -> !server.requests("GET").isEmpty());
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      relay.answerTo("2");
      assertThat(server.requests("GET")).hasSize(1);
      assertThat(relay.log()).doesNotContain("warning");
    }
  }

  @Test
  void theGetStreamIsReopenedWithLastEventIdAfterItEnds() {
    AtomicInteger gets = new AtomicInteger();
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (e.method().equals("GET")) {
            int n = gets.incrementAndGet();
            if (n == 1) {
              return Reply.sse(List.of(Step.raw("retry: 150\n\n"), Step.message("ev-1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"one\"}}")));
            }
            if (n == 2) {
              return Reply.sse(List.of(Step.message("ev-2", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"two\"}}"), Step.pause(Duration.ofSeconds(30))));
            }
          }
          return FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.stdout.nextMatching(l -> l.contains("\"one\""), RelayHarness.TIMEOUT);
      relay.stdout.nextMatching(l -> l.contains("\"two\""), RelayHarness.TIMEOUT);
      assertThat(server.requests("GET").get(1).header("last-event-id")).isEqualTo("ev-1");
      assertThat(relay.sleeps).contains(Duration.ofMillis(150));
    }
  }

  @Test
  void resumesAnInterruptedResponseStreamWithLastEventId() {
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            return Reply.sse(List.of(Step.prime("call-0", 120),
                Step.message("call-1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"t\",\"progress\":1}}")));
          }
          if (e.method().equals("GET") && "call-1".equals(e.header("last-event-id"))) {
            return Reply.sse(List.of(Step.message("call-2", FakeMcpServer.result("7", "{\"content\":[]}"))));
          }
          return FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      assertThat(relay.answerTo("7")).isEqualTo(FakeMcpServer.result("7", "{\"content\":[]}"));
      FakeMcpServer.Exchange resume = server.requests("GET").stream()
          .filter(e -> e.header("last-event-id") != null).findFirst().orElseThrow();
      assertThat(resume.header("mcp-session-id")).isEqualTo(FakeMcpServer.SESSION);
      assertThat(resume.header("accept")).isEqualTo("text/event-stream");
      assertThat(relay.sleeps).contains(Duration.ofMillis(120));
      assertThat(server.posts("tools/call")).hasSize(1); // resumed, never re-sent
    }
  }

  @Test
  void aResumptionTheServerRefusesIsReportedOnce() {
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            return Reply.sseThenDrop(List.of(Step.prime("c-0", 10)));
          }
          return FakeMcpServer.standard(e); // GET -> 405
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      String line = relay.answerTo("7");
      assertThat(Jsons.errorMessage(line)).contains("could not be resumed (HTTP 405)");
      assertThat(server.posts("tools/call")).hasSize(1);
      assertThat(relay.stdout.snapshot().stream().filter(l -> RelayHarness.hasId(l, "7"))).hasSize(1);
    }
  }

  @Test
  void aJsonBodyOverTheBoundIsRefusedAndNotRetried() {
    String big = FakeMcpServer.result("8", "{\"tools\":[],\"pad\":\"" + "x".repeat(4000) + "\"}");
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/list".equals(e.rpcMethod()) ? Reply.json(big) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withLimits(2000))) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/list\"}");
      String line = relay.answerTo("8");
      assertThat(Jsons.errorMessage(line)).contains("exceeds --max-message-size (2000 bytes)");
      assertThat(server.posts("tools/list")).hasSize(1);
    }
  }

  @Test
  void anEventOverTheBoundIsRefused() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message(FakeMcpServer.result(e.rpcIdJson(), "{\"pad\":\"" + "y".repeat(5000) + "\"}"))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withLimits(2000))) {
      relay.initialize();
      relay.send(CALL);
      assertThat(Jsons.errorMessage(relay.answerTo("7"))).contains("exceeds 2000 bytes");
    }
  }

  @Test
  void aGzipBodyIsDecodedWithinTheBound() throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
      gz.write(FakeMcpServer.result("7", "{\"content\":[{\"type\":\"text\",\"text\":\"zipped\"}]}").getBytes(StandardCharsets.UTF_8));
    }
    byte[] body = zipped.toByteArray();
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.bytes(200, "application/json", body, "Content-Encoding", "gzip")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(),
            c -> c.withHeaders(List.of(new Header("Accept-Encoding", "gzip"))))) {
      relay.initialize();
      relay.send(CALL);
      assertThat(relay.answerTo("7")).contains("zipped");
      assertThat(server.posts("tools/call").get(0).header("accept-encoding")).isEqualTo("gzip");
    }
  }

  @Test
  void aDecompressionBombIsStoppedAtTheBound() throws IOException {
    ByteArrayOutputStream zipped = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(zipped)) {
      byte[] zeros = new byte[1 << 20];
      for (int i = 0; i < 20; i++) {
        gz.write(zeros); // 20 MiB of zeros compress to ~20 KiB
      }
    }
    byte[] body = zipped.toByteArray();
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.bytes(200, "application/json", body, "Content-Encoding", "gzip")
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withLimits(1 << 20))) {
      relay.initialize();
      relay.send(CALL);
      assertThat(Jsons.errorMessage(relay.answerTo("7"))).contains("decompressed response exceeds --max-message-size");
    }
  }

  @Test
  void anyTwoHundredToANotificationIsAcceptanceAndItsBodyIsNotRelayed() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.method().equals("POST") && e.rpcId() == null
            ? Reply.json("{\"jsonrpc\":\"2.0\",\"result\":{}}")
            : e.method().equals("GET") ? Reply.status(400) : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      assertThat(relay.stdout.snapshot()).hasSize(2);
      assertThat(relay.log()).doesNotContain("warning");
    }
  }

  @Test
  void aStatelessServerThatHasNoGetRouteIsAskedOnce() {
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if ("initialize".equals(e.rpcMethod())) {
            return Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-11-25")); // no session id
          }
          return e.method().equals("GET") ? Reply.status(404) : FakeMcpServer.standard(e);
        });
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      relay.answerTo("2");
      assertThat(server.requests("GET")).hasSize(1);
      assertThat(server.posts("ping").get(0).header("mcp-session-id")).isNull();
    }
  }

  @Test
  void theGetStreamIsOpenBeforeTheNextMessageIsSent() {
    FakeMcpServer[] holder = new FakeMcpServer[1];
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (e.method().equals("GET")) {
            return holder[0].getStream();
          }
          if ("tools/call".equals(e.rpcMethod())) {
            // A server that asks the host a question on the GET stream the moment the call arrives.
            boolean streamOpen = !holder[0].requests("GET").isEmpty();
            holder[0].push("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"elicitation/create\",\"params\":{\"message\":\"ok?\",\"requestedSchema\":{\"type\":\"object\",\"properties\":{}}}}");
            return Reply.json(FakeMcpServer.result(e.rpcIdJson(), "{\"streamOpen\":" + streamOpen + "}"));
          }
          return FakeMcpServer.standard(e);
        })) {
      holder[0] = server;
      try (RelayHarness relay = RelayHarness.start(server.url())) {
        relay.send(RelayHarness.INITIALIZE);
        relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
        relay.send(CALL);
        assertThat(relay.answerTo("7")).contains("\"streamOpen\":true");
        Await.until("elicitation relayed", () -> relay.stdout.snapshot().stream().anyMatch(l -> l.contains("elicitation/create")));
      }
    }
  }

  @Test
  void aStreamLeftOpenAfterTheAnswerIsEndedByTheRelay() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message(FakeMcpServer.result(e.rpcIdJson(), "{}")), Step.pause(Duration.ofSeconds(30))))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url(), c -> c.withMode(false, dev.mcpstdio.stdio.Log.Level.DEBUG, Duration.ofSeconds(5)))) {
      relay.initialize();
      relay.send(CALL);
      relay.answerTo("7");
      long t0 = System.nanoTime();
      assertThat(relay.closeAndAwait()).isZero();
      long millis = (System.nanoTime() - t0) / 1_000_000;
      assertThat(millis).as("shutdown waited for a stream that had served its purpose").isLessThan(3_000);
      assertThat(relay.log()).doesNotContain("abandoning");
    }
  }

  @Test
  void theAnswerReachesTheHostWhileItsStreamStaysOpenAndWhatFollowsItComesAfterIt() throws InterruptedException {
    java.util.concurrent.CountDownLatch answerSeen = new java.util.concurrent.CountDownLatch(1);
    String after = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"after\"}}";
    try (FakeMcpServer server = new FakeMcpServer(e -> "tools/call".equals(e.rpcMethod())
            ? Reply.sse(List.of(Step.message(FakeMcpServer.result(e.rpcIdJson(), "{}")), Step.await(answerSeen),
                Step.message(after)))
            : FakeMcpServer.standard(e));
        RelayHarness relay = RelayHarness.start(server.url())) {
      relay.initialize();
      relay.send(CALL);
      // The stream is held open until the test has seen the answer: it went up the chain as the
      // call's outcome and was written at once, not when the stream ended.
      assertThat(relay.next()).as("the answer, while its stream is open").contains("\"id\":7").contains("\"result\"");
      answerSeen.countDown();
      assertThat(relay.next()).as("what the stream carried after the answer").isEqualTo(after);
    }
  }
}
