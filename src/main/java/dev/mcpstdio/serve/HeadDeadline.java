package dev.mcpstdio.serve;

import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;

/**
 * The deadline for a request's head ({@code --header-timeout}): a connection on which the bytes of
 * a request have begun to arrive but whose head is not complete that long afterwards is closed,
 * and so is a new connection whose first head is not complete that long after it opened (sending
 * nothing at all included: otherwise connections that only connect hold the connection cap for the
 * whole idle timeout).
 * Jetty's idle timeout alone cannot do this: a client that sends one byte every few seconds is
 * never idle, and would hold its connection (and a slot of {@code --max-connections}) for ever.
 *
 * <p>It wraps the routes, so it sees each request begin (its head is complete: the handler runs)
 * and end; between requests a connection is waiting for a head. A sweep every quarter of the
 * timeout looks at each waiting connection's byte count: unchanged since its last request ended,
 * it is idle between requests, which the idle timeout governs; changed, its head has begun,
 * and a head that has been arriving for a whole timeout is ended. So a head gets at least the
 * timeout, and at most a quarter more, from its first byte. Connections are tracked from open to
 * close only, so the map is bounded by {@code --max-connections}.
 */
final class HeadDeadline extends Handler.Wrapper implements Connection.Listener {

  private final long timeoutNanos;
  private final Log log;
  private final Map<Connection, Waiting> open = new ConcurrentHashMap<>();
  private volatile Scheduler.Task sweep;

  HeadDeadline(Duration timeout, Log log, Handler routes) {
    super(routes);
    this.timeoutNanos = timeout.toNanos();
    this.log = log;
  }

  /** One connection's state; its fields change under its own lock. */
  private static final class Waiting {
    int requests; // in progress on the connection (pipelining may briefly overlap two)
    long idleBytes; // bytes in when the connection last had no request in progress
    long headSince = -1; // the sweep that first saw bytes of a head since then, or -1
    boolean fresh = true; // no request yet: its first head is due a timeout after it opened
    final long openedAt = System.nanoTime();

    Waiting(long bytesIn) {
      this.idleBytes = bytesIn;
    }
  }

  @Override
  public void onOpened(Connection connection) {
    open.put(connection, new Waiting(connection.getBytesIn()));
  }

  @Override
  public void onClosed(Connection connection) {
    open.remove(connection);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Connection connection = request.getConnectionMetaData().getConnection();
    Waiting waiting = open.get(connection);
    if (waiting != null) {
      synchronized (waiting) {
        waiting.requests++;
        waiting.headSince = -1;
        waiting.fresh = false;
      }
      Request.addCompletionListener(request, failure -> {
        synchronized (waiting) {
          waiting.requests--;
          waiting.idleBytes = connection.getBytesIn();
        }
      });
    }
    return super.handle(request, response, callback);
  }

  /** Connections open now (tests wait on it). */
  int connections() {
    return open.size();
  }

  @Override
  protected void doStart() throws Exception {
    super.doStart();
    schedule();
  }

  @Override
  protected void doStop() throws Exception {
    Scheduler.Task task = sweep;
    if (task != null) {
      task.cancel();
    }
    super.doStop();
  }

  private void schedule() {
    if (isRunning() || isStarting()) {
      sweep = getServer().getScheduler().schedule(this::sweep, Math.max(1, timeoutNanos / 4), TimeUnit.NANOSECONDS);
    }
  }

  private void sweep() {
    long now = System.nanoTime();
    try {
      for (Map.Entry<Connection, Waiting> entry : open.entrySet()) {
        Connection connection = entry.getKey();
        Waiting waiting = entry.getValue();
        boolean late;
        synchronized (waiting) {
          if (waiting.requests > 0) {
            continue;
          }
          if (waiting.fresh) {
            late = now - waiting.openedAt >= timeoutNanos;
          } else if (connection.getBytesIn() == waiting.idleBytes) {
            continue;
          } else {
            if (waiting.headSince < 0) {
              waiting.headSince = now;
            }
            late = now - waiting.headSince >= timeoutNanos;
          }
        }
        if (late) {
          log.debug("closed a connection whose request head took longer than --header-timeout ("
              + Duration.ofNanos(timeoutNanos).toMillis() + " ms)");
          connection.getEndPoint().close();
        }
      }
    } finally {
      schedule();
    }
  }
}
