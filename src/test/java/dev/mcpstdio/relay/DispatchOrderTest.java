package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
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

  @Test
  void aStalledHandoverOnlyDelaysUpToTheBound() throws Exception {
    DispatchOrder order = new DispatchOrder(Duration.ofMillis(100));
    order.dispatched(new CompletableFuture<>());
    long t0 = System.nanoTime();
    order.awaitAll();
    long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(waited).isBetween(90L, 5_000L);
    long t1 = System.nanoTime();
    order.awaitAll(); // the stalled one is forgotten after its bounded wait
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t1)).isLessThan(50);
  }
}
