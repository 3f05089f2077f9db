package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class DispatchOrderTest {

  @Test
  void awaitAllWaitsForEveryEarlierHandover() throws Exception {
    DispatchOrder order = new DispatchOrder(Duration.ofSeconds(10));
    CompletableFuture<Void> first = new CompletableFuture<>();
    CompletableFuture<Void> second = new CompletableFuture<>();
    order.dispatched(first);
    order.dispatched(second);
    AtomicBoolean passed = new AtomicBoolean();
    CountDownLatch started = new CountDownLatch(1);
    Thread waiter = Thread.ofVirtual().start(() -> {
      started.countDown();
      try {
        order.awaitAll();
        passed.set(true);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    started.await();
    first.complete(null);
    assertThat(waiter.join(Duration.ofMillis(200))).isFalse(); // still waiting for the second
    assertThat(passed).isFalse();
    second.complete(null);
    assertThat(waiter.join(Duration.ofSeconds(5))).isTrue();
    assertThat(passed).isTrue();
  }

  /** A handover that never completes and counts how often the order looks at it. */
  private static final class Stalled extends CompletableFuture<Void> {
    final AtomicInteger looks = new AtomicInteger();

    @Override
    public boolean isDone() {
      looks.incrementAndGet();
      return super.isDone();
    }
  }

  @Test
  void aStalledHandoverOnlyDelaysUpToTheBound() throws Exception {
    DispatchOrder order = new DispatchOrder(Duration.ofMillis(100));
    Stalled stalled = new Stalled();
    order.dispatched(stalled);
    long t0 = System.nanoTime();
    order.awaitAll(); // returns only because the bound ran out: a timed wait never ends early
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isGreaterThanOrEqualTo(90L);
    assertThat(stalled.isDone()).isFalse();
    // Given up on, the stalled handover is forgotten: later waits never look at it again, so they
    // cannot be delayed by it (no wall-clock limit needed to show it).
    int looks = stalled.looks.get();
    CompletableFuture<Void> next = CompletableFuture.completedFuture(null);
    order.dispatched(next);
    order.awaitAll();
    order.awaitAll();
    assertThat(stalled.looks.get()).as("times the forgotten handover was consulted").isEqualTo(looks);
  }
}
