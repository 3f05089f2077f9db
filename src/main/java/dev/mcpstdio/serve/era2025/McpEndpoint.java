package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.protocol.McpErrorCodes;
import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.Replies;
import java.io.IOException;
import java.util.Set;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The Streamable HTTP endpoint (2025 era): POST carries one JSON-RPC message, GET opens the
 * session's stream, DELETE ends the session.
 *
 * <p>A POST reaches it once {@code McpPost} has read its body and found one valid 2025-era message
 * (the body's size, JSON, shape and era are judged there); then, each step answering on its own
 * when it fails: a notification without a session is accepted (202: there is nothing to forward
 * it to), the protocol version header
 * (400), then the session (400 without an id, 404 for an unknown one, 503
 * once for a session whose child died). Every error to a request carries its id. Requests are answered with an event
 * stream when the client accepts one, else with JSON; notifications and responses get 202.
 */
public final class McpEndpoint {

  /** Protocol versions whose {@code MCP-Protocol-Version} header is accepted: the 2025 era's. */
  static final Set<String> VERSIONS = Set.copyOf(McpVersions.ERA_2025);

  static final String SESSION_HEADER = McpHeaders.SESSION_ID;


  private final ServeConfig config;
  private final Sessions sessions;
  private final long keepAliveMillis;

  public McpEndpoint(ServeConfig config, Sessions sessions) {
    this.config = config;
    this.sessions = sessions;
    this.keepAliveMillis = config.keepAlive().toMillis();
  }

  /**
   * One 2025-era message POSTed to the endpoint ({@code body} its bytes, already judged one valid
   * message by {@code McpPost}).
   */
  public void handle(JsonRpcMessage message, byte[] body, Request request, Response response, Callback callback)
      throws InterruptedException {
    JsonRpcId id = message instanceof JsonRpcMessage.Request r ? r.id() : null; // every error below carries it
    if (message instanceof JsonRpcMessage.Notification && request.getHeaders().get(SESSION_HEADER) == null) {
      // Nothing to forward it to; a 2026-era client's cancel (without _meta) is one of these.
      Replies.empty(response, callback, 202);
      return;
    }
    if (!versionAcceptable(id, request, response, callback)) {
      return;
    }
    if (message instanceof JsonRpcMessage.Request r && r.method().equals("initialize")) {
      initialize(r, request, response, callback);
      return;
    }
    Session session = session(id, request, response, callback);
    if (session == null) {
      return;
    }
    response.getHeaders().put(SESSION_HEADER, session.id);
    if (message instanceof JsonRpcMessage.Request r) {
      call(session, r, acceptsStream(request), request, response, callback);
    } else if (message instanceof JsonRpcMessage.Response r && session.elicitations.answered(r, session.callbackRegistry())) {
      Replies.empty(response, callback, 202); // the answer to a callback's elicitation: the gateway's own
    } else if (session.send(body)) {
      if (message instanceof JsonRpcMessage.Notification n && n.method().equals("notifications/cancelled")) {
        session.cancelledByClient(Json.id(body, Json.field(body, n.params(), "requestId")));
      }
      Replies.empty(response, callback, 202);
    } else {
      Replies.error(response, callback, 503, null, ErrorCodes.UPSTREAM_ERROR, "backend unavailable");
    }
  }

  public void get(Request request, Response response, Callback callback) throws InterruptedException {
    if (modernOnly(response, callback)) {
      return;
    }
    String accept = request.getHeaders().get(HttpHeader.ACCEPT);
    if (accept != null && !accept.contains("text/event-stream") && !accept.contains("*/*")) {
      Replies.error(response, callback, 406, null, ErrorCodes.INVALID_REQUEST,
          "the session stream is an event stream: send Accept: text/event-stream");
      return;
    }
    if (!versionAcceptable(null, request, response, callback)) {
      return;
    }
    Session session = session(null, request, response, callback);
    if (session == null) {
      return;
    }
    String lastEventId = request.getHeaders().get("Last-Event-ID");
    java.util.regex.Matcher resumption = lastEventId == null ? null : EVENT_ID.matcher(lastEventId.trim());
    if (resumption != null && resumption.matches()) {
      resume(session, Long.parseLong(resumption.group(1)), Long.parseLong(resumption.group(2)), request, response, callback);
      return;
    }
    request.addIdleTimeoutListener(timeout -> false); // keep-alives, not the idle timeout, govern
    response.getHeaders().put(SESSION_HEADER, session.id);
    IOException failure = null;
    try {
      session.serveStream(new EventStream(response), keepAliveMillis, EventStream::open);
    } catch (IOException e) {
      failure = e;
      session.log.debug("session stream closed by the client");
    } finally {
      Replies.complete(callback, failure);
    }
  }

  /** Ids of the events of resumable request streams: {@code <exchange sequence>-<event number>}. */
  private static final java.util.regex.Pattern EVENT_ID = java.util.regex.Pattern.compile("([0-9]{1,18})-([0-9]{1,18})");

  /** A client reconnecting to a request's stream after its connection dropped (SEP-1699). */
  private void resume(Session session, long sequence, long lastEvent, Request request, Response response,
      Callback callback) throws InterruptedException {
    Exchange exchange = session.resumable(sequence);
    if (exchange != null) {
      request.addIdleTimeoutListener(timeout -> false);
      response.getHeaders().put(SESSION_HEADER, session.id);
      session.log.debug("resuming the stream of request " + exchange.id + " after event " + lastEvent);
      if (new ExchangeWriter(session, config.backendTimeout(), keepAliveMillis).resume(exchange, lastEvent, response, callback)) {
        return;
      }
      response.getHeaders().remove(SESSION_HEADER);
    }
    Replies.error(response, callback, 410, null, ErrorCodes.UPSTREAM_ERROR,
        "cannot resume after event " + sequence + "-" + lastEvent + ": the stream is unknown, expired, or no longer kept");
  }

  public void delete(Request request, Response response, Callback callback) {
    if (modernOnly(response, callback)) {
      return;
    }
    Session session = session(null, request, response, callback);
    if (session == null) {
      return;
    }
    session.log.info("ended by the client");
    sessions.end(session, "session ended by the client");
    response.getHeaders().put(SESSION_HEADER, session.id);
    Replies.empty(response, callback, 200);
  }

  private void initialize(JsonRpcMessage.Request init, Request request, Response response, Callback callback)
      throws InterruptedException {
    Session session;
    try {
      session = sessions.create(Principals.of(request), init);
    } catch (IOException e) {
      // logged by Sessions.spawn, rate-limited: a client can cause one failure per request
      Replies.error(response, callback, 503, init.id(), ErrorCodes.UPSTREAM_ERROR,
          "backend unavailable: the server could not be started");
      return;
    }
    if (session == null) {
      Replies.error(response, callback, 503, init.id(), ErrorCodes.UPSTREAM_ERROR,
          "session limit reached (" + config.maxSessions() + ")");
      return;
    }
    session.log.info("started " + config.child().argv().getFirst() + " (pid " + session.child().pid() + ")" + session.warmNote());
    response.getHeaders().put(SESSION_HEADER, session.id);
    Exchange.Outcome outcome = call(session, init, acceptsStream(request), request, response, callback);
    if (!(outcome instanceof Exchange.Outcome.Answered answered)) {
      sessions.end(session, "initialize failed");
      return;
    }
    String refusal = refusal(answered.response());
    if (refusal != null) {
      // the client has its answer (the child's own error); a refused session must not hold a child
      session.log.warn("the child refused initialize (" + refusal + "); session ended");
      sessions.end(session, "initialize failed");
    }
  }

  /** Bound on how much of a child's error message a log line repeats. */
  private static final int REFUSAL_MESSAGE_CHARS = 200;

  /**
   * What the child's answer to initialize says when it refuses (its code and message, and for
   * -32022 what that means here), or null when it accepted. A child that speaks only the 2026 era
   * refuses a 2025-era initialize this way: the client is answered at once and no session stays.
   */
  private static String refusal(byte[] response) {
    try {
      if (!(JsonRpcCodec.parse(response) instanceof JsonRpcMessage.Response r)) {
        return "not a response";
      }
      if (!r.isError()) {
        return null;
      }
      byte[] b = r.bytes();
      int code = r.errorCode();
      String message = Json.string(b, Json.field(b, r.error(), "message"));
      if (message != null && message.length() > REFUSAL_MESSAGE_CHARS) {
        message = message.substring(0, REFUSAL_MESSAGE_CHARS) + "...";
      }
      String said = "error " + code + (message == null ? "" : ": " + message);
      return code == McpErrorCodes.UNSUPPORTED_PROTOCOL_VERSION
          ? said + "; it does not speak this client's protocol version: if it is a 2026-07-28 server, only "
              + "2026-era clients can use it through serve"
          : said;
    } catch (MalformedMessageException e) {
      return "a malformed answer";
    }
  }

  /**
   * Relays one request to the child and answers it (see {@link ExchangeWriter}).
   *
   * @return how it ended, or null when it never reached the child
   */
  private Exchange.Outcome call(Session session, JsonRpcMessage.Request r, boolean streaming, Request request,
      Response response, Callback callback) throws InterruptedException {
    ExchangeTable.Admission admission = session.admit(r, streaming);
    ExchangeWriter writer = new ExchangeWriter(session, config.backendTimeout(), keepAliveMillis);
    return switch (admission) {
      case ExchangeTable.Admission.Conflict c -> {
        session.log.warn("id " + r.id() + " is already in flight for " + Json.quote(c.existingMethod())
            + "; refused a different request (" + Json.quote(r.method()) + ") with the same id");
        Replies.error(response, callback, 409, r.id(), ErrorCodes.INVALID_REQUEST,
            "JSON-RPC id already in flight on this session; use a distinct id per outstanding request");
        yield null;
      }
      case ExchangeTable.Admission.Gone g -> {
        int status = session.dead() ? 503 : 404;
        Replies.error(response, callback, status, r.id(), ErrorCodes.UPSTREAM_ERROR,
            status == 404 ? "unknown or expired session" : "backend unavailable: " + session.deathReason());
        yield null;
      }
      case ExchangeTable.Admission.Full f -> {
        Replies.error(response, callback, 503, r.id(), ErrorCodes.UPSTREAM_ERROR,
            "too many requests in flight on this session (" + ExchangeTable.MAX_IN_FLIGHT + ")");
        yield null;
      }
      case ExchangeTable.Admission.Joined j -> writer.join(j.exchange(), streaming, request, response, callback);
      case ExchangeTable.Admission.Admitted a -> {
        if (!session.send(r.bytes())) {
          session.release(a.exchange());
          Replies.error(response, callback, 503, r.id(), ErrorCodes.UPSTREAM_ERROR, "backend unavailable");
          yield null;
        }
        yield writer.own(a.exchange(), request, response, callback);
      }
    };
  }

  /**
   * The session named by the request's header; answers 400, 404 or 503 itself (for the request
   * {@code requestId}, null when the message is no request) and returns null.
   */
  private Session session(JsonRpcId requestId, Request request, Response response, Callback callback) {
    String id = request.getHeaders().get(SESSION_HEADER);
    if (id == null || id.isBlank()) {
      Replies.error(response, callback, 400, requestId, ErrorCodes.INVALID_REQUEST,
          "Mcp-Session-Id required: send initialize first, then the id it returns");
      return null;
    }
    Session session = sessions.find(id.trim(), Principals.of(request));
    if (session == null || session.ended() || session.oneStream) { // an HTTP+SSE (2024-11-05) session is not this endpoint's
      Replies.error(response, callback, 404, requestId, ErrorCodes.UPSTREAM_ERROR, "unknown or expired session");
      return null;
    }
    if (session.dead()) {
      sessions.end(session, session.deathReason());
      Replies.error(response, callback, 503, requestId, ErrorCodes.UPSTREAM_ERROR,
          "backend unavailable: " + session.deathReason() + "; start a new session");
      return null;
    }
    return session;
  }

  private boolean versionAcceptable(JsonRpcId requestId, Request request, Response response, Callback callback) {
    String version = request.getHeaders().get("MCP-Protocol-Version");
    if (version == null || VERSIONS.contains(version.trim())) {
      return true;
    }
    Replies.error(response, callback, 400, requestId, ErrorCodes.INVALID_REQUEST,
        "unsupported MCP-Protocol-Version; supported: " + String.join(", ", VERSIONS.stream().sorted().toList()));
    return false;
  }

  /** Under {@code --modern-only} there are no sessions: GET and DELETE are answered 405 here. */
  private boolean modernOnly(Response response, Callback callback) {
    if (!config.era2026().modernOnly()) {
      return false;
    }
    response.getHeaders().put(HttpHeader.ALLOW, "POST");
    Replies.error(response, callback, 405, null, ErrorCodes.INVALID_REQUEST,
        "this endpoint serves only the 2026-07-28 revision (--modern-only): POST each request");
    return true;
  }

  static boolean acceptsStream(Request request) {
    for (String value : request.getHeaders().getValuesList(HttpHeader.ACCEPT)) {
      if (value.contains("text/event-stream")) {
        return true;
      }
    }
    return false;
  }


}
