package dev.mcpstdio.serve;

import dev.mcpstdio.host.Callback;
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
 */
final class CallbackEvents {

  static final int CAPACITY = 256;

  /** Put on a watcher's queue to end its stream. */
  static final byte[] END = new byte[0];

  /** One watcher's queue. */
  static final class Watcher {
    private final LinkedBlockingQueue<byte[]> queue = new LinkedBlockingQueue<>(CAPACITY);

    /** The next event, null after {@code millis} of silence, or {@link #END} when the gateway stops. */
    byte[] next(long millis) throws InterruptedException {
      return queue.poll(millis, TimeUnit.MILLISECONDS);
    }

    void end() {
      queue.clear();
      queue.offer(END);
    }
  }

  static final int MAX_WATCHERS = 8;

  private final java.util.Map<String, Set<Watcher>> watchers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** A watcher of one session's callbacks, or null when it already has {@link #MAX_WATCHERS}. */
  Watcher watch(String sessionId) {
    Set<Watcher> of = watchers.computeIfAbsent(sessionId, k -> ConcurrentHashMap.newKeySet());
    if (of.size() >= MAX_WATCHERS) {
      return null;
    }
    Watcher w = new Watcher();
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
      w.queue.offer(event);
    }
  }
}
