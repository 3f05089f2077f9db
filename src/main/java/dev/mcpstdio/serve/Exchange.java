package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One client request in flight on a session: it waits for the child's response and, when its
 * client reads an event stream, collects the messages that belong with it (progress for its
 * token, and the requests and log messages the child sends while it runs).
 *
 * <p>The answer completes exactly once, with the child's response or with the gateway's own
 * failure; the related messages are queued ahead of a final {@link Event.Done}, so the stream
 * writer sees them in the order the child wrote them and the answer last.
 */
final class Exchange {

  /** At most this many related messages wait for a slow client; more are dropped and logged. */
  static final int MAX_QUEUED = 4096;

  /** What the client is eventually told. */
  sealed interface Outcome {
    /** The child answered (a result or the child's own JSON-RPC error). */
    record Answered(byte[] response) implements Outcome {}

    /** The gateway could not get an answer: the HTTP status and the JSON-RPC error message. */
    record Failed(int status, String message) implements Outcome {}
  }

  /** What the stream writer takes from the queue. */
  sealed interface Event {
    record Related(byte[] message) implements Event {}

    record Done() implements Event {}
  }

  private static final Event DONE = new Event.Done();

  final JsonRpcId id;
  final JsonRpcMessage.Request request;
  final JsonRpcId progressToken; // null when the request asked for no progress
  final boolean streaming;
  final long sequence;
  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private final AtomicInteger queued = new AtomicInteger();
  private volatile boolean ownerGone;

  Exchange(JsonRpcMessage.Request request, JsonRpcId progressToken, boolean streaming, long sequence) {
    this.id = request.id();
    this.request = request;
    this.progressToken = progressToken;
    this.streaming = streaming;
    this.sequence = sequence;
  }

  /** True while a stream is being written for this exchange, so related messages can go there. */
  boolean acceptsRelated() {
    return streaming && !ownerGone && !outcome.isDone();
  }

  /** Queues a related message; false when the queue is full (the caller logs the drop). */
  boolean relate(byte[] message) {
    if (queued.incrementAndGet() > MAX_QUEUED) {
      queued.decrementAndGet();
      return false;
    }
    events.add(new Event.Related(message));
    return true;
  }

  /** Settles the exchange; only the first call counts. */
  boolean complete(Outcome result) {
    if (outcome.complete(result)) {
      events.add(DONE);
      return true;
    }
    return false;
  }

  CompletableFuture<Outcome> outcome() {
    return outcome;
  }

  /** The next event for the stream writer, or null after {@code millis} without one. */
  Event next(long millis) throws InterruptedException {
    Event event = events.poll(millis, TimeUnit.MILLISECONDS);
    if (event instanceof Event.Related) {
      queued.decrementAndGet();
    }
    return event;
  }

  /** The client that opened the stream went away; related messages now go elsewhere. */
  void ownerGone() {
    ownerGone = true;
  }
}
