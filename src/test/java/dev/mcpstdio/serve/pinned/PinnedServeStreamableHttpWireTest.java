package dev.mcpstdio.serve.pinned;

import static dev.mcpstdio.serve.pinned.ChildScript.child;

import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.ServeConfig;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Serve's 2025-era Streamable HTTP wire, pinned (invariant 3): scripted conversations whose
 * requests and responses are compared byte for byte with golden files ({@link PinnedServeSession}).
 * Issue 14 (serve speaks both eras) must not edit this test or its golden files: they prove the
 * 2025 era's wire did not change while the 2026 era went in.
 */
class PinnedServeStreamableHttpWireTest {

  static final String ACCEPT_BOTH = "Accept: application/json, text/event-stream";
  static final String ACCEPT_JSON = "Accept: application/json";
  static final String VERSION = "MCP-Protocol-Version: 2025-11-25";
  static final String S1 = "Mcp-Session-Id: {session-1}";

  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{\"sampling\":{}},\"clientInfo\":{\"name\":\"pinned\",\"version\":\"1\"}}}";
  static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  static final String TRIGGER = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}";

  static final ChildProcess.Ladder QUICK = new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300));

  /** No keep-alive comment and no idle eviction within a test's time: they would make the wire depend on timing. */
  static ServeConfig config(ChildSpec child, int maxSessions, long maxMessageSize, Duration backendTimeout) {
    return ServeConfig.defaults(child).withChild(child, QUICK)
        .withLimits(maxSessions, Duration.ZERO, maxMessageSize, backendTimeout, Duration.ofMinutes(10));
  }

  static String call(Object id, String tool, String meta) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":{}" + (meta == null ? "" : ",\"_meta\":" + meta) + "}}";
  }

  static String progress(String token, int n, int total) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"" + token
        + "\",\"progress\":" + n + ",\"total\":" + total + "}}";
  }

  static String text(Object id, String text) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"" + text + "\"}]}}";
  }

  static final String SAMPLING = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"method\":\"sampling/createMessage\",\"params\":"
      + "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":\"hi\"}}],\"maxTokens\":5}}";
  static final String SAMPLING_ANSWER = "{\"jsonrpc\":\"2.0\",\"id\":\"srv-1\",\"result\":{\"role\":\"assistant\","
      + "\"content\":{\"type\":\"text\",\"text\":\"hello\"},\"model\":\"m\"}}";
  static final String LOG_MESSAGE = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\","
      + "\"data\":\"sampled\"}}";

  @Test
  void aSessionFromInitializeToDelete() throws Exception {
    ChildSpec script = child().initialized()
        .reads().writes("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"tools\":[{\"name\":\"ask\",\"inputSchema\":{\"type\":\"object\"}}]}}")
        .reads().writes(progress("p3", 1, 2)).writes(progress("p3", 2, 2)).writes(SAMPLING)
        .reads().writes(LOG_MESSAGE).writes(text(3, "asked"))
        .reads().writes("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}").writes(text(4, "changed"))
        .reads().writes("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/list_changed\"}").writes(text(5, "again"))
        .thenHolds();
    try (PinnedServeSession s = new PinnedServeSession("streamable-http-session",
        "A 2025-era session: initialize, a list, a call with progress and a server request, the GET stream, DELETE",
        config(script, 100, 1 << 20, Duration.ofSeconds(60)))) {
      s.step("initialize, answered as JSON; the session id comes in a header");
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON);
      s.step("notifications/initialized: 202, no body");
      s.exchange("POST", "/mcp", INITIALIZED, ACCEPT_BOTH, VERSION, S1);
      s.step("tools/list from a client that accepts event streams: a priming event, then the answer");
      s.open("list", "POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", ACCEPT_BOTH, VERSION, S1).toEnd();
      s.step("tools/call with a progress token: progress and the child's sampling request travel on the call's stream");
      PinnedServeSession.Stream call = s.open("call", "POST", "/mcp", call(3, "ask", "{\"progressToken\":\"p3\"}"),
          ACCEPT_BOTH, VERSION, S1);
      call.events(4);
      s.step("the client answers the sampling request: 202; a log message and the result end the call's stream");
      s.exchange("POST", "/mcp", SAMPLING_ANSWER, ACCEPT_BOTH, VERSION, S1);
      call.toEnd();
      s.step("a call (JSON) during which the child sends a list change: no GET stream is open, so it waits");
      s.exchange("POST", "/mcp", call(4, "change", null), ACCEPT_JSON, VERSION, S1);
      s.step("the GET stream opens and gets what waited");
      PinnedServeSession.Stream get = s.open("GET", "GET", "/mcp", null, "Accept: text/event-stream", VERSION, S1);
      get.events(1);
      s.step("another list change while the GET stream is open goes to it");
      s.exchange("POST", "/mcp", call(5, "change", null), ACCEPT_JSON, VERSION, S1);
      get.events(1);
      s.step("DELETE ends the session: 200 with its id; the GET stream ends");
      s.exchange("DELETE", "/mcp", null, VERSION, S1);
      get.toEnd();
      s.step("the ended session is unknown now: 404");
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/list\"}", ACCEPT_BOTH, VERSION, S1);
      s.step("DELETE and GET without a session id: 400");
      s.exchange("DELETE", "/mcp", null, VERSION);
      s.exchange("GET", "/mcp", null, "Accept: text/event-stream", VERSION);
      s.verify();
    }
  }

  private static final Pattern EVENT_ID = Pattern.compile("(?m)^id: ([0-9]+)-0$");

  @Test
  void aClientResumesARequestsStreamAfterItsConnectionDropped() throws Exception {
    ChildSpec script = child().initialized()
        .reads().writes(progress("r", 1, 2))
        .reads().writes(progress("r", 2, 2)).writes(text(7, "resumed"))
        .thenHolds();
    try (PinnedServeSession s = new PinnedServeSession("streamable-http-resumption",
        "Resumption: a call's stream dropped after its first progress event, resumed with Last-Event-ID",
        config(script, 100, 1 << 20, Duration.ofSeconds(60)))) {
      s.step("initialize (as an event stream) and notifications/initialized");
      s.open("initialize", "POST", "/mcp", INIT, ACCEPT_BOTH).toEnd();
      s.exchange("POST", "/mcp", INITIALIZED, ACCEPT_BOTH, VERSION, S1);
      s.step("tools/call: the priming event and the first progress arrive; then the client's connection drops");
      PinnedServeSession.Stream call = s.open("call", "POST", "/mcp", call(7, "slow", "{\"progressToken\":\"r\"}"),
          ACCEPT_BOTH, VERSION, S1);
      String priming = call.events(1).getFirst();
      call.events(1);
      call.drop();
      s.step("a notification lets the child go on: it sends the second progress and the result meanwhile");
      s.exchange("POST", "/mcp", TRIGGER, ACCEPT_BOTH, VERSION, S1);
      s.step("GET with Last-Event-ID naming the first progress event: what followed it, then the end");
      Matcher m = EVENT_ID.matcher(priming);
      if (!m.find()) {
        throw new AssertionError("no event id in the priming event: " + priming);
      }
      s.open("resumed", "GET", "/mcp", null, "Accept: text/event-stream", VERSION, S1, "Last-Event-ID: " + m.group(1) + "-1")
          .toEnd();
      s.step("a Last-Event-ID naming no stream kept: 410");
      s.exchange("GET", "/mcp", null, "Accept: text/event-stream", VERSION, S1, "Last-Event-ID: 999-1");
      s.verify();
    }
  }

  @Test
  void theErrorsOfTheEndpoint() throws Exception {
    ChildSpec script = child().initialized()
        .reads() // tools/call id 9: answered only after a trigger
        .reads().writes(text(9, "late"))
        .reads() // tools/call id 10: the child exits instead of answering
        .thenExits(3);
    try (PinnedServeSession s = new PinnedServeSession("streamable-http-errors",
        "The 4xx and 5xx answers of the Streamable HTTP endpoint, and its health checks",
        config(script, 100, 2048, Duration.ofSeconds(60)))) {
      s.step("health and readiness");
      s.exchange("GET", "/healthz", null);
      s.exchange("GET", "/readyz", null);
      s.step("requests without a session id (400), with an unknown one (404)");
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", ACCEPT_BOTH, VERSION);
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", ACCEPT_BOTH, VERSION,
          "Mcp-Session-Id: no-such-session");
      s.step("bodies that are not one valid message: not JSON, a batch, an invalid request; an unsupported version header");
      s.exchange("POST", "/mcp", "{\"jsonrpc\":", ACCEPT_BOTH);
      s.exchange("POST", "/mcp", "[" + INIT + "]", ACCEPT_BOTH);
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":3}", ACCEPT_BOTH);
      s.exchange("POST", "/mcp", INIT, ACCEPT_BOTH, "MCP-Protocol-Version: 1999-01-01");
      s.step("a body over --max-message-size (2048 bytes): 413");
      s.exchange("POST", "/mcp", call(4, "x".repeat(3000), null), ACCEPT_BOTH);
      s.step("a method the endpoint does not serve (405), a GET that does not accept event streams (406), an unknown path (404)");
      s.exchange("PUT", "/mcp", "{}", ACCEPT_BOTH);
      s.exchange("GET", "/mcp", null, ACCEPT_JSON, "Mcp-Session-Id: no-such-session");
      s.exchange("GET", "/nowhere", null);
      s.step("a foreign Host, a foreign Origin: 403");
      s.exchange("POST", "/mcp", INIT, ACCEPT_BOTH, "Host: evil.example");
      s.exchange("POST", "/mcp", INIT, ACCEPT_BOTH, "Origin: http://evil.example");
      s.step("a session, and a request held by the child");
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON);
      s.exchange("POST", "/mcp", INITIALIZED, ACCEPT_BOTH, VERSION, S1);
      PinnedServeSession.Stream held = s.open("held", "POST", "/mcp", call(9, "hold", null), ACCEPT_BOTH, VERSION,
          S1);
      held.events(1);
      s.step("a different request under the id still in flight: 409");
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\"}", ACCEPT_BOTH, VERSION,
          S1);
      s.step("the child answers the held request after a notification");
      s.exchange("POST", "/mcp", TRIGGER, ACCEPT_BOTH, VERSION, S1);
      held.toEnd();
      s.step("the child exits during a call: 503 for the call, 503 once more for the session, then 404");
      s.exchange("POST", "/mcp", call(10, "exit", null), ACCEPT_JSON, VERSION, S1);
      s.awaitLog("exited");
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\"}", ACCEPT_JSON, VERSION,
          S1);
      s.exchange("POST", "/mcp", "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\"}", ACCEPT_JSON, VERSION,
          S1);
      s.verify();
    }
  }

  @Test
  void aBearerTokenTheSessionCapAndTheBackendTimeout() throws Exception {
    ChildSpec script = child().initialized().reads().thenHolds(); // never answers the call
    ServeConfig config = config(script, 1, 1 << 20, Duration.ofSeconds(1)).withAuthToken("pinned-secret-token");
    try (PinnedServeSession s = new PinnedServeSession("streamable-http-limits",
        "A static bearer token (401 and the protected-resource document), the session cap (503), the backend timeout (504)",
        config)) {
      s.step("no token, a wrong token: 401 with a challenge naming the protected-resource document");
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON);
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON, "Authorization: Bearer wrong");
      s.step("the protected-resource document needs no token");
      s.exchange("GET", "/.well-known/oauth-protected-resource/mcp", null);
      s.step("with the token: a session; a second one is past --max-sessions 1: 503");
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON, "Authorization: Bearer pinned-secret-token");
      s.exchange("POST", "/mcp", INITIALIZED, ACCEPT_JSON, VERSION, S1, "Authorization: Bearer pinned-secret-token");
      s.exchange("POST", "/mcp", INIT, ACCEPT_JSON, "Authorization: Bearer pinned-secret-token");
      s.step("a call the child never answers: 504 after the backend timeout (1 s), as JSON and as an event stream");
      s.exchange("POST", "/mcp", call(2, "never", null), ACCEPT_JSON, VERSION, S1, "Authorization: Bearer pinned-secret-token");
      s.open("timeout", "POST", "/mcp", call(3, "never", null), ACCEPT_BOTH, VERSION, S1,
          "Authorization: Bearer pinned-secret-token").toEnd();
      s.verify();
    }
  }
}
