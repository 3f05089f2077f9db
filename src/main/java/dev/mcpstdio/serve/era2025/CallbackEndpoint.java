package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.host.CredentialHandoff;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.http.RequestBodies;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The events API for callbacks of session-scoped children (docs/callbacks.md), for clients without
 * elicitation and their host UIs. Scoped to the caller's own session, named by its
 * {@code Mcp-Session-Id} (the session's capability): {@code GET /callbacks} streams that session's
 * callbacks as {@code callback} events {@code {"callback": {...}}}; {@code POST
 * /callbacks/<id>/reply} with the reply as its body answers one (200, 404 for an unknown callback,
 * 409 for one already answered or expired). {@code PUT /credentials/<slug>} hands a credential
 * off to the session's child (see {@link #credential}). Authenticated and guarded like the MCP
 * endpoint.
 */
public final class CallbackEndpoint {

  public static final String PATH = "/callbacks";

  /** The credential handoff, {@code PUT /credentials/<slug>}. */
  public static final String CREDENTIALS_PATH = "/credentials";

  private final Sessions sessions;
  private final RequestBodies bodies;
  private final long keepAliveMillis;

  public CallbackEndpoint(Sessions sessions, RequestBodies bodies, long keepAliveMillis) {
    this.sessions = sessions;
    this.bodies = bodies;
    this.keepAliveMillis = keepAliveMillis;
  }

  public void watch(Request request, Response response, Callback callback) throws InterruptedException {
    Session session = session(request, response, callback);
    if (session == null) {
      return;
    }
    CallbackEvents.Watcher watcher = sessions.callbackEvents().watch(session.id);
    if (watcher == null) {
      Replies.error(response, callback, 429, null, ErrorCodes.UPSTREAM_ERROR,
          "this session has " + CallbackEvents.MAX_WATCHERS + " callback streams open already");
      return;
    }
    request.addIdleTimeoutListener(timeout -> false);
    EventStream events = new EventStream(response);
    IOException failure = null;
    try {
      events.open();
      for (dev.mcpstdio.host.Callback waiting : session.callbackRegistry().waiting()) {
        // those announced before this stream opened (one may also come below: ids tell them apart)
        events.event("callback", CallbackEvents.event(waiting));
      }
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
      failure = e; // the watcher went away
    } finally {
      sessions.callbackEvents().unwatch(session.id, watcher);
      Replies.complete(callback, failure);
    }
  }

  /** The caller's live session, or null after answering 400 or 404. */
  private Session session(Request request, Response response, Callback callback) {
    String id = request.getHeaders().get(McpHeaders.SESSION_ID);
    if (id == null || id.isBlank()) {
      Replies.error(response, callback, 400, null, ErrorCodes.INVALID_REQUEST, "Mcp-Session-Id required");
      return null;
    }
    Session session = sessions.find(id.trim(), Principals.of(request));
    if (session == null || session.ended() || session.callbackRegistry() == null) {
      Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "unknown or expired session");
      return null;
    }
    return session;
  }

  public void reply(String callbackId, Request request, Response response, Callback callback) throws InterruptedException {
    Session session = session(request, response, callback);
    if (session == null) {
      return;
    }
    CallbackRegistry registry = session.callbackRegistry();
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

  /** A handed-off credential's value, at most, in characters (OAuth access tokens, JWTs included, are far smaller). */
  public static final int MAX_CREDENTIAL_CHARS = 16 * 1024;

  /**
   * Writes the credential in the body ({@code {"value": "...", "expiresAt": "<ISO-8601 instant>"}},
   * no expiry when absent) for source {@code slug} into the session's workspace, where its child
   * reads it (see {@link SessionWorkspace#handOff}), and tells those waiting for that sign-in
   * ({@link Session#signedIn}). 200 {@code {"written":true,"answered":N}}; 400 for a bad slug or
   * body (a value over {@link #MAX_CREDENTIAL_CHARS}); 404 for an unknown or ended session; 409
   * when the session has no workspace, already holds {@link SessionSecrets#MAX} secrets, or the
   * file cannot be written (a link in the way). The value never reaches a log: it is one of the
   * session's secrets from here on.
   */
  public void credential(String slug, Request request, Response response, Callback callback) throws InterruptedException {
    Session session = session(request, response, callback);
    if (session == null) {
      return;
    }
    byte[] body = bodies.read(request, response, callback); // read first: the connection stays usable
    if (body == null) {
      return;
    }
    try {
      if (!CredentialHandoff.isSlug(slug)) {
        Replies.error(response, callback, 400, null, ErrorCodes.INVALID_REQUEST,
            "not a source slug (one path segment of A-Z a-z 0-9 . _ -, at most 128, no ..)");
        return;
      }
      JsonSpan all = new JsonSpan(0, body.length);
      String value = Json.isOneObject(body) ? Json.string(body, Json.field(body, all, "value")) : null;
      JsonSpan expiresField = value == null ? null : Json.field(body, all, "expiresAt");
      String expires = expiresField == null ? null : Json.string(body, expiresField);
      Instant expiresAt = expires == null ? null : parseInstant(expires);
      if (value == null || value.isEmpty() || value.length() > MAX_CREDENTIAL_CHARS
          || (expiresField != null && expiresAt == null)) {
        Replies.error(response, callback, 400, null, ErrorCodes.INVALID_REQUEST, "the body must be {\"value\": \"...\", "
            + "\"expiresAt\": \"<ISO-8601 instant>\"} (expiresAt optional; the value 1 to " + MAX_CREDENTIAL_CHARS + " characters)");
        return;
      }
      SessionWorkspace workspace = session.workspace();
      if (workspace == null || workspace.folder() == null) {
        Replies.error(response, callback, 409, null, ErrorCodes.INVALID_REQUEST,
            "this session has no workspace to hand a credential to (serve runs without --workspace-root)");
        return;
      }
      if (!session.secrets.add(value)) {
        Replies.error(response, callback, session.ended() ? 404 : 409, null, ErrorCodes.INVALID_REQUEST, session.ended()
            ? "unknown or expired session" : "this session holds " + (SessionSecrets.MAX - 1) + " credentials already");
        return;
      }
      try {
        workspace.handOff(slug, value, expiresAt);
      } catch (java.nio.file.NoSuchFileException e) {
        Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "unknown or expired session");
        return;
      } catch (IOException e) {
        session.childLog.warn("credential for source " + slug + " not handed off: " + e.getMessage());
        Replies.error(response, callback, 409, null, ErrorCodes.UPSTREAM_ERROR,
            "the credential could not be written into the session's workspace (see the gateway's log)");
        return;
      }
      int answered = session.signedIn(slug);
      session.childLog.info("credential for source " + slug + " handed off" + (answered == 0 ? "" : "; " + answered
          + " waiting sign-in callback(s) answered"));
      Replies.text(response, callback, 200, "application/json", "{\"written\":true,\"answered\":" + answered + "}");
    } finally {
      bodies.release(body);
    }
  }

  private static Instant parseInstant(String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
