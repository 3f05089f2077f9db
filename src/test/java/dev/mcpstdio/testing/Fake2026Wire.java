package dev.mcpstdio.testing;

import dev.mcpstdio.testing.Fake2026Reply.Step;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.io.EndPoint;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writes one {@link Fake2026Reply} to a Jetty response, and notices when the client closes a
 * response the server is still holding.
 *
 * <p>Jetty does not read a connection while a handler owns its exchange, so a client's close
 * would go unseen until the next write. While a reply holds the response (a stream or a hang) a
 * watcher polls the connection every {@value #WATCH_MILLIS} ms; end of input there means the
 * client closed it. The watcher stops, under its lock, before the response completes: after that
 * the connection belongs to Jetty again (the next request on it), and the watcher must not read
 * from it. A 2026 client sends nothing after its request body (no pipelining), so the watcher
 * never consumes real bytes.
 */
final class Fake2026Wire {

  /** Poll interval of the close watcher: the delay before an early close is recorded. */
  static final long WATCH_MILLIS = 10;

  /** Poll interval while holding a stream or taking from a queue. */
  private static final long HOLD_MILLIS = 20;

  private final CountDownLatch stopping;

  Fake2026Wire(CountDownLatch stopping) {
    this.stopping = stopping;
  }

  void write(Request request, Response response, Callback callback, Fake2026Exchange exchange, Fake2026Reply reply) {
    switch (reply) {
      case Fake2026Reply.Body b -> {
        response.setStatus(b.status());
        headers(response, b.headers());
        if (b.contentType() != null) {
          response.getHeaders().put("Content-Type", b.contentType());
        }
        byte[] bytes = b.body().getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put("Content-Length", String.valueOf(bytes.length));
        exchange.markCompleted();
        response.write(true, ByteBuffer.wrap(bytes), callback);
      }
      case Fake2026Reply.Events ev -> stream(request, response, callback, exchange, ev);
      case Fake2026Reply.Hang h -> {
        try (Watcher w = watch(request, exchange)) {
          hold(exchange);
        }
        endPoint(request).close(); // nothing was written: no error response either
        callback.failed(new IOException("hang ended"));
      }
      case Fake2026Reply.Drop d -> {
        endPoint(request).close();
        callback.failed(new IOException("dropped"));
      }
    }
  }

  private void stream(Request request, Response response, Callback callback, Fake2026Exchange exchange,
      Fake2026Reply.Events ev) {
    response.setStatus(ev.status());
    headers(response, ev.headers());
    response.getHeaders().put("Content-Type", "text/event-stream");
    response.getHeaders().put("Cache-Control", "no-cache");
    response.getHeaders().put("X-Accel-Buffering", "no");
    OutputStream out = Content.Sink.asOutputStream(response);
    Watcher watcher = null;
    try {
      out.flush(); // commit the headers now: the client must see the stream open
      watcher = watch(request, exchange);
      Ending ending = null;
      for (Step step : ev.steps()) {
        ending = step(out, exchange, step);
        if (ending != null) {
          break;
        }
      }
      watcher.close();
      if (ending == Ending.CUT) {
        endPoint(request).close();
        callback.failed(new IOException("cut"));
        return;
      }
      if (ending == Ending.CLIENT_GONE) {
        endPoint(request).close();
        callback.failed(new IOException("client closed the stream"));
        return;
      }
      exchange.markCompleted();
      out.close();
      callback.succeeded();
    } catch (IOException e) {
      if (watcher != null) {
        watcher.close();
      }
      if (stopping.getCount() > 0) {
        exchange.markClientClosed(); // a failed write: the client is gone
      }
      callback.failed(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      callback.failed(e);
    }
  }

  /** How a stream ends early; null from {@link #step} means "go on". */
  private enum Ending { END, CUT, CLIENT_GONE }

  private Ending step(OutputStream out, Fake2026Exchange exchange, Step step) throws IOException, InterruptedException {
    switch (step) {
      case Step.Raw raw -> {
        out.write(raw.text().getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
      case Step.Pause p -> {
        if (stopping.await(p.duration().toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IOException("server stopping");
        }
      }
      case Step.Await a -> {
        if (!a.latch().await(Await.DEFAULT.toMillis(), TimeUnit.MILLISECONDS)) {
          throw new IOException("latch never opened");
        }
      }
      case Step.HangStep h -> {
        hold(exchange);
        return Ending.CLIENT_GONE;
      }
      case Step.Cut c -> {
        return Ending.CUT;
      }
      case Step.End e -> {
        return Ending.END;
      }
      case Step.Queue q -> {
        while (stopping.getCount() > 0 && !exchange.clientClosedEarly()) {
          Step next = q.queue().poll(HOLD_MILLIS, TimeUnit.MILLISECONDS);
          if (next != null) {
            Ending ending = step(out, exchange, next);
            if (ending != null) {
              return ending;
            }
          }
        }
        return Ending.CLIENT_GONE;
      }
    }
    return exchange.clientClosedEarly() ? Ending.CLIENT_GONE : null;
  }

  /** Blocks until the client closes the exchange or the server stops. */
  private void hold(Fake2026Exchange exchange) {
    try {
      while (stopping.getCount() > 0 && !exchange.waitClientClosed(HOLD_MILLIS)) {
        // keep holding: each turn is bounded, and the server's stop ends the loop
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private Watcher watch(Request request, Fake2026Exchange exchange) {
    Watcher w = new Watcher(endPoint(request), exchange);
    Thread.ofVirtual().name("fake2026-watch-" + exchange.seq()).start(w::run);
    return w;
  }

  private static EndPoint endPoint(Request request) {
    return request.getConnectionMetaData().getConnection().getEndPoint();
  }

  private static void headers(Response response, String[] pairs) {
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      response.getHeaders().put(pairs[i], pairs[i + 1]);
    }
  }

  /** Polls the connection for end of input until closed; see the class comment. */
  private final class Watcher implements AutoCloseable {
    private final EndPoint endPoint;
    private final Fake2026Exchange exchange;
    private final ReentrantLock lock = new ReentrantLock();
    private final CountDownLatch stopped = new CountDownLatch(1);

    Watcher(EndPoint endPoint, Fake2026Exchange exchange) {
      this.endPoint = endPoint;
      this.exchange = exchange;
    }

    void run() {
      ByteBuffer buffer = ByteBuffer.allocate(1);
      try {
        while (true) {
          lock.lock();
          try {
            if (stopped.getCount() == 0) {
              return;
            }
            buffer.clear();
            buffer.flip(); // Jetty's fill appends after the limit: an empty buffer with room for one byte
            int n = endPoint.fill(buffer);
            if (n < 0) {
              exchange.markClientClosed();
              return;
            }
          } finally {
            lock.unlock();
          }
          if (stopped.await(WATCH_MILLIS, TimeUnit.MILLISECONDS) || stopping.getCount() == 0) {
            return;
          }
        }
      } catch (IOException e) {
        if (stopping.getCount() > 0) {
          exchange.markClientClosed();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }

    /** Stops the watcher; once this returns it never touches the connection again. */
    @Override
    public void close() {
      lock.lock();
      try {
        stopped.countDown();
      } finally {
        lock.unlock();
      }
    }
  }
}
