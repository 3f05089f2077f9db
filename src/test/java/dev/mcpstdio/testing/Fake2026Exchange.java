package dev.mcpstdio.testing;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * One HTTP exchange recorded by {@link Fake2026Server}: what the client sent (header names lower
 * case, the body's exact bytes) and whether the client closed the response before the server had
 * finished it (the 2026 era's only way to cancel a request over HTTP).
 *
 * <p>The body is parsed once, leniently: {@link #json()} is null when it is not JSON.
 */
public final class Fake2026Exchange {

  private final int seq;
  private final String method;
  private final String path;
  private final Map<String, String> headers;
  private final byte[] body;
  private final JsonNode json;
  private final long receivedAtNanos = System.nanoTime();
  private final CountDownLatch clientClosed = new CountDownLatch(1);
  private volatile long clientClosedAtNanos;
  private volatile boolean completed;

  Fake2026Exchange(int seq, String method, String path, Map<String, String> headers, byte[] body, JsonNode json) {
    this.seq = seq;
    this.method = method;
    this.path = path;
    this.headers = headers;
    this.body = body;
    this.json = json;
  }

  /** 1 for the first exchange the server saw, then 2, 3... */
  public int seq() {
    return seq;
  }

  /**
   * {@link System#nanoTime()} when the server had read the request: with {@link
   * #clientClosedAtNanos()} of another exchange it orders a close before a reopen.
   */
  public long receivedAtNanos() {
    return receivedAtNanos;
  }

  /** The HTTP method. */
  public String method() {
    return method;
  }

  public String path() {
    return path;
  }

  /** All request headers, names lower case; repeated headers joined with ", ". */
  public Map<String, String> headers() {
    return headers;
  }

  /** A request header by case-insensitive name, or null. */
  public String header(String name) {
    return headers.get(name.toLowerCase(Locale.ROOT));
  }

  /** The body's exact bytes. */
  public byte[] body() {
    return body.clone();
  }

  public String text() {
    return new String(body, StandardCharsets.UTF_8);
  }

  /** The parsed body, or null when it is empty or not JSON. */
  public JsonNode json() {
    return json;
  }

  /** True when the body is a JSON-RPC request (an object with a method and a string or number id). */
  public boolean isRequest() {
    return json != null && json.isObject() && json.path("method").isString()
        && (json.path("id").isString() || json.path("id").isNumber());
  }

  /** True when the body is a JSON-RPC notification (a method and no id). */
  public boolean isNotification() {
    return json != null && json.isObject() && json.path("method").isString() && !json.has("id");
  }

  /** The JSON-RPC method of the body, or null. */
  public String rpcMethod() {
    return json != null && json.path("method").isString() ? json.get("method").stringValue() : null;
  }

  /** The request id exactly as written in the body (e.g. {@code 7} or {@code "abc"}), or null. */
  public String idJson() {
    if (!isRequest()) {
      return null;
    }
    try {
      JsonRpcMessage m = JsonRpcCodec.parse(body);
      return m instanceof JsonRpcMessage.Request r ? r.id().json() : null;
    } catch (MalformedMessageException e) {
      return json.get("id").toString(); // not valid JSON-RPC for the codec: Jackson's rendering
    }
  }

  /** {@code params}, or a missing node (never null). */
  public JsonNode params() {
    return json == null ? tools.jackson.databind.node.MissingNode.getInstance() : json.path("params");
  }

  /** A member of {@code params._meta}, or a missing node (never null). */
  public JsonNode meta(String key) {
    return params().path("_meta").path(key);
  }

  /** {@code params.arguments} of a tools/call, or a missing node. */
  public JsonNode arguments() {
    return params().path("arguments");
  }

  /**
   * A top-level member of {@code params} exactly as written in the body (raw JSON text), or null:
   * for byte-for-byte assertions such as an echoed {@code requestState}.
   */
  public String rawParam(String name) {
    try {
      JsonRpcMessage m = JsonRpcCodec.parse(body);
      var params = switch (m) {
        case JsonRpcMessage.Request r -> r.params();
        case JsonRpcMessage.Notification n -> n.params();
        default -> null;
      };
      if (params == null) {
        return null;
      }
      var span = Json.field(m.bytes(), params, name);
      return span == null ? null : span.text(m.bytes());
    } catch (MalformedMessageException e) {
      return null;
    }
  }

  /** Whether the client sent {@code Mcp-Session-Id} (a 2026 client never does). */
  public boolean sentSessionId() {
    return headers.containsKey("mcp-session-id");
  }

  /** Whether the client sent {@code Last-Event-ID} (a 2026 client never does). */
  public boolean sentLastEventId() {
    return headers.containsKey("last-event-id");
  }

  /**
   * True once the client closed the connection while the server still held the response (a
   * stream, a hang). Only replies that hold the response watch for this; an answer sent at once
   * never counts as closed early.
   */
  public boolean clientClosedEarly() {
    return clientClosed.getCount() == 0;
  }

  /** {@link System#nanoTime()} when the early close was seen, or 0. */
  public long clientClosedAtNanos() {
    return clientClosedAtNanos;
  }

  /** Waits (bounded) until the client closes this exchange's response early; fails otherwise. */
  public void awaitClientClosed(Duration timeout) {
    try {
      if (!clientClosed.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for the client to close exchange "
            + seq + " (" + rpcMethod() + ")");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted waiting for the client to close exchange " + seq);
    }
  }

  public void awaitClientClosed() {
    awaitClientClosed(Await.DEFAULT);
  }

  /** True once the server wrote the whole response (not cut, not abandoned by the client). */
  public boolean completed() {
    return completed;
  }

  void markClientClosed() {
    if (clientClosed.getCount() > 0) {
      clientClosedAtNanos = System.nanoTime();
      clientClosed.countDown();
    }
  }

  /** Waits up to {@code millis} for an early close; true if it happened. */
  boolean waitClientClosed(long millis) throws InterruptedException {
    return clientClosed.await(millis, TimeUnit.MILLISECONDS);
  }

  void markCompleted() {
    completed = true;
  }

  @Override
  public String toString() {
    return seq + " " + method + " " + path + (rpcMethod() == null ? "" : " " + rpcMethod())
        + (clientClosedEarly() ? " (closed by client)" : "");
  }
}
