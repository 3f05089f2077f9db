package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ReadOnlyBufferException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Flow;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

class HandoverPublisherTest {

  /** Records what it is sent; {@code onNext} runs a hook that may request more. */
  static final class Recorder implements Flow.Subscriber<ByteBuffer> {
    final List<ByteBuffer> items = new ArrayList<>();
    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    Flow.Subscription subscription;
    Throwable error;
    int completions;
    BiConsumer<Recorder, ByteBuffer> onItem = (r, b) -> {};

    @Override
    public void onSubscribe(Flow.Subscription s) {
      subscription = s;
    }

    @Override
    public void onNext(ByteBuffer item) {
      items.add(item);
      byte[] copy = new byte[item.remaining()];
      item.duplicate().get(copy);
      bytes.writeBytes(copy);
      onItem.accept(this, item);
    }

    @Override
    public void onError(Throwable t) {
      error = t;
    }

    @Override
    public void onComplete() {
      completions++;
    }
  }

  static byte[] body(int size) {
    byte[] b = new byte[size];
    for (int i = 0; i < size; i++) {
      b[i] = (byte) i;
    }
    return b;
  }

  @Test
  void publishesTheBodyInBoundedReadOnlySlicesAsDemanded() {
    byte[] body = body(3 * HandoverPublisher.SLICE + 10);
    CompletableFuture<Void> handedOver = new CompletableFuture<>();
    HandoverPublisher publisher = new HandoverPublisher(body, handedOver);
    assertThat(publisher.contentLength()).isEqualTo(body.length);
    Recorder r = new Recorder();
    publisher.subscribe(r);
    assertThat(r.items).isEmpty();

    r.subscription.request(2);
    assertThat(r.items).hasSize(2);
    assertThat(handedOver).isNotDone();
    r.subscription.request(5);
    assertThat(r.items).hasSize(4);
    assertThat(r.items).allSatisfy(b -> assertThat(b.remaining()).isLessThanOrEqualTo(HandoverPublisher.SLICE));
    assertThat(r.bytes.toByteArray()).isEqualTo(body);
    assertThat(r.completions).isEqualTo(1);
    assertThat(handedOver).isCompleted();
    assertThatThrownBy(() -> r.items.get(0).put(0, (byte) 1)).isInstanceOf(ReadOnlyBufferException.class);
  }

  @Test
  void requestsMadeInsideOnNextAreServedInOrderWithoutRecursion() {
    byte[] body = body(50 * HandoverPublisher.SLICE);
    Recorder r = new Recorder();
    int[] depth = {0};
    int[] deepest = {0};
    r.onItem = (rec, b) -> {
      depth[0]++;
      deepest[0] = Math.max(deepest[0], depth[0]);
      rec.subscription.request(1);
      depth[0]--;
    };
    new HandoverPublisher(body, new CompletableFuture<>()).subscribe(r);
    r.subscription.request(1);
    assertThat(r.bytes.toByteArray()).isEqualTo(body);
    assertThat(r.completions).isEqualTo(1);
    assertThat(deepest[0]).isEqualTo(1);
  }

  @Test
  void cancelStopsDeliveryAndNeverReportsHandover() {
    CompletableFuture<Void> handedOver = new CompletableFuture<>();
    Recorder r = new Recorder();
    r.onItem = (rec, b) -> rec.subscription.cancel();
    new HandoverPublisher(body(4 * HandoverPublisher.SLICE), handedOver).subscribe(r);
    r.subscription.request(Long.MAX_VALUE);
    assertThat(r.items).hasSize(1);
    assertThat(r.completions).isZero();
    assertThat(handedOver).isNotDone();
  }

  @Test
  void emptyBodyCompletesWithoutDemand() {
    CompletableFuture<Void> handedOver = new CompletableFuture<>();
    Recorder r = new Recorder();
    new HandoverPublisher(new byte[0], handedOver).subscribe(r);
    assertThat(r.items).isEmpty();
    assertThat(r.completions).isEqualTo(1);
    assertThat(handedOver).isCompleted();
  }

  @Test
  void aSecondSubscriptionStartsFromTheFirstByte() {
    byte[] body = body(HandoverPublisher.SLICE + 1);
    HandoverPublisher publisher = new HandoverPublisher(body, new CompletableFuture<>());
    for (int attempt = 0; attempt < 2; attempt++) {
      Recorder r = new Recorder();
      publisher.subscribe(r);
      r.subscription.request(Long.MAX_VALUE);
      assertThat(r.bytes.toByteArray()).as("attempt %d", attempt).isEqualTo(body);
    }
  }

  @Test
  void nonPositiveRequestIsAnError() {
    Recorder r = new Recorder();
    new HandoverPublisher(body(10), new CompletableFuture<>()).subscribe(r);
    r.subscription.request(0);
    assertThat(r.error).isInstanceOf(IllegalArgumentException.class);
    r.subscription.request(1);
    assertThat(r.items).isEmpty();
  }

  @Test
  void demandOverflowIsCappedNotWrapped() {
    Recorder r = new Recorder();
    byte[] body = body(3 * HandoverPublisher.SLICE);
    new HandoverPublisher(body, new CompletableFuture<>()).subscribe(r);
    r.subscription.request(Long.MAX_VALUE);
    r.subscription.request(Long.MAX_VALUE);
    assertThat(r.bytes.toByteArray()).isEqualTo(body);
    assertThat(r.completions).isEqualTo(1);
  }
}
