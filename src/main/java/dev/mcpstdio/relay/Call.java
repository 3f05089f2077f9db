package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * One message on its way to the upstream server, as the interceptor chain sees it.
 *
 * @param message the message as classified (its bytes are what the host wrote)
 * @param body the bytes to POST; equal to the message's unless a link rewrote them
 * @param headers per-call headers added by links (session id, protocol version), lower-case names
 * @param internal true for the relay's own requests (re-initialize, extra pages): their answers
 *     never reach the host
 * @param handover completed once the body has been handed to the connection (or the attempt has
 *     failed), so the dispatcher can keep a notification behind the POSTs before it
 */
record Call(
    JsonRpcMessage message,
    byte[] body,
    Map<String, String> headers,
    boolean internal,
    CompletableFuture<Void> handover) {

  static Call of(JsonRpcMessage message) {
    return new Call(message, message.bytes(), Map.of(), false, new CompletableFuture<>());
  }

  static Call internal(JsonRpcMessage message) {
    return new Call(message, message.bytes(), Map.of(), true, new CompletableFuture<>());
  }

  /** The JSON-RPC method, or null for responses and batches. */
  String method() {
    if (message instanceof JsonRpcMessage.Request r) {
      return r.method();
    }
    return message instanceof JsonRpcMessage.Notification n ? n.method() : null;
  }

  /** The request id, or null when the message is not a request. */
  JsonRpcId requestId() {
    return message instanceof JsonRpcMessage.Request r ? r.id() : null;
  }

  boolean isRequest() {
    return message instanceof JsonRpcMessage.Request;
  }

  Call withBody(JsonRpcMessage newMessage) {
    return new Call(newMessage, newMessage.bytes(), headers, internal, handover);
  }

  /** The call with {@code added} headers set (names are case-insensitive; a null value removes). */
  Call withHeaders(Map<String, String> added) {
    if (added.isEmpty()) {
      return this;
    }
    Map<String, String> copy = new LinkedHashMap<>(headers);
    added.forEach((name, value) -> {
      String key = name.toLowerCase(Locale.ROOT);
      if (value == null) {
        copy.remove(key);
      } else {
        copy.put(key, value);
      }
    });
    return new Call(message, body, Map.copyOf(copy), internal, handover);
  }
}
