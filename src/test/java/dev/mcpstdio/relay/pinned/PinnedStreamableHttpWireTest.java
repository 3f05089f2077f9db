package dev.mcpstdio.relay.pinned;

import static dev.mcpstdio.testing.FakeMcpServer.Reply;
import static dev.mcpstdio.testing.FakeMcpServer.Step;

import dev.mcpstdio.relay.Header;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The frozen 2025-era wire (Streamable HTTP, {@code Mcp-Session-Id}, the default {@code
 * --transport auto}): scripted sessions whose every request at the server and every stdout byte
 * are compared with golden files ({@link PinnedSession}). Issue 13 rewrites the request path under
 * these sessions; this test and its golden files must not change with it.
 *
 * <p>Where the relay could legitimately order its requests differently from run to run the
 * script leaves it no room: each step waits for the previous one's requests, and the GET stream
 * is refused (405) in sessions where its reopening would race another request.
 */
class PinnedStreamableHttpWireTest {

  static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  /** The standard script, with {@code overrides} first (null from it falls through). */
  private static Function<FakeMcpServer.Exchange, Reply> script(boolean getStream, FakeMcpServer[] self,
      Function<FakeMcpServer.Exchange, Reply> overrides) {
    return e -> {
      Reply r = overrides.apply(e);
      if (r != null) {
        return r;
      }
      if (e.method().equals("GET")) {
        return getStream ? self[0].getStream() : Reply.status(405);
      }
      return FakeMcpServer.standard(e);
    };
  }

  private static PinnedSession session(String name, String title, boolean getStream,
      Function<FakeMcpServer.Exchange, Reply> overrides, List<Header> headers) {
    FakeMcpServer[] self = new FakeMcpServer[1];
    self[0] = new FakeMcpServer(script(getStream, self, overrides));
    return new PinnedSession(name, title, self[0], "/mcp", c -> c.withHeaders(headers));
  }

  private static PinnedSession session(String name, String title, boolean getStream,
      Function<FakeMcpServer.Exchange, Reply> overrides) {
    return session(name, title, getStream, overrides, List.of());
  }

  /** initialize, then notifications/initialized and the GET stream it opens. */
  private static void handshake(PinnedSession s, boolean getStream) {
    s.send(RelayHarness.INITIALIZE, 1, 1);
    s.send(INITIALIZED, 2, 0); // the POST, then the GET stream (answered, whether 200 or 405)
  }

  @Test
  void initializeWithPinnedHeadersAndTheGetStream() {
    try (PinnedSession s = session("streamable-http-initialize",
        "2025 era: initialize, notifications/initialized, the GET stream, a ping, DELETE at end of input; -H headers",
        true, e -> null,
        List.of(new Header("X-Team", "blue"), new Header("Authorization", "Bearer pinned-token")))) {
      handshake(s, true);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", 1, 1);
      s.endOfInput(1); // DELETE
      s.verify();
    }
  }

