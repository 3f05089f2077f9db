package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.http.RequestBodies;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The legacy HTTP+SSE transport (MCP 2024-11-05), for clients that predate Streamable HTTP.
 *
 * <p>{@code GET /sse} starts a session (one child, counted against {@code --max-sessions}; a warm
 * one when {@code --warm} keeps some) and
 * holds its event stream: first an {@code endpoint} event naming where to POST
 * ({@code /messages?sessionId=...}), then every message the child writes, answers included, as
 * {@code message} events, with keep-alive comments. {@code POST /messages?sessionId=...} hands
 * one message to that session's child and answers 202; replies travel on the stream. The session
 * and its child end when the stream closes. Host, Origin, authentication and size limits are those
 * of the Streamable HTTP endpoint.
 */
public final class LegacySseEndpoint {

  private final ServeConfig config;
  private final Sessions sessions;
  private final RequestBodies bodies;

  public LegacySseEndpoint(ServeConfig config, Sessions sessions, RequestBodies bodies) {
    this.config = config;
    this.sessions = sessions;
    this.bodies = bodies;
  }

  /** {@code GET /sse}: a session for as long as this stream lasts. */
  public void stream(Request request, Response response, Callback callback) throws InterruptedException {
    Session session;
    try {
      session = sessions.create(Principals.of(request), true, null);
    } catch (IOException e) {
      // logged by Sessions.spawn, rate-limited: a client can cause one failure per request
      Replies.error(response, callback, 503, null, ErrorCodes.UPSTREAM_ERROR, "backend unavailable: the server could not be started");
      return;
    }
    if (session == null) {
      Replies.error(response, callback, 503, null, ErrorCodes.UPSTREAM_ERROR,
          "session limit reached (" + config.maxSessions() + ")");
      return;
    }
    session.log.info("started " + config.child().argv().getFirst() + " (pid " + session.child().pid()
        + ")" + session.warmNote() + " for an HTTP+SSE client");
    request.addIdleTimeoutListener(timeout -> false); // keep-alives, not the idle timeout, govern
    byte[] endpoint = (config.pathPrefix() + config.messagesPath() + "?sessionId=" + session.id).getBytes(StandardCharsets.UTF_8);
    IOException failure = null;
    try {
      session.serveStream(new EventStream(response), config.keepAlive().toMillis(), events -> {
        events.open();
        events.event("endpoint", endpoint);
      });
    } catch (IOException e) {
      failure = e;
      session.log.debug("the HTTP+SSE client closed its stream");
    } finally {
      session.log.info("HTTP+SSE stream closed; ending the session");
      sessions.end(session, "the event stream closed");
      Replies.complete(callback, failure);
    }
  }

  /**
   * {@code POST /messages?sessionId=...}: one message for the session's child. The body is read
   * first, so that every error answer to a request carries its id; the session is judged before
   * the message.
   */
  public void post(Request request, Response response, Callback callback) throws InterruptedException {
    byte[] body = bodies.read(request, response, callback);
    if (body == null) {
      return;
    }
    try {
      JsonRpcMessage message;
      String malformed = null;
      try {
        message = JsonRpcCodec.parseReceived(body, null); // strict UTF-8, as the relay reads stdin
      } catch (MalformedMessageException e) {
        message = null;
        malformed = e.getMessage();
      }
      JsonRpcId requestId = message instanceof JsonRpcMessage.Request r ? r.id() : null;
      String id = Request.extractQueryParameters(request).getValue("sessionId");
      if (id == null || id.isBlank()) {
        Replies.error(response, callback, 400, requestId, ErrorCodes.INVALID_REQUEST, "sessionId required in the query");
        return;
      }
      Session session = sessions.find(id, Principals.of(request));
      if (session == null || !session.oneStream || session.ended()) {
        Replies.error(response, callback, 404, requestId, ErrorCodes.UPSTREAM_ERROR, "unknown or expired session");
        return;
      }
      if (message == null) {
        Replies.error(response, callback, 400, null, ErrorCodes.PARSE_ERROR, "parse error: " + malformed);
        return;
      }
      if (message instanceof JsonRpcMessage.Invalid invalid) {
        Replies.error(response, callback, 400, invalid.id(), ErrorCodes.INVALID_REQUEST, "invalid request: " + invalid.reason());
        return;
      }
      if (session.dead() || !session.send(body)) {
        Replies.error(response, callback, 503, requestId, ErrorCodes.UPSTREAM_ERROR, "backend unavailable");
        return;
      }
      Replies.text(response, callback, 202, "text/plain", "Accepted");
    } finally {
      bodies.release(body);
    }
  }
}
