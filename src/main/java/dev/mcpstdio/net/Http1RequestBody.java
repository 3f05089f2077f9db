package dev.mcpstdio.net;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Writes a request body from its publisher to a connection, on the exchange's thread, one buffer
 * of demand at a time: the queue between the publisher's signals and the writer holds at most the
 * one buffer asked for and the publisher's end. A body of unknown length is sent chunked.
 *
 * <p>A publisher that signals on the thread that asked (the relay's {@code HandoverPublisher}
 * does) has its bytes written, and at its end flushed to the socket, inside {@code onNext} and
 * {@code onComplete}: it reports the body "handed over" right after its {@code onComplete}, and
 * the relay orders what it sends next by that moment, so the bytes must be on the wire by then.
 */
final class Http1RequestBody implements Flow.Subscriber<ByteBuffer> {

  private static final Object SUBSCRIBED = new Object();
  private static final Object COMPLETE = new Object();
  /** Put by {@link #abort}: the exchange was given up while the body was being written. */
  private static final Object ABORTED = new Object();
  /** Put after a buffer was written on the spot (the publisher signalled on the writer's thread). */
  private static final Object WRITTEN = new Object();
  /** Put after the end was written and flushed on the spot. */
  private static final Object FLUSHED = new Object();

  private Thread writer;
  private Http1Connection connection;
  private boolean chunked;
  private byte[] scratch;

  private final LinkedBlockingQueue<Object> signals = new LinkedBlockingQueue<>();
  private volatile Flow.Subscription subscription;

  /** Wakes a writer waiting for the publisher; the exchange's abort closes the connection as well. */
  void abort() {
    signals.offer(ABORTED);
    Flow.Subscription s = subscription;
    if (s != null) {
      s.cancel();
    }
  }

  /** Subscribes to {@code publisher} and writes all it publishes to {@code connection}. */
  void write(HttpRequest.BodyPublisher publisher, Http1Connection connection, boolean chunked) throws IOException {
    this.writer = Thread.currentThread();
    this.connection = connection;
    this.chunked = chunked;
    publisher.subscribe(this);
    expect(take(), SUBSCRIBED);
    while (true) {
      subscription.request(1);
      Object signal = take();
      if (signal == FLUSHED) {
        return;
      }
      if (signal == WRITTEN) {
        continue;
      }
      if (signal == COMPLETE) {
        end();
        return;
      }
      if (!(signal instanceof ByteBuffer buffer)) {
        expect(signal, COMPLETE); // throws
        return;
      }
      piece(buffer);
    }
  }

  private void piece(ByteBuffer buffer) throws IOException {
    int length = buffer.remaining();
    if (length == 0) {
      return;
    }
    if (chunked) {
      connection.write((Integer.toHexString(length) + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }
    if (buffer.hasArray()) {
      connection.write(buffer.array(), buffer.arrayOffset() + buffer.position(), length);
    } else { // read-only views (the relay's own bodies) and direct buffers
      if (scratch == null) {
        scratch = new byte[Math.min(Http1Connection.BUFFER, length)];
      }
      while (buffer.hasRemaining()) {
        int n = Math.min(scratch.length, buffer.remaining());
        buffer.get(scratch, 0, n);
        connection.write(scratch, 0, n);
      }
    }
    if (chunked) {
      connection.write(CRLF);
    }
  }

  private void end() throws IOException {
    if (chunked) {
      connection.write(LAST_CHUNK);
    }
    connection.flush();
  }

  private static final byte[] CRLF = {'\r', '\n'};
  private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private Object take() throws IOException {
    try {
      return signals.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while sending the request body");
    }
  }

  private static void expect(Object signal, Object wanted) throws IOException {
    if (signal == wanted) {
      return;
    }
    if (signal == ABORTED) {
      throw new IOException("the exchange was given up while its body was being sent");
    }
    if (signal instanceof IOException io) {
      throw io; // writing it failed
    }
    if (signal instanceof Throwable t) {
      throw new IOException("the request body failed: " + t.getMessage(), t);
    }
    throw new IOException("the request body's publisher broke its protocol");
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    signals.offer(SUBSCRIBED);
  }

  @Override
  public void onNext(ByteBuffer item) {
    if (Thread.currentThread() != writer) {
      signals.offer(item);
      return;
    }
    try {
      piece(item);
      signals.offer(WRITTEN);
    } catch (IOException e) {
      subscription.cancel();
      signals.offer(e);
    }
  }

  @Override
  public void onError(Throwable throwable) {
    signals.offer(throwable);
  }

  @Override
  public void onComplete() {
    if (Thread.currentThread() != writer) {
      signals.offer(COMPLETE);
      return;
    }
    try {
      end();
      signals.offer(FLUSHED);
    } catch (IOException e) {
      signals.offer(e);
    }
  }
}
