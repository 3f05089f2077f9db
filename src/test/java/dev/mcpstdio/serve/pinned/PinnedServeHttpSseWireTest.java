package dev.mcpstdio.serve.pinned;

import static dev.mcpstdio.serve.pinned.ChildScript.child;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.INIT;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.INITIALIZED;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.LOG_MESSAGE;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.SAMPLING;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.SAMPLING_ANSWER;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.call;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.config;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.progress;
import static dev.mcpstdio.serve.pinned.PinnedServeStreamableHttpWireTest.text;

import dev.mcpstdio.process.ChildSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Serve's HTTP+SSE (2024-11-05) wire, pinned (invariant 3), like {@link
 * PinnedServeStreamableHttpWireTest}: one session per event stream, messages POSTed to the
 * endpoint the stream names, every answer on the stream. Issue 14 must not edit this test or its
 * golden files.
 */
class PinnedServeHttpSseWireTest {

  static final String ACCEPT_SSE = "Accept: text/event-stream";
  static final String MESSAGES = "/messages?sessionId={session-1}";

  @Test
  void aSessionOverHttpSse() throws Exception {
    ChildSpec script = child().initialized()
        .reads().writes(progress("p", 1, 2)).writes(progress("p", 2, 2)).writes(SAMPLING)
        .reads().writes(LOG_MESSAGE).writes(text(2, "asked"))
        .thenHolds();
    try (PinnedServeSession s = new PinnedServeSession("http-sse-session",
        "An HTTP+SSE (2024-11-05) session: the endpoint event, initialize, a call with progress and a server request, the errors",
        config(script, 100, 2048, Duration.ofSeconds(60)))) {
      s.step("GET /sse starts a session: the stream's first event names where to POST");
      PinnedServeSession.Stream stream = s.open("sse", "GET", "/sse", null, ACCEPT_SSE);
      stream.events(1);
      s.step("initialize: 202, the answer comes on the stream");
      s.exchange("POST", MESSAGES, INIT);
      stream.events(1);
      s.step("notifications/initialized: 202");
      s.exchange("POST", MESSAGES, INITIALIZED);
      s.step("tools/call with a progress token: 202; progress and the child's sampling request on the stream");
      s.exchange("POST", MESSAGES, call(2, "ask", "{\"progressToken\":\"p\"}"));
      stream.events(3);
      s.step("the client answers the sampling request: 202; a log message and the result on the stream");
      s.exchange("POST", MESSAGES, SAMPLING_ANSWER);
      stream.events(2);
      s.step("POSTs without a session id (400), with an unknown one (404), not JSON (400), an invalid request (400), too large (413)");
      s.exchange("POST", "/messages", INIT);
      s.exchange("POST", "/messages?sessionId=no-such-session", INIT);
      s.exchange("POST", MESSAGES, "{\"jsonrpc\":");
      s.exchange("POST", MESSAGES, "{\"jsonrpc\":\"2.0\",\"id\":3}");
      s.exchange("POST", MESSAGES, call(4, "x".repeat(3000), null));
      s.step("the wrong method on either path: 405");
      s.exchange("GET", "/messages?sessionId={session-1}", null);
      s.exchange("POST", "/sse", "{}", ACCEPT_SSE);
      s.step("the client closes the stream (the gateway ends the session at its next write to it)");
      stream.drop();
      s.verify();
    }
  }
}
