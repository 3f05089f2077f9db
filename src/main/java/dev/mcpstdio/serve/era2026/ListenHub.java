package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.serve.http.ClientWatch;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * {@code subscriptions/listen} for 2025-era children, served by the gateway (mcp-stdio.md 4.7;
 * spec.md 5.10): the child knows nothing of listen streams; the gateway keeps them, each attached
 * to one pooled child of the principal, and hands each one the child's notifications its filter
 * asks for, tagged with its {@code subscriptionId} (the listen request's id, verbatim).
 *
 * <p>Order, race-free: the stream is attached to the child first (so nothing the child says after
 * this point is missed), the response opens, the first frame is the acknowledgement with the
 * honoured filter, then {@code resources/subscribe} is driven on the child for the honoured URIs
 * (reference-counted per child: the first listener of a URI subscribes, the last unsubscribes),
 * then the stream carries what comes, with a keep-alive comment after each quiet interval. A client
 * that closes its connection is noticed at once ({@link ClientWatch}), else at the next write. A
 * stream holds its child: the pool never evicts a child with a listener. {@code
 * notifications/message} never goes on a listen stream.
 *
 * <p>Endings: the gateway's shutdown writes the graceful terminal result and closes; the child's
 * death or a client that does not read ({@link #QUEUE} notifications waiting) closes the stream
 * abruptly (the client reconnects); the client closing it detaches it. Bounds: {@link
 * #PER_CHILD} streams per pooled child (503 before the ack past it), {@link #QUEUE} waiting
 * notifications per stream, {@link ListenFilter#MAX_URIS} URIs per stream.
 */
final class ListenHub {

  /** Listen streams per pooled child. */
  static final int PER_CHILD = 4;

  /** Notifications waiting for one stream's client. */
  static final int QUEUE = 1024;

  /** A stream that is ending for the gateway's shutdown. */
  private static final byte[] SHUTDOWN = new byte[0];

  /** A stream whose child died, or whose client does not read: it ends abruptly. */
  private static final byte[] ABRUPT = new byte[0];

  /** A stream whose client closed its connection (its watch said so). */
  private static final byte[] LEFT = new byte[0];

  private final long keepAliveMillis;
  private final ClientWatch watches;
  private final Log log;
  private final Set<Listener> listeners = ConcurrentHashMap.newKeySet();
  private volatile boolean closing;

  ListenHub(long keepAliveMillis, ClientWatch watches, Log log) {
    this.keepAliveMillis = keepAliveMillis;
    this.watches = watches;
    this.log = log;
  }

  /** One open listen stream. */
  private static final class Listener {
    final PooledChild child;
    final JsonRpcId id;
    final ListenFilter filter;
    final BlockingQueue<byte[]> queue = new ArrayBlockingQueue<>(QUEUE);
    volatile boolean overflowed;

    Listener(PooledChild child, JsonRpcId id, ListenFilter filter) {
      this.child = child;
      this.id = id;
      this.filter = filter;
    }
  }

  /** Serves the listen request {@code listen} on {@code child} (held by the caller for as long as this runs). */
  void serve(Request listen, PooledChild child, List<String> accept, Response response, Callback callback)
      throws InterruptedException {
    if (!AcceptRanges.accepts(accept, AcceptRanges.EVENT_STREAM)) {
      Replies.error(response, callback, 406, listen.id(), ErrorCodes.INVALID_REQUEST,
          "subscriptions/listen answers with an event stream: accept text/event-stream");
      return;
    }
    ListenFilter filter;
    switch (ListenFilter.parse(listen, Discover.childSubscribes(child.initialized.join(), Splice.whole(child.initialized.join())))) {
      case ListenFilter.Invalid invalid -> {
        Replies.error(response, callback, 400, listen.id(), invalid.code(), invalid.message());
        return;
      }
      case ListenFilter.Honoured honoured -> filter = honoured.filter();
    }
    Listener listener = new Listener(child, listen.id(), filter);
    if (!attach(listener)) {
      Replies.error(response, callback, 503, listen.id(), ErrorCodes.INTERNAL_ERROR,
          "too many listen streams on this server's child (" + PER_CHILD + "); close one first");
      return;
    }
    EventStream events = new EventStream(response);
    boolean subscribed = false; // only what this stream counted up is counted down (a client gone before its ack counted nothing)
    try {
      try (ClientWatch.Watch watch = watches.watch(response)) { // closed once the stream ends
        watch.left().thenRun(() -> listener.queue.offer(LEFT)); // a full queue is read at once anyway
        events.open();
        events.message(filter.ack(listen.id()));
        subscribe(child, filter.uris());
        subscribed = true;
        pump(listener, events, watch);
      }
      callback.succeeded();
    } catch (IOException e) {
      log.debug("a listen stream's client left");
      callback.failed(e);
    } finally {
      detach(listener);
      if (subscribed) {
        unsubscribe(child, filter.uris());
      }
    }
  }

  /** Attaches {@code listener} within its child's cap; false past it. */
  private synchronized boolean attach(Listener listener) {
    if (closing) {
      return false;
    }
    long onChild = listeners.stream().filter(l -> l.child == listener.child).count();
    if (onChild >= PER_CHILD) {
      return false;
    }
    listeners.add(listener);
    return true;
  }

  private synchronized void detach(Listener listener) {
    listeners.remove(listener);
    notifyAll(); // close() may be waiting for the last one
  }

  private void pump(Listener listener, EventStream events, ClientWatch.Watch watch) throws IOException, InterruptedException {
    while (true) {
      if (watch.hasLeft()) {
        throw new EofException("the client closed its connection");
      }
      byte[] frame = listener.queue.poll(keepAliveMillis, TimeUnit.MILLISECONDS);
      if (frame == LEFT) {
        continue; // the loop's head ends it
      }
      if (frame == SHUTDOWN) {
        events.last(ListenFilter.terminal(listener.id), null);
        return;
      }
      if (frame == ABRUPT || listener.overflowed || listener.child.dead()) {
        events.close(); // abrupt: the client reconnects and lists what it missed
        return;
      }
      if (frame != null) {
        events.message(frame);
      } else {
        events.keepAlive();
      }
    }
  }

  /** A notification from {@code child} that no call took: to every stream on it whose filter wants it. */
  void deliver(PooledChild child, Notification notification) {
    // a list change reaches every stream of the child's principal: its calls may run on another of
    // its children than the one a stream is attached to (the reverse MRTR bridge holds children
    // exclusively); a resource update only the streams of the child subscribed to it
    boolean principalWide = !notification.method().equals(McpMethods.RESOURCES_UPDATED);
    for (Listener l : listeners) {
      if ((l.child == child || (principalWide && l.child.principal.equals(child.principal))) && l.filter.matches(notification)) {
        if (!l.queue.offer(ListenFilter.tag(notification, l.id))) {
          l.overflowed = true; // seen at the next poll, which the full queue answers at once
          child.childLog.warn("a listen stream's client is not reading (" + QUEUE + " notifications waiting); closing it");
        }
      }
    }
  }

  /** The child died: its streams end (abruptly, at their next poll). */
  void childDied(PooledChild child) {
    for (Listener l : listeners) {
      if (l.child == child) {
        l.overflowed = true;
        l.queue.offer(ABRUPT);
      }
    }
  }

  /**
   * Counts {@code uris} up on {@code child}; the first stream of a URI subscribes the child: a
   * 2025-era child with {@code resources/subscribe}, a 2026-era one (which has no such method) with
   * a listen of the gateway's own for that URI ({@code subscriptions/listen} with {@code
   * resourceSubscriptions}), whose updates come back tagged with the gateway's listen id and are
   * re-tagged for each stream by {@link #deliver}.
   */
  private static void subscribe(PooledChild child, List<String> uris) {
    if (uris == null) {
      return;
    }
    synchronized (child.subscriptions) {
      for (String uri : uris) {
        if (child.subscriptions.merge(uri, 1, Integer::sum) > 1) {
          continue;
        }
        boolean sent;
        if (child.era2026) {
          JsonRpcId listen = child.requestOwn(McpMethods.SUBSCRIPTIONS_LISTEN, "{\"notifications\":{\"resourceSubscriptions\":["
              + Json.quote(uri) + "]},\"_meta\":" + ChildStarter.GATEWAY_META + "}", answer -> {});
          sent = listen != null;
          if (sent) {
            child.resourceListens.put(uri, listen);
          }
        } else {
          sent = child.request("resources/subscribe", "{\"uri\":" + Json.quote(uri) + "}", answer -> {});
        }
        if (!sent) { // counted all the same, so the counts stay each stream's own; its updates will not come
          child.childLog.warn("could not subscribe the server to a resource a listen stream asked for");
        }
      }
    }
  }

  /** Counts {@code uris} down on {@code child}; the last stream of a URI unsubscribes the child (the way {@link #subscribe} subscribed it). */
  private static void unsubscribe(PooledChild child, List<String> uris) {
    if (uris == null) {
      return;
    }
    synchronized (child.subscriptions) {
      for (String uri : uris) {
        if (child.subscriptions.merge(uri, -1, (a, b) -> a + b <= 0 ? null : a + b) != null) {
          continue;
        }
        JsonRpcId listen = child.resourceListens.remove(uri);
        if (listen != null) {
          child.cancelOwn(listen, "no listen stream wants this resource's updates any more");
        } else if (!child.era2026) {
          child.request("resources/unsubscribe", "{\"uri\":" + Json.quote(uri) + "}", answer -> {});
        }
      }
    }
  }

  /**
   * Ends every stream gracefully (the terminal result) and waits for them to be written, at most
   * {@code waitMillis}; no new stream is attached from here on.
   */
  void close(long waitMillis) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(waitMillis);
    synchronized (this) {
      closing = true;
      for (Listener l : listeners) {
        l.queue.clear();
        l.queue.offer(SHUTDOWN);
      }
      long left;
      while (!listeners.isEmpty() && (left = deadline - System.nanoTime()) > 0) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }
  }

}
