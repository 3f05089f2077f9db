package dev.mcpstdio.serve;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The queue behind a session's GET stream: messages from the child that belong to no request
 * (list changes, resource updates, requests made while no request runs). One writer thread drains
 * it onto the HTTP response. Bounded by {@link #CAPACITY}; a client that stops reading loses
 * messages past it, each drop logged, rather than making the gateway hold them without limit.
 */
final class SessionStream {

  static final int CAPACITY = 1024;

  /** Put on the queue to make the writer finish. */
  private static final byte[] END = new byte[0];

  private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>(CAPACITY + 1);
  private volatile boolean ended;

  /** False when the stream has ended or its queue is full. */
  boolean offer(byte[] message) {
    // One slot stays free for END: the child's stdout pump is the only producer of messages.
    return !ended && queue.size() < CAPACITY && queue.offer(message);
  }

  /** Ends the stream: the writer finishes after what is already queued. */
  void end() {
    ended = true;
    queue.offer(END);
  }

  boolean ended() {
    return ended;
  }

  /**
   * The next message; {@code null} after {@code millis} of silence (time for a keep-alive) or
   * once the stream has ended (check {@link #ended()}).
   */
  byte[] next(long millis) throws InterruptedException {
    byte[] message = queue.poll(millis, TimeUnit.MILLISECONDS);
    return message == END ? null : message;
  }
}
