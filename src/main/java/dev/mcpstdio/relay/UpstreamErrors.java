package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import java.time.Duration;

/**
 * Words for what went wrong, in the errors the relay writes when the server gave no answer.
 *
 * <p>The message names the failure the way a user would look for it (the HTTP status, the
 * transport problem, whether a tool may have run); {@code data} carries the machine-readable
 * part: the status, {@code retryAfter} in seconds when the server asked for a pause, and the
 * server's own JSON-RPC error object when its error body had one.
 */
final class UpstreamErrors {

  /** An error's code, message and {@code data} member as JSON (or null). */
  record Error(int code, String message, String data) {
    Error(String message, String data) {
      this(ErrorCodes.UPSTREAM_ERROR, message, data);
    }
  }

  private UpstreamErrors() {}

  static Error describe(Call call, Outcome outcome) {
    return switch (outcome) {
      case Outcome.Delivered d ->
          new Error(
              d.emitted()
                  ? "upstream closed the response stream before answering"
                  : "empty response from server",
              null);
      case Outcome.Accepted a ->
          new Error("HTTP " + a.status() + " (no response body for request)", status(a.status(), null, null));
      case Outcome.Refused r -> refused(r);
      case Outcome.Failed f -> failed(call, f);
    };
  }

  private static Error refused(Outcome.Refused r) {
    String hint =
        switch (r.status()) {
          case 401 -> " (authentication required: check --bearer-token or the Authorization header)";
          case 403 -> " (forbidden)";
          case 404 -> " (not found: check the server URL)";
          case 405 -> " (method not allowed: is this an MCP endpoint?)";
          case 406 -> " (not acceptable)";
          case 413 -> " (request too large for the server)";
          case 429 -> " (rate limited)";
          case 502, 504 -> " (gateway error in front of the server)";
          case 503 -> " (server unavailable)";
          default -> "";
        };
    Duration retryAfter = RetryLink.retryAfter(r);
    String upstreamError =
        r.error() == null ? null : r.error().error().text(r.error().bytes());
    return new Error(
        "upstream server returned HTTP " + r.status() + hint,
        status(r.status(), retryAfter, upstreamError));
  }

  private static Error failed(Call call, Outcome.Failed f) {
    String reason = f.reason();
    switch (f.kind()) {
      case INTERNAL, OUT_OF_MEMORY -> {
        return new Error(ErrorCodes.INTERNAL_ERROR, reason, null);
      }
      case SESSION_LOST, SHUTDOWN, UNAUTHORIZED, NO_ANSWER -> {
        return new Error(reason, null); // the relay's own words are the whole story
      }
      case TRANSPORT -> {}
    }
    if (f.emitted()) {
      return new Error(
          reason.startsWith("upstream stream interrupted") ? reason : "upstream stream interrupted: " + reason,
          null);
    }
    if (f.sent() && f.retryable() && !ReplaySafety.mayReplay(call)) {
      return new Error(
          "upstream connection failed after the request was sent (" + reason + "); not retried because "
              + call.method() + " may already have run",
          null);
    }
    return new Error("upstream request failed: " + reason, null);
  }

  private static String status(int status, Duration retryAfter, String upstreamError) {
    StringBuilder json = new StringBuilder("{\"status\":").append(status);
    if (retryAfter != null) {
      long seconds = (retryAfter.toMillis() + 999) / 1000;
      json.append(",\"retryAfter\":").append(seconds);
    }
    if (upstreamError != null) {
      json.append(",\"upstreamError\":").append(upstreamError);
    }
    return json.append('}').toString();
  }
}
