package dev.mcpstdio.serve.http;

import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;

/**
 * Notices, within milliseconds, that an HTTP/1.x client closed its connection while its exchange
 * is open and quiet: a call whose child says nothing, answered as JSON or on a stream that has
 * nothing to carry yet. Without it the gateway learns of it only at its next write.
 *
 * <p>Why this is needed (Jetty 12.1, checked on 12.1.14): once a request's body has been read,
 * Jetty's HTTP/1.1 connection reads nothing more from the socket until the response completes
 * (it is not fill-interested while a handler runs), so the client's FIN or RST goes unnoticed:
 * {@code Request.addFailureListener} and the connection's {@code Connection.Listener.onClosed}
 * fire only after a write fails, and {@code Request.demand} after the body's end answers at once
 * with the end again. Registering a fill interest on Jetty's {@code EndPoint} does notice it, but
 * an interest still pending when the response completes makes Jetty abort the connection
 * ("Pending read in onCompleted"), and {@code EndPoint} has no way to withdraw one (only
 * {@code AbstractEndPoint}'s internal {@code FillInterest} has); nor could such a read tell a close
 * from the client's next request without consuming that request's first bytes.
 *
 * <p>How: the exchange's {@code SocketChannel} (Jetty's {@code EndPoint.getTransport()} for a plain
 * connector) is registered for reads with a selector of this watch's own, beside Jetty's (a channel
 * may be registered with several selectors). It becomes readable when the client closes or sends
 * more; the bytes waiting ({@code available()}, FIONREAD, which reads nothing) tell which: none
 * (or a reset) is the client gone, and the exchange's {@link Watch#left()} completes; some is a
 * client sending its next request early (pipelining), which is left for Jetty to read: that
 * exchange is watched no more, and a client leaving it is noticed at the next write as before. A
 * FIN counts as leaving, although a client could half-close its side and still read: HTTP/1.1
 * clients do not (Go's net/http server treats an EOF the same way, and Jetty closes an idle
 * connection whose client half-closed).
 *
 * <p>Only HTTP/1.x exchanges over a {@code SocketChannel} are watched (serve's connector serves
 * nothing else; under HTTP/2 a stream's end would be the stream's reset, which Jetty reports to
 * {@code Request.addFailureListener}, and the socket is shared); any other watch never fires.
 * {@code ClientWatchTest} fails if a Jetty upgrade changes what this relies on.
 *
 * <p>Bounds: one thread and one selector for all watches, started with the first; one key per
 * watched exchange, so at most the open connections; a closed watch's key is dropped at once
 * (the selector is woken), and every {@link #SELECT_MILLIS} at the latest a key whose channel
 * Jetty closed releases it. {@link Watch#left()}'s dependents run on the watch's thread: they
 * must not block.
 */
public final class ClientWatch implements AutoCloseable {

  /** The longest the watch's thread waits in one selection (how late a closed channel's key is dropped). */
  static final long SELECT_MILLIS = 1_000;

  private final Log log;
  private final Queue<Watch> pending = new ConcurrentLinkedQueue<>();
  private Selector selector; // null until the first watch; guarded by this
  private boolean closed; // guarded by this

  public ClientWatch(Log log) {
    this.log = log;
  }

  /**
   * Watches the connection of {@code response}'s exchange until the returned watch is closed,
   * which its caller does before it completes the exchange (a later request on the same
   * connection is not its to watch).
   */
  public Watch watch(Response response) {
    Request request = response.getRequest();
    ConnectionMetaData meta = request == null ? null : request.getConnectionMetaData(); // null: a test's stand-in
    HttpVersion version = meta == null ? null : meta.getHttpVersion();
    Object transport = meta == null || meta.getConnection() == null ? null : meta.getConnection().getEndPoint().getTransport();
    if ((version != HttpVersion.HTTP_1_1 && version != HttpVersion.HTTP_1_0) || !(transport instanceof SocketChannel channel)) {
      return new Watch(null, null);
    }
    Selector sel = selector();
    if (sel == null) {
      return new Watch(null, null);
    }
    Watch watch = new Watch(channel, sel);
    pending.add(watch);
    sel.wakeup(); // registered by the watch's thread, in its next pass
    return watch;
  }