  @Test
  void listsArePagedAndMerged() {
    try (PinnedSession s = session("streamable-http-lists",
        "2025 era: tools/list and resources/list merged from pages; a host's own cursor passed through",
        false, e -> {
          String id = e.rpcIdJson();
          if ("tools/list".equals(e.rpcMethod())) {
            String cursor = e.param("cursor");
            if (cursor == null) {
              return Reply.sse(List.of(
                  Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"paging\"}}"),
                  Step.message(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"a\",\"inputSchema\":{\"type\":\"object\"}},"
                      + "{\"name\":\"b\", \"x\": 1.50}],\"nextCursor\":\"c2\"}"))));
            }
            if (cursor.equals("\"c2\"")) {
              return Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"c\"}],\"nextCursor\":\"c3\",\"_meta\":{\"page\":2}}"));
            }
            return Reply.json(FakeMcpServer.result(id, "{\"tools\":[{\"name\":\"d\"}]}"));
          }
          if ("resources/list".equals(e.rpcMethod())) {
            return e.param("cursor") == null
                ? Reply.json(FakeMcpServer.result(id, "{\"resources\":[{\"uri\":\"file:///a\",\"name\":\"a\"}],\"nextCursor\":\"r2\"}"))
                : Reply.sse(List.of(Step.message("e1", FakeMcpServer.result(id, "{\"resources\":[{\"uri\":\"file:///b\",\"name\":\"b\"}]}"))));
          }
          return null;
        })) {
      handshake(s, false);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"tools/list\",\"params\":{}}", 3, 2);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/list\"}", 2, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\",\"params\":{\"cursor\":\"c2\"}}", 1, 1);
      s.endOfInput(1);
      s.verify();
    }
  }

  @Test
  void aToolCallWithProgressOnAnEventStream() {
    try (PinnedSession s = session("streamable-http-progress",
        "2025 era: a tools/call answered on an event stream with progress first; one answered with JSON",
        false, e -> {
          if ("tools/call".equals(e.rpcMethod()) && e.text().contains("\"slow\"")) {
            String id = e.rpcIdJson();
            return Reply.sse(List.of(
                Step.message("ev-1", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":1,\"total\":2}}"),
                Step.message("ev-2", "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"tok\",\"progress\":2,\"total\":2,\"message\":\"almost\"}}"),
                Step.message("ev-3", FakeMcpServer.result(id, "{\"content\":[{\"type\":\"text\",\"text\":\"done after 2 steps\"}]}"))));
          }
          return null;
        })) {
      handshake(s, false);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{\"steps\":2},"
          + "\"_meta\":{\"progressToken\":\"tok\"}}}", 1, 3);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}}", 1, 1);
      s.endOfInput(1);
      s.verify();
    }
  }

  @Test
  void serverRequestsOnTheCallsStreamAndTheGetStreamAreAnswered() {
    CountDownLatch answered = new CountDownLatch(1);
    try (PinnedSession s = session("streamable-http-server-requests",
        "2025 era: sampling/createMessage on a call's stream and roots/list on the GET stream, answered by the host",
        true, e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            String id = e.rpcIdJson();
            return Reply.sse(List.of(
                Step.message("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\",\"params\":{\"messages\":"
                    + "[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"Q\"}}],\"maxTokens\":10}}"),
                Step.await(answered),
                Step.message(FakeMcpServer.result(id, "{\"content\":[{\"type\":\"text\",\"text\":\"the model said: A\"}]}"))));
          }
          if (e.method().equals("POST") && e.rpcMethod() == null && e.text().contains("\"srv-1\"")) {
            answered.countDown();
            return Reply.status(202);
          }
          return null;
        })) {
      handshake(s, true);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{}}}", 1, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"A\"},"
          + "\"model\":\"m\"}}", 1, 1);
      s.happens("the server sends roots/list on the GET stream",
          () -> s.server().push("{\"jsonrpc\":\"2.0\",\"id\":\"srv-2\",\"method\":\"roots/list\"}"), 0, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":\"srv-2\",\"result\":{\"roots\":[{\"uri\":\"file:///work\"}]}}", 1, 0);
      s.endOfInput(1);
      s.verify();
    }
  }

  @Test
  void aCancelledCallIsForwardedAndItsLateAnswerHeldBack() {
    CountDownLatch release = new CountDownLatch(1);
    try (PinnedSession s = session("streamable-http-cancel",
        "2025 era: the host cancels a call in flight; the cancel is POSTed, the late answer never reaches stdout",
        false, e -> {
          if ("tools/call".equals(e.rpcMethod())) {
            String id = e.rpcIdJson();
            return Reply.sse(List.of(
                Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":70,\"progress\":1}}"),
                Step.await(release),
                Step.message(FakeMcpServer.result(id, "{\"content\":[{\"type\":\"text\",\"text\":\"late\"}]}"))));
          }
          return null;
        })) {
      handshake(s, false);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{},"
          + "\"_meta\":{\"progressToken\":70}}}", 1, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7,\"reason\":\"user\"}}", 1, 0);
      s.happens("the server sends the cancelled call's answer after all", () -> {
        release.countDown();
        Await.until("the late answer dropped", () -> s.relay().log().contains("dropped late response for cancelled id 7"));
      }, 0, 0);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"ping\"}", 1, 1);
      s.endOfInput(1);
      s.verify();
    }
  }

  @Test
  void aForgottenSessionIsInitializedAgainAndTheRequestReplayed() {
    AtomicBoolean forgotten = new AtomicBoolean();
    AtomicInteger sessions = new AtomicInteger();
    try (PinnedSession s = session("streamable-http-reinitialize",
        "2025 era: HTTP 404 on a request with a session id: initialize and notifications/initialized again, then the replay",
        false, e -> {
          if ("initialize".equals(e.rpcMethod())) {
            return Reply.json(FakeMcpServer.initializeResult(e.rpcIdJson(), "2025-11-25"),
                "Mcp-Session-Id", "session-" + sessions.incrementAndGet());
          }
          if (forgotten.get() && "session-1".equals(e.header("mcp-session-id"))) {
            return Reply.body(404, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32001,\"message\":\"Session not found\"}}");
          }
          return null;
        })) {
      handshake(s, false);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 1, 1);
      s.happens("the server forgets session-1", () -> forgotten.set(true), 0, 0);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 4, 1);
      s.endOfInput(1); // DELETE of session-2
      s.verify();
    }
  }

  @Test
  void refusalsAndACutConnectionAreRetried() {
    AtomicInteger lists = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    try (PinnedSession s = session("streamable-http-retry",
        "2025 era: 503 with Retry-After: 0 and a connection cut before the response are retried; 429 to the last attempt",
        false, e -> {
          if ("tools/list".equals(e.rpcMethod())) {
            return switch (lists.incrementAndGet()) {
              case 1 -> Reply.status(503, "Retry-After", "0");
              case 2 -> Reply.drop();
              default -> null;
            };
          }
          if ("tools/call".equals(e.rpcMethod())) {
            return calls.incrementAndGet() == 1 ? Reply.status(503, "Retry-After", "0") : null;
          }
          if ("ping".equals(e.rpcMethod())) {
            return Reply.body(429, "text/plain", "slow down", "Retry-After", "0");
          }
          return null;
        })) {
      handshake(s, false);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", 3, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}", 2, 1);
      s.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", 3, 1);
      s.endOfInput(1);
      s.verify();
    }
  }
}
