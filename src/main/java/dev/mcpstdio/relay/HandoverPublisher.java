package dev.mcpstdio.relay;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A request body that reports when the HTTP client has taken all of it.
 *
 * <p>That moment separates failures that happened before the server could have seen the request
 * (always safe to retry) from those after (only idempotent methods may be replayed). It also lets
 * the dispatcher hold a notification or an answer until the POSTs before it are on their way (see
 * {@link DispatchOrder}).
 *
 * <p>The body is published as read-only views of the message's own bytes, never copied (the JDK's
 * {@code ofByteArray} copies the whole body, which for a large message is as much garbage again).
 * Message bytes are immutable throughout the relay, so sharing them is safe. Views are at most
 * {@link #SLICE} bytes, which keeps the socket layer's temporary direct buffers small.
 */
final class HandoverPublisher implements HttpRequest.BodyPublisher {

  static final int SLICE = 64 * 1024;

  private final byte[] body;
  private final CompletableFuture<Void> handedOver;

  HandoverPublisher(byte[] body, CompletableFuture<Void> handedOver) {
    this.body = body;
    this.handedOver = handedOver;
  }

  @Override
  public long contentLength() {
    return body.length;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    Slices slices = new Slices(subscriber);
    subscriber.onSubscribe(slices);
    slices.drain(); // an empty body completes without waiting for demand
  }

  /**
   * One subscription (a retry subscribes again and starts from the first byte). Signals are
   * serialised by a work-in-progress counter: whichever thread raises it from zero delivers, and
   * a {@code request} made from inside {@code onNext} only adds demand to that loop.
   */
  private final class Slices implements Flow.Subscription {
    private final Flow.Subscriber<? super ByteBuffer> subscriber;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger work = new AtomicInteger();
    private volatile boolean cancelled;
    private int offset; // touched only inside the drain loop
    private boolean done; // likewise

    Slices(Flow.Subscriber<? super ByteBuffer> subscriber) {
      this.subscriber = subscriber;
    }

    @Override
    public void request(long n) {
      if (n <= 0) {
        cancelled = true; // Reactive Streams rule 3.9
        subscriber.onError(new IllegalArgumentException("non-positive request: " + n));
        return;
      }
      demand.getAndUpdate(d -> d + n < 0 ? Long.MAX_VALUE : d + n);
      drain();
    }

    @Override
    public void cancel() {
      cancelled = true;
    }

    void drain() {
      if (work.getAndIncrement() != 0) {
        return;
      }
      do {
        while (!cancelled && !done && offset < body.length && demand.get() > 0) {
          int n = Math.min(SLICE, body.length - offset);
          ByteBuffer slice = ByteBuffer.wrap(body, offset, n).slice().asReadOnlyBuffer();
          offset += n;
          demand.decrementAndGet();
          subscriber.onNext(slice);
        }
        if (!cancelled && !done && offset == body.length) {
          done = true;
          subscriber.onComplete();
          handedOver.complete(null);
        }
      } while (work.decrementAndGet() != 0);
    }
  }
}