  private synchronized Selector selector() {
    if (closed) {
      return null;
    }
    if (selector == null) {
      try {
        selector = Selector.open();
      } catch (IOException e) {
        log.warn("cannot watch for clients that close their connection (" + e.getMessage()
            + "); they are noticed at the next write");
        closed = true;
        return null;
      }
      Selector sel = selector;
      Thread.ofPlatform().daemon().name("serve-client-watch").start(() -> run(sel));
    }
    return selector;
  }

  private void run(Selector sel) {
    try {
      while (sel.isOpen()) {
        Watch w;
        while ((w = pending.poll()) != null) {
          w.register();
        }
        if (sel.selectedKeys().isEmpty()) { // a registration's selectNow may have found some already
          sel.select(SELECT_MILLIS); // also drops the keys cancelled meanwhile
        }
        for (SelectionKey key : sel.selectedKeys()) {
          if (key.isValid()) { // not closed meanwhile
            ((Watch) key.attachment()).readable(key);
          }
        }
        sel.selectedKeys().clear();
      }
    } catch (ClosedSelectorException e) {
      // closed: done
    } catch (IOException | RuntimeException e) {
      log.warn("the watch for clients that close their connection stopped (they are noticed at the next write): " + e);
    } finally {
      close(); // no new watch is queued for a thread that is gone
      pending.clear();
    }
  }

  /** Stops watching (the gateway's shutdown); watches still open never fire. */
  @Override
  public synchronized void close() {
    closed = true;
    if (selector != null) {
      try {
        selector.close(); // ends the thread's select
      } catch (IOException e) {
        // nothing more to release
      }
    }
  }

  /** One exchange's watch. */
  public static final class Watch implements AutoCloseable {
    private final SocketChannel channel; // null: not watched
    private final Selector selector;
    private final CompletableFuture<Void> left = new CompletableFuture<>();
    private final CompletableFuture<Void> view = left.copy();
    private volatile SelectionKey key;
    private boolean closed; // guarded by this: left never completes once close() returned

    Watch(SocketChannel channel, Selector selector) {
      this.channel = channel;
      this.selector = selector;
    }

    /** Completes (on the watch's thread) when the client closed its connection; never once {@link #close} returned. */
    public CompletableFuture<Void> left() {
      return view;
    }

    public boolean hasLeft() {
      return left.isDone();
    }

    /** Its connection is registered with the watch's selector now (for tests). */
    boolean watching() {
      SelectionKey k = key;
      return k != null && k.isValid();
    }

    /** On the watch's thread. */
    private void register() {
      if (isClosed()) {
        return;
      }
      try {
        if (channel.keyFor(selector) != null) {
          // the previous exchange's key on this connection (cancelled, or its watch not closed yet):
          // dropped first, or register would hand this watch that key (or refuse a cancelled one)
          channel.keyFor(selector).cancel();
          selector.selectNow();
        }
        key = channel.register(selector, SelectionKey.OP_READ, this);
        if (isClosed()) {
          key.cancel(); // closed while registering
        }
      } catch (ClosedChannelException e) {
        gone(); // closed before it was watched
      } catch (IOException | RuntimeException e) {
        // cannot watch this one (a channel in blocking mode, a closing selector): its next write will tell
      }
    }

    /** On the watch's thread: the client closed, reset, or sent more. */
    private void readable(SelectionKey selected) {
      selected.cancel(); // either way, this exchange is watched no more
      int waiting;
      try {
        waiting = channel.socket().getInputStream().available(); // reads nothing
      } catch (IOException e) {
        waiting = 0; // reset or closed: gone
      }
      if (waiting == 0) {
        gone();
      }
    }

    private synchronized boolean isClosed() {
      return closed;
    }

    private synchronized void gone() {
      if (!closed) {
        left.complete(null); // its dependents run here, under the lock: close() waits for them
      }
    }

    /** Stops watching (idempotent): once it returned, {@link #left()} never completes; the key is dropped at once. */
    @Override
    public void close() {
      synchronized (this) {
        closed = true;
      }
      SelectionKey k = key;
      if (k != null) {
        k.cancel();
        selector.wakeup();
      }
    }
  }
}
