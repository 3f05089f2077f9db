package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.serve.http.ByteBudget;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The queue behind a session's GET stream: messages from the child that belong to no request
 * (list changes, resource updates, requests made while no request runs). One writer thread drains
 * it onto the HTTP response.
 *
 * <p>Producers ({@link #offer}, {@link #end}, {@link #drain}) are called under the owning
 * {@link SessionGetStream}'s stream lock, so nothing lands behind the end marker unseen. Bounded by
 * {@link #CAPACITY} messages and by the session's {@link ByteBudget}; the bytes of a message are
 * given back when the writer takes it or when it is drained.
 */
final class SessionStream {

  static final int CAPACITY = 1024;

  /** Put on the queue to make the writer finish. */
  private static final byte[] END = new byte[0];

  private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>();
  private final ByteBudget budget;
  private volatile boolean ended;

  SessionStream(ByteBudget budget) {
    this.budget = budget;
  }

  /** False when the stream has ended, is full, or the budget is spent. */
  boolean offer(byte[] message) {
    if (ended || queue.size() >= CAPACITY || !budget.tryTake(message.length)) {
      return false;
    }
    queue.add(message);
    return true;
  }

  /** Queues {@code message} whatever the bounds (its bytes are counted all the same). */
  void force(byte[] message) {
    budget.take(message.length);
    queue.add(message);
  }

  /** Ends the stream: the writer finishes after what is queued (unless it is drained first). */
  void end() {
    if (!ended) {
      ended = true;
      queue.add(END);
    }
  }

  boolean ended() {
    return ended;
  }

  /** Takes back the messages not yet written (their bytes given back), oldest first. */
  List<byte[]> drain() {
    List<byte[]> rest = new ArrayList<>();
    queue.drainTo(rest);
    rest.removeIf(m -> m == END);
    rest.forEach(m -> budget.giveBack(m.length));
    if (ended) {
      queue.add(END);
    }
    return rest;
  }

  /**
   * The next message; {@code null} after {@code millis} of silence (time for a keep-alive) or
   * once the stream has ended (check {@link #ended()}).
   */
  byte[] next(long millis) throws InterruptedException {
    byte[] message = queue.poll(millis, TimeUnit.MILLISECONDS);
    if (message == END) {
      queue.add(END); // stays ended for any later call
      return null;
    }
    if (message != null) {
      budget.giveBack(message.length);
    }
    return message;
  }
}
