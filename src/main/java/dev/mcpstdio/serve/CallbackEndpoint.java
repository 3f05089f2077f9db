package dev.mcpstdio.serve;

import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import java.io.IOException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The events API for callbacks of session-scoped children (docs/callbacks.md), for host UIs and
 * clients without elicitation: {@code GET /callbacks} streams every callback announced, as
 * {@code callback} events {@code {"session": ..., "callback": {...}}}; {@code POST
 * /callbacks/<id>/reply} with the session in {@code Mcp-Session-Id} and the reply as its body
 * answers one (200, 404 for an unknown callback, 409 for one already answered or expired).
 * Authenticated and guarded like the MCP endpoint.
 */
final class CallbackEndpoint {

  static final String PATH = "/callbacks";

  private final Sessions sessions;
  private final RequestBodies bodies;
  private final long keepAliveMillis;

  CallbackEndpoint(Sessions sessions, RequestBodies bodies, long keepAliveMillis) {
    this.sessions = sessions;
    this.bodies = bodies;
    this.keepAliveMillis = keepAliveMillis;
  }

  void watch(Request request, Response response, Callback callback) throws InterruptedException {
    request.addIdleTimeoutListener(timeout -> false);
    CallbackEvents.Watcher watcher = sessions.callbackEvents().watch();
    EventStream events = new EventStream(response);
    try {
      events.open();
      while (true) {
        byte[] event = watcher.next(keepAliveMillis);
        if (event == CallbackEvents.END) {
          events.close();
          break;
        } else if (event == null) {
          events.keepAlive();
        } else {
          events.event("callback", event);
        }
      }
    } catch (IOException e) {
      // the watcher went away
    } finally {
      sessions.callbackEvents().unwatch(watcher);
      callback.succeeded();
    }
  }

  void reply(String callbackId, Request request, Response response, Callback callback) throws IOException {
    Session session = sessions.find(request.getHeaders().get(McpEndpoint.SESSION_HEADER));
    CallbackRegistry registry = session == null ? null : session.callbackRegistry();
    if (registry == null) {
      Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR,
          "unknown session: send the callback's session in Mcp-Session-Id");
      return;
    }
    byte[] body = bodies.read(request, response, callback);
    if (body == null) {
      return;
    }
    try {
      if (!Json.isOneObject(body)) {
        Replies.error(response, callback, 400, null, ErrorCodes.INVALID_REQUEST, "the reply must be one JSON object");
        return;
      }
      switch (registry.reply(callbackId, new String(body, java.nio.charset.StandardCharsets.UTF_8).strip())) {
        case ACCEPTED -> Replies.text(response, callback, 200, "application/json", "{\"accepted\":true}");
        case UNKNOWN -> Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "unknown callback");
        case CLOSED -> Replies.error(response, callback, 409, null, ErrorCodes.UPSTREAM_ERROR,
            "callback already answered or expired");
      }
    } finally {
      bodies.release(body);
    }
  }
}
