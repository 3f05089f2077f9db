package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.serve.http.ByteBudget;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The events API's fan-out: the callbacks a session's child announces, to watchers of that session
 * only (docs/callbacks.md): a watcher proves it is the session's client with its
 * {@code Mcp-Session-Id}, and events never carry a session id, so nothing here hands one session's
 * capability to another. Each stream has its own bounded queue; a watcher that stops reading loses
 * events past {@link #CAPACITY}, never slows a child. At most {@link #MAX_WATCHERS} per session.
 * Queued events count against the gateway-wide allowance for messages waiting for slow clients
 * (an event is dropped for a watcher when it is spent); a dropped callback still waits in its
 * session and is shown first to the next stream opened.
 */
final class CallbackEvents {

  static final int CAPACITY = 256;

  /** Put on a watcher's queue to end its stream. */
  static final byte[] END = new byte[0];

  /** One watcher's queue. */
  static final class Watcher {
    private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>(CAPACITY);
    private final ByteBudget budget;
    private boolean drained; // guarded by this: nothing is queued after the stream is over

    Watcher(ByteBudget budget) {
      this.budget = budget;
    }

    /** The next event, null after {@code millis} of silence, or {@link #END} when the gateway stops. */
    byte[] next(long millis) throws InterruptedException {
      byte[] event = queue.poll(millis, TimeUnit.MILLISECONDS);
      if (event != null) {
        budget.giveBack(event.length); // END is empty: nothing to give back
      }
      return event;
    }

    /** Queues {@code event} unless the queue is full or the allowance spent. */
    synchronized void offer(byte[] event) {
      if (!drained && budget.tryTake(event.length) && !queue.offer(event)) {
        budget.giveBack(event.length);
      }
    }

    void end() {
      drain();
      queue.offer(END);
    }

    /** Gives back what is still queued; the stream is over. */
    synchronized void drain() {
      drained = true;
      for (byte[] left; (left = queue.poll()) != null; ) {
        budget.giveBack(left.length);
      }
    }
  }

  static final int MAX_WATCHERS = 8;

  private final java.util.Map<String, Set<Watcher>> watchers = new ConcurrentHashMap<>();
  private final ByteBudget queuedBytes;
  private volatile boolean closed;

  /** @param queuedBytes the gateway-wide allowance for messages waiting for slow clients */
  CallbackEvents(ByteBudget queuedBytes) {
    this.queuedBytes = queuedBytes;
  }

  /** A watcher of one session's callbacks, or null when it already has {@link #MAX_WATCHERS}. */
  Watcher watch(String sessionId) {
    Set<Watcher> of = watchers.computeIfAbsent(sessionId, k -> ConcurrentHashMap.newKeySet());
    if (of.size() >= MAX_WATCHERS) {
      return null;
    }
    Watcher w = new Watcher(queuedBytes);
    of.add(w);
    if (closed) {
      w.end();
    }
    return w;
  }

  /** The gateway stops: every watcher's stream ends. */
  void close() {
    closed = true;
    watchers.values().forEach(set -> set.forEach(Watcher::end));
  }

  void unwatch(String sessionId, Watcher w) {
    Set<Watcher> of = watchers.get(sessionId);
    if (of != null) {
      of.remove(w);
    }
    w.drain();
  }

  /** The session ended: its watchers' streams end. */
  void sessionEnded(String sessionId) {
    Set<Watcher> of = watchers.remove(sessionId);
    if (of != null) {
      of.forEach(Watcher::end);
    }
  }

  static byte[] event(Callback callback) {
    return ("{\"callback\":" + new String(callback.json(), StandardCharsets.UTF_8).strip() + "}").getBytes(StandardCharsets.UTF_8);
  }

  /** Tells the session's watchers: {@code {"callback": <the callback object>}}. */
  void publish(String sessionId, Callback callback) {
    Set<Watcher> of = watchers.get(sessionId);
    if (of == null) {
      return;
    }
    byte[] event = event(callback);
    for (Watcher w : of) {
      w.offer(event);
    }
  }
}
