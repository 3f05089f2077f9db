package dev.mcpstdio.jsonrpc;

import java.util.List;

/**
 * One JSON-RPC message as it travelled: its exact bytes plus what the relay needs to route it.
 *
 * <p>Classification never changes the bytes. Spans point into {@link #bytes()} so a field can be
 * read or rewritten without re-serialising the message.
 */
public sealed interface JsonRpcMessage {

  /** The message exactly as received (one JSON value, no line terminator). */
  byte[] bytes();

  /** A call that expects exactly one answer. */
  record Request(byte[] bytes, JsonRpcId id, JsonSpan idSpan, String method, JsonSpan params)
      implements JsonRpcMessage {}

  /** A one-way message; it is never answered. */
  record Notification(byte[] bytes, String method, JsonSpan params) implements JsonRpcMessage {}

  /**
   * A result or an error. {@code id} is null when the message carried {@code "id": null} (an
   * error about a message whose id could not be read).
   */
  record Response(byte[] bytes, JsonRpcId id, JsonSpan result, JsonSpan error)
      implements JsonRpcMessage {

    public boolean isError() {
      return error != null;
    }

    /** The error's integer {@code code}, or 0 for a result or an error whose code is missing or not an int. */
    public int errorCode() {
      JsonSpan code = error == null ? null : Json.field(bytes, error, "code");
      if (code == null || code.length() > 11) {
        return 0;
      }
      try {
        return Integer.parseInt(code.text(bytes));
      } catch (NumberFormatException e) {
        return 0;
      }
    }
  }

  /** A JSON array of messages (JSON-RPC batch; MCP 2025-03-26 only). */
  record Batch(byte[] bytes, List<JsonRpcMessage> members) implements JsonRpcMessage {}

  /**
   * Well-formed JSON that is not a usable JSON-RPC message. {@code id} is the id when one could be
   * read, so the error that answers it can still be correlated.
   */
  record Invalid(byte[] bytes, JsonRpcId id, String reason) implements JsonRpcMessage {}
}
