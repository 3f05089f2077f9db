package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.serve.era2025.McpEndpoint;
import dev.mcpstdio.serve.era2026.Era2026Endpoint;
import dev.mcpstdio.serve.era2026.EraClassifier;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.era2026.ValidationLadder;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.http.RequestBodies;
import dev.mcpstdio.serve.metrics.ServeMetrics;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * A POST to the MCP endpoint, whichever era it belongs to: the body is read within its bounds
 * ({@link RequestBodies}: 413, 503, 408), parsed as JSON in strict UTF-8 (400, -32700) and judged
 * one message (a batch or an invalid message, 400); then its era decides where it goes ({@link
 * EraClassifier}: the 2026 era only on evidence in the body): to {@link Era2026Endpoint} with the
 * principal the authentication gate set, or to the 2025 era's {@link McpEndpoint}, unchanged
 * (under {@code --modern-only} a 2025-era {@code initialize} is refused here: 400, -32022).
 */
final class McpPost {

  private final RequestBodies bodies;
  private final McpEndpoint era2025;
  private final Era2026Endpoint era2026;

  private final boolean modernOnly;
  private final ServeMetrics metrics;

  McpPost(RequestBodies bodies, McpEndpoint era2025, Era2026Endpoint era2026, boolean modernOnly, ServeMetrics metrics) {
    this.modernOnly = modernOnly;
    this.metrics = metrics;
    this.bodies = bodies;
    this.era2025 = era2025;
    this.era2026 = era2026;
  }

  void post(Request request, Response response, Callback callback) throws Exception {
    long arrived = System.nanoTime();
    byte[] body = bodies.read(request, response, callback);
    if (body == null) {
      return;
    }
    try {
      handle(body, arrived, request, response, callback);
    } finally {
      bodies.release(body);
    }
  }

  private void handle(byte[] body, long arrived, Request request, Response response, Callback callback) throws InterruptedException {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parseReceived(body, null); // strict UTF-8, as the relay reads stdin
    } catch (MalformedMessageException e) {
      Replies.error(response, callback, 400, null, ErrorCodes.PARSE_ERROR, "parse error: " + e.getMessage());
      return;
    }
    switch (message) {
      case JsonRpcMessage.Batch b -> {
        Replies.error(response, callback, 400, null, ErrorCodes.INVALID_REQUEST,
            "batches are not supported (removed from MCP in 2025-06-18); send one message per request");
        return;
      }
      case JsonRpcMessage.Invalid i -> {
        Replies.error(response, callback, 400, i.id(), ErrorCodes.INVALID_REQUEST, "invalid request: " + i.reason());
        return;
      }
      default -> {}
    }
    boolean era2026Message = EraClassifier.era(message) == EraClassifier.Era.ERA_2026;
    String method = switch (message) {
      case JsonRpcMessage.Request r -> r.method();
      case JsonRpcMessage.Notification n -> n.method();
      default -> null;
    };
    request.setAttribute(AccessLog.RPC_METHOD, method);
    if (message instanceof JsonRpcMessage.Request r) {
      request.setAttribute(AccessLog.RPC_ID, r.id().json());
    }
    Request.addCompletionListener(request, failure -> metrics.message(era2026Message ? "2026" : "2025", method,
        response.getStatus(), failure != null, System.nanoTime() - arrived));
    if (era2026Message) {
      era2026.handle(message, Principals.of(request), name -> request.getHeaders().getValuesList(name),
          request.getHeaders().getValuesList(HttpHeader.ACCEPT), response, callback);
    } else if (modernOnly && message instanceof JsonRpcMessage.Request r && r.method().equals("initialize")) {
      // --modern-only: no 2025-era sessions; the client learns which revision is served
      Replies.json(response, callback, 400, ValidationLadder.unsupported(
          Json.string(r.bytes(), Json.field(r.bytes(), r.params(), "protocolVersion"))).body(r.id()));
    } else {
      era2025.handle(message, body, request, response, callback);
    }
  }
}
