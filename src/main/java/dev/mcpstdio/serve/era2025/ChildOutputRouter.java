package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.PartialMessage;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.stdio.Log;

/**
 * Where each message from a session's child goes: the one place the routing rules live.
 *
 * <p>The child's stdout pump hands over every line, in the order the child wrote them. A response
 * goes to the exchange waiting for its id. Progress goes to the exchange whose request carried that
 * progress token. Log messages and the child's own requests (sampling, elicitation, roots) go to
 * the oldest request still streaming, since the child sends them while a request runs; other
 * notifications belong to no request and go to the GET stream. What has no stream to go to waits
 * in the GET stream's bounded backlog for the next GET stream, and what a departed client left
 * unread goes back there. Every message goes to exactly one place; nothing is broadcast.
 *
 * <p>An HTTP+SSE (2024-11-05) session has one stream: every message from the child, answers
 * included, goes there, an answer past the stream's bounds (dropping it would leave its request
 * unanswered for good).
 *
 * <p>Lines that are not JSON, batches and invalid messages are dropped and logged within the
 * child's log budget, as are answers no request is waiting for.
 */
final class ChildOutputRouter {

  private final ExchangeTable exchanges;
  private final SessionGetStream getStream;
  private final ChildLog childLog;
  /**
   * HTTP+SSE (2024-11-05): every message from the child, answers included, goes to the one stream.
   * Set when the session's client arrives ({@link Session#clientArrived}), before any request of
   * it reaches the child; until then (a child spawned ahead of its client) the Streamable HTTP
   * rules route what the child writes unasked, which differ only for an answer, and no answer can
   * be due before the first request.
   */
  private volatile boolean oneStream;

  ChildOutputRouter(ExchangeTable exchanges, SessionGetStream getStream, ChildLog childLog) {
    this.exchanges = exchanges;
    this.getStream = getStream;
    this.childLog = childLog;
  }

  /** See {@link #oneStream}. */
  void oneStream(boolean value) {
    this.oneStream = value;
  }

  /** One line of the child's stdout. */
  void onLine(byte[] line) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parse(line);
    } catch (MalformedMessageException e) {
      childLog.warn("the server wrote a line that is not JSON (" + line.length + " bytes, " + e.getMessage()
          + "); dropped");
      return;
    }
    if (oneStream) {
      if (message instanceof JsonRpcMessage.Response) {
        getStream.force(line); // an answer is never dropped: its client would wait for ever
      } else {
        getStream.offer(line, "a message");
      }
      return;
    }
    switch (message) {
      case JsonRpcMessage.Response r -> {
        Exchange waiting = exchanges.waiting(r.id());
        if (waiting == null || !waiting.complete(new Exchange.Outcome.Answered(line))) {
          childLog.info("the server answered id " + Log.visible(String.valueOf(r.id())) + ", which no request is waiting for; dropped");
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/progress") -> {
        JsonRpcId token = Json.id(line, Json.field(line, n.params(), "progressToken"));
        Exchange owner = token == null ? null : exchanges.byProgressToken(token);
        if (owner == null || !owner.relate(line)) { // not taken: the session stream gets it
          getStream.offer(line, n.method());
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/message") -> toRunningRequest(line, n.method());
      case JsonRpcMessage.Notification n -> getStream.offer(line, n.method());
      case JsonRpcMessage.Request r -> toRunningRequest(line, r.method());
      case JsonRpcMessage.Batch b -> childLog.warn("the server wrote a batch; batches are not relayed, dropped");
      case JsonRpcMessage.Invalid i -> childLog.warn("the server wrote an invalid message (" + Log.visible(i.reason()) + "); dropped");
    }
  }

  /**
   * A stdout line over {@code --max-message-size}. When its first bytes show the id of a response
   * (no method), the request waiting for that id fails now, rather than at the backend timeout;
   * a one-stream session gets the error on its stream in the answer's place.
   */
  void onOversizedLine(long length, byte[] head) {
    JsonRpcId answered = PartialMessage.responseId(head);
    String why = "the server's answer is " + length + " bytes, over --max-message-size; dropped";
    if (answered == null) {
      childLog.warn("the server wrote a " + length + "-byte line, over --max-message-size; dropped");
    } else if (oneStream) {
      childLog.warn("id " + Log.visible(answered.json()) + ": " + why);
      getStream.force(JsonRpcErrors.error(answered, ErrorCodes.UPSTREAM_ERROR, why));
    } else {
      Exchange waiting = exchanges.waiting(answered);
      if (waiting != null && waiting.complete(new Exchange.Outcome.Failed(502, why))) {
        childLog.warn(Log.visible(waiting.request.method()) + " (id " + Log.visible(answered.json()) + "): " + why);
      } else {
        childLog.warn("the server wrote a " + length + "-byte answer to id " + Log.visible(answered.json())
            + ", which no request is waiting for, over --max-message-size; dropped");
      }
    }
  }

  /**
   * A message for the client that belongs with whatever request is running (a log message, a
   * request to the client): to the oldest request still streaming, else to the GET stream.
   */
  void toRunningRequest(byte[] line, String method) {
    Exchange running = exchanges.oldestStreaming();
    if (running == null || !running.relate(line)) {
      getStream.offer(line, method);
    }
  }
}
