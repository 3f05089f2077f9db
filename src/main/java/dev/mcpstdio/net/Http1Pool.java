package dev.mcpstdio.net;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Supplier;

/**
 * Idle connections kept for reuse, most recently used first.
 *
 * <p>Bounds: at most {@link #MAX_IDLE} connections wait here (the oldest is closed to make room),
 * and each for at most its idle limit, {@link OutboundHttp#KEEPALIVE_SECONDS} or less when the
 * server announced a shorter {@code Keep-Alive: timeout} (reusing a connection the server is
 * closing at that moment would fail a request after it was written, and a {@code tools/call} is
 * not safe to send twice). Each waits under an {@link IdleWatchdog} of its idle limit, which
 * closes it when the limit passes (up to one sweep late), so that none holds a file descriptor
 * long after its server gave up on it; a connection found expired when taken is closed too, and one
 * that waited more than {@link #CHECK_AFTER_NANOS} is checked for an end the server sent before it
 * is used (a request written on a connection the server had closed fails after it was sent, and a
 * {@code tools/call} is not safe to send twice).
 */
final class Http1Pool {

  /** Idle connections kept at most, over all routes. */
  static final int MAX_IDLE = 32;

  private final ArrayDeque<Http1Connection> idle = new ArrayDeque<>();
  private final Supplier<IdleWatchdog.Sweeper> sweeper;
  private boolean closed; // guarded by this

  Http1Pool(Supplier<IdleWatchdog.Sweeper> sweeper) {
    this.sweeper = sweeper;
  }

  /** Idle this long, a connection is checked before it is used again ({@link Http1Connection#stillOpen}). */
  static final long CHECK_AFTER_NANOS = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(100);

  /** A live idle connection for {@code route}, taken out of the pool, or null. */
  Http1Connection take(Http1Route route) {
    while (true) {
      Http1Connection c = takeIdle(route);
      if (c == null || System.nanoTime() - c.idleSince < CHECK_AFTER_NANOS || c.stillOpen()) {
        return c;
      }
      c.close(); // the server closed it while it waited: try the next one
    }
  }

  private Http1Connection takeIdle(Http1Route route) {
    List<Http1Connection> expired = new ArrayList<>(0);
    Http1Connection found = null;
    long now = System.nanoTime();
    synchronized (this) {
      for (Iterator<Http1Connection> it = idle.iterator(); it.hasNext(); ) {
        Http1Connection c = it.next();
        if (now - c.idleSince >= c.idleLimitNanos || c.isClosed()) {
          it.remove();
          expired.add(c);
        } else if (found == null && c.route.equals(route) && c.strayBytes()) {
          it.remove();
          expired.add(c);
        } else if (found == null && c.route.equals(route)) {
          it.remove();
          found = c;
        }
      }
    }
    if (found != null) {
      found.idleWatch.stop();
    }
    expired.forEach(Http1Connection::close);
    return found;
  }

  /** Puts a connection whose exchange ended cleanly back, for at most {@code idleLimitNanos}. */
  void release(Http1Connection connection, long idleLimitNanos) {
    if (idleLimitNanos <= 0 || connection.hasBuffered()) {
      connection.close(); // bytes nobody asked for: the connection is out of step
      return;
    }
    connection.idleSince = System.nanoTime();
    connection.idleLimitNanos = idleLimitNanos;
    // Made before the connection is visible to take(), which stops it; started after (a stopped
    // watchdog does not start), so a connection taken at once is never expired under its user.
    IdleWatchdog watch = sweeper.get().watch(Duration.ofNanos(idleLimitNanos), () -> expire(connection));
    connection.idleWatch = watch;
    Http1Connection evicted = null;
    synchronized (this) {
      if (closed) {
        evicted = connection;
      } else {
        idle.addFirst(connection);
        if (idle.size() > MAX_IDLE) {
          evicted = idle.removeLast();
        }
      }
    }
    if (evicted != null) {
      evicted.idleWatch.stop();
      evicted.close();
    }
    watch.start();
  }

  /** Closes {@code connection} if it still waits here (its idle limit passed). */
  private void expire(Http1Connection connection) {
    boolean removed;
    synchronized (this) {
      removed = idle.remove(connection);
    }
    if (removed) {
      connection.close();
    }
  }

  /** Closes every idle connection; later releases close theirs. */
  void close() {
    List<Http1Connection> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(idle);
      idle.clear();
    }
    for (Http1Connection c : all) {
      c.idleWatch.stop();
      c.close();
    }
  }
}
