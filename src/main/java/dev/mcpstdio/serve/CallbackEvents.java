package dev.mcpstdio.serve;

import dev.mcpstdio.host.Callback;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The events API's fan-out: every callback a session's child announces, for host UIs and clients
 * without elicitation (docs/callbacks.md). Each {@code GET /callbacks} stream has its own bounded
 * queue; a watcher that stops reading loses events past {@link #CAPACITY}, never slows a child.
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

  private final Set<Watcher> watchers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  Watcher watch() {
    Watcher w = new Watcher();
    watchers.add(w);
    if (closed) {
      w.end();
    }
    return w;
  }

  /** The gateway stops: every watcher's stream ends. */
  void close() {
    closed = true;
    watchers.forEach(Watcher::end);
  }

  void unwatch(Watcher w) {
    watchers.remove(w);
  }

  /** Tells every watcher: {@code {"session": <id>, "callback": <the callback object>}}. */
  void publish(String sessionId, Callback callback) {
    byte[] event = ("{\"session\":\"" + sessionId + "\",\"callback\":" + new String(callback.json(), StandardCharsets.UTF_8).strip()
        + "}").getBytes(StandardCharsets.UTF_8);
    for (Watcher w : watchers) {
      w.queue.offer(event);
    }
  }
}
