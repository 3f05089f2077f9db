package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One client request in flight on a session: it waits for the child's response and, when its
 * client reads an event stream, collects the messages that belong with it (progress for its
 * token, and the requests and log messages the child sends while it runs).
 *
 * <p>The outcome is settled exactly once: the child's response, the client's own cancellation, or
 * the gateway's failure. Related messages are queued ahead of a final {@link Event.Done}, and none
 * is accepted once the outcome is settled or the stream's client has gone (both under this
 * exchange's lock), so every message queued here is either written or handed back by
 * {@link #abandon()}: none is lost in between.
 */
final class Exchange {

  /** At most this many related messages wait for a slow client; more go to the session stream. */
  static final int MAX_QUEUED = 4096;

  /** What the client is eventually told. */
  sealed interface Outcome {
    /** The child answered (a result or the child's own JSON-RPC error). */
    record Answered(byte[] response) implements Outcome {}

    /** The client cancelled the request; the child will not answer it. */
    record Cancelled() implements Outcome {}

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
  private final ByteBudget budget;
  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private final LinkedBlockingQueue<Event> events = new LinkedBlockingQueue<>();
  private int queued; // related messages in events, guarded by this
  private boolean ownerGone; // guarded by this

  Exchange(JsonRpcMessage.Request request, JsonRpcId progressToken, boolean streaming, long sequence, ByteBudget budget) {
    this.id = request.id();
    this.request = request;
    this.progressToken = progressToken;
    this.streaming = streaming;
    this.sequence = sequence;
    this.budget = budget;
  }

  /** True while a stream is being written for this exchange, so related messages can go there. */
  synchronized boolean acceptsRelated() {
    return streaming && !ownerGone && !outcome.isDone();
  }

  /** Queues a related message; false when it cannot be (settled, client gone, queue or budget full). */
  synchronized boolean relate(byte[] message) {
    if (!streaming || ownerGone || outcome.isDone() || queued >= MAX_QUEUED || !budget.tryTake(message.length)) {
      return false;
    }
    queued++;
    events.add(new Event.Related(message));
    return true;
  }

  /** Settles the exchange; only the first call counts. */
  synchronized boolean complete(Outcome result) {
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
    if (event instanceof Event.Related related) {
      synchronized (this) {
        queued--;
      }
      budget.giveBack(related.message().length);
    }
    return event;
  }

  /**
   * The stream's client went away: no more related messages are taken, and those still queued are
   * handed back (their bytes returned) so the session can send them elsewhere.
   */
  synchronized List<byte[]> abandon() {
    ownerGone = true;
    List<Event> rest = new ArrayList<>();
    events.drainTo(rest);
    List<byte[]> messages = new ArrayList<>();
    for (Event e : rest) {
      if (e instanceof Event.Related related) {
        messages.add(related.message());
        budget.giveBack(related.message().length);
      } else {
        events.add(e); // Done stays for whoever waits on the outcome
      }
    }
    queued = 0;
    return messages;
  }
}
