package dev.mcpstdio.relay;

import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;

/**
 * A request body that reports when the HTTP client has taken all of it.
 *
 * <p>That moment separates failures that happened before the server could have seen the request
 * (always safe to retry) from those after (only idempotent methods may be replayed). It also lets
 * the dispatcher hold a notification or an answer until the POSTs before it are on their way (see
 * {@link DispatchOrder}).
 */
final class HandoverPublisher implements HttpRequest.BodyPublisher {

  private final HttpRequest.BodyPublisher delegate;
  private final long length;
  private final CompletableFuture<Void> handedOver;

  HandoverPublisher(byte[] body, CompletableFuture<Void> handedOver) {
    this.delegate = HttpRequest.BodyPublishers.ofByteArray(body);
    this.length = body.length;
    this.handedOver = handedOver;
  }

  @Override
  public long contentLength() {
    return length;
  }

  @Override
  public void subscribe(Flow.Subscriber<? super ByteBuffer> subscriber) {
    delegate.subscribe(
        new Flow.Subscriber<>() {
          @Override
          public void onSubscribe(Flow.Subscription subscription) {
            subscriber.onSubscribe(subscription);
          }

          @Override
          public void onNext(ByteBuffer item) {
            subscriber.onNext(item);
          }

          @Override
          public void onError(Throwable throwable) {
            subscriber.onError(throwable);
          }

          @Override
          public void onComplete() {
            subscriber.onComplete();
            handedOver.complete(null);
          }
        });
  }
}
