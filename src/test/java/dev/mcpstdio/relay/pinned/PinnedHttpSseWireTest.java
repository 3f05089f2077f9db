package dev.mcpstdio.relay.pinned;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;

import dev.mcpstdio.relay.Header;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The frozen HTTP+SSE (2024-11-05) wire ({@code --transport sse}): the relay opens the event
 * stream, POSTs each message to the endpoint the stream named, and reads every answer from the
 * stream. Scripted sessions compared with golden files as in {@link PinnedStreamableHttpWireTest};
 * issue 13 turns this transport into one that waits for its own answers, and this test and its
 * golden files must not change with it.
 *
 * <p>The scripted server answers a request by queueing its answer on the open event stream, then
 * accepting the POST with 202. Each session's endpoint is {@code /messages?sessionId=sN}, N
 * counting the event streams opened.
 */
class PinnedHttpSseWireTest {

  private static PinnedSession session(String name, String title,
      Function<FakeMcpServer.Exchange, Reply> overrides, List<Header> headers) {
    return session(name, title, overrides, headers, RelayConfig.Transport.SSE);
  }

  private static PinnedSession session(String name, String title,
      Function<FakeMcpServer.Exchange, Reply> overrides, List<Header> headers, RelayConfig.Transport transport) {
    FakeMcpServer[] self = new FakeMcpServer[1];
    AtomicInteger streams = new AtomicInteger();
    self[0] = new FakeMcpServer("/sse", e -> {
      if (e.method().equals("GET")) {
        return self[0].getStream(Step.raw("event: endpoint\ndata: /messages?sessionId=s" + streams.incrementAndGet() + "\n\n"));
      }
      Reply r = overrides.apply(e);
      if (r != null) {
        return r;
      }
      if (e.rpcId() != null) {
        self[0].push(answer(e));
      }
      return Reply.status(202);
    });
    return new PinnedSession(name, title, self[0], "/sse",
        c -> c.withTransport(transport).withHeaders(headers));
  }

  private static PinnedSession session(String name, String title, Function<FakeMcpServer.Exchange, Reply> overrides) {
    return session(name, title, overrides, List.of());
  }

  /** What the standard script would answer, for the event stream. */
  private static String answer(FakeMcpServer.Exchange e) {
    return ((Reply.Body) FakeMcpServer.standard(e)).body();
  }

  /** The relay opens the event stream at start; initialize; notifications/initialized. */
  private static void handshake(PinnedSession s) {
    s.happens("the relay starts: it opens the event stream", () -> {}, 1, 0);
    s.send(RelayHarness.INITIALIZE, 1, 1);
    s.send(PinnedStreamableHttpWireTest.INITIALIZED, 1, 0);
  }

  @Test
  void initializeWithPinnedHeaders() {
    try (PinnedSession s = session("http-sse-initialize",
        "HTTP+SSE: the event stream and its endpoint, initialize, notifications/initialized, a ping, end of input; -H headers",
        e -> null, List.of(new Header("X-Team", "blue"), new Header("Authorization", "Bearer pinned-token")))) {
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  /** The default {@code --transport auto}: Streamable HTTP first, HTTP+SSE when the initialize POST is refused. */
  @Test
  void autoFallsBackToHttpSseWhenTheInitializePostIsRefused() {
    try (PinnedSession s = session("http-sse-auto-fallback",
        "--transport auto: the initialize POST to the URL is refused (405), so the relay opens the HTTP+SSE event stream there",
        e -> e.method().equals("POST") && e.path().equals("/sse") ? Reply.status(405) : null,
        List.of(), RelayConfig.Transport.AUTO)) {
      s.send(RelayHarness.INITIALIZE, 3, 1); // POST /sse (405), GET /sse, POST to the endpoint
      s.send(PinnedStreamableHttpWireTest.INITIALIZED, 1, 0);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void listPagesReachTheHostAsTheServerSentThem() {
    FakeMcpServer[] server = new FakeMcpServer[1];
    try (PinnedSession s = session("http-sse-lists",
        "HTTP+SSE: tools/list pages are not merged on this transport; the host asks for the next page itself",
        e -> {
          if (!"tools/list".equals(e.rpcMethod())) {
            return null;
          }
          String id = e.rpcIdJson();
          server[0].push(e.param("cursor") == null
              ? FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"a\"},{\"name\":\"b\", \"x\": 1.50}],\"nextCursor\":\"c2\"}")
              : FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"c\"}]}"));
          return Reply.status(202);
        })) {
      server[0] = s.server();
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"tools/list\",\"params\":{}}", 1, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"L2\",\"method\":\"tools/list\",\"params\":{\"cursor\":\"c2\"}}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void aToolCallWithProgress() {
    FakeMcpServer[] server = new FakeMcpServer[1];
    try (PinnedSession s = session("http-sse-progress",
        "HTTP+SSE: a tools/call whose progress and answer arrive on the event stream",
        e -> {
          if (!"tools/call".equals(e.rpcMethod())) {
            return null;
          }
          server[0].push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":1,\"total\":2}}");
          server[0].push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":2,\"total\":2}}");
          server[0].push(FakeMcpServer.result(e.rpcIdJson(), "{\"content\":[{\"type\":\"text\",\"text\":\"done after 2 steps\"}]}"));
          return Reply.status(202);
        })) {
      server[0] = s.server();
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"steps\":2},"
          + "\"_meta\":{\"progressToken\":\"tok\"}}}", 1, 3);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void aServerRequestIsAnsweredByTheHost() {
    FakeMcpServer[] server = new FakeMcpServer[1];
    try (PinnedSession s = session("http-sse-server-requests",
        "HTTP+SSE: sampling/createMessage on the event stream during a call, answered by the host with a POST",
        e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            server[0].push("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":"
                + "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Q\"}}],\"maxTokens\":10}}");
            return Reply.status(202);
          }
          if (e.rpcMethod() == null && e.text().contains("\"srv-1\"")) {
            server[0].push(FakeMcpServer.result("3", "{\"content\":[{\"type\":\"text\",\"text\":\"the model said: A\"}]}"));
            return Reply.status(202);
          }
          return null;
        })) {
      server[0] = s.server();
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{}}}", 1, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"A\"},"
          + "\"model\":\"m\"}}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void aCancelledCallIsForwardedAndItsLateAnswerHeldBack() {
    FakeMcpServer[] server = new FakeMcpServer[1];
    try (PinnedSession s = session("http-sse-cancel",
        "HTTP+SSE: the host cancels a call in flight; the cancel is POSTed, the late answer never reaches stdout",
        e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            server[0].push("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":70,\"progress\":1}}");
            return Reply.status(202);
          }
          return null;
        })) {
      server[0] = s.server();
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{},"
          + "\"_meta\":{\"progressToken\":70}}}", 1, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"user\"}}", 1, 0);
      s.happens("the server sends the cancelled call's answer after all", () -> {
        s.server().push(FakeMcpServer.result("7", "{\"content\":[{\"type\":\"text\",\"text\":\"late\"}]}"));
        Await.until("the late answer dropped", () -> s.relay().log().contains("dropped late response for cancelled id 7"));
      }, 0, 0);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void aLostStreamIsReopenedAndTheNewSessionInitializedAgain() {
    try (PinnedSession s = session("http-sse-reconnect",
        "HTTP+SSE: the server ends the event stream; the relay reopens it and replays the handshake on the new endpoint",
        e -> null)) {
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1, 1);
      s.happens("the server ends the event stream", () -> s.server().endStream(), 3, 0);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 1, 1);
      s.endOfInput(0);
      s.verify();
    }
  }

  @Test
  void aRefusalAndACutConnectionAreRetried() {
    AtomicInteger calls = new AtomicInteger();
    AtomicInteger pings = new AtomicInteger();
    try (PinnedSession s = session("http-sse-retry",
        "HTTP+SSE: 503 with Retry-After: 0 and a connection cut before the response are retried",
        e -> {
          if ("tools/call".equals(e.rpcMethod()) && calls.incrementAndGet() == 1) {
            return Reply.status(503, "Retry-After", "0");
          }
          if ("ping".equals(e.rpcMethod()) && pings.incrementAndGet() == 1) {
            return Reply.drop();
          }
          return null;
        })) {
      handshake(s);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 2, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", 2, 1);
      s.endOfInput(0);
      s.verify();
    }
  }
}
