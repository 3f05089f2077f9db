package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import dev.mcpstdio.testing.Await;
import org.junit.jupiter.api.Test;

class MessageBudgetTest {

  private static final long WAIT = TimeUnit.SECONDS.toNanos(10);

  @Test
  void aRequestWaitsWhileTheBudgetIsFullAndGoesWhenRoomIsMade() throws Exception {
    MessageBudget budget = new MessageBudget(100);
    MessageBudget.Hold first = budget.holdRequest(80, WAIT, TimeUnit.NANOSECONDS);
    CompletableFuture<MessageBudget.Hold> second = CompletableFuture.supplyAsync(() -> {
      try {
        return budget.holdRequest(30, WAIT, TimeUnit.NANOSECONDS);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    awaitWaiters(budget);
    assertThat(second).isNotDone(); // 80 + 30 > 100: it waits (the stdin reader reads on only then)
    first.release();
    assertThat(second.get(10, TimeUnit.SECONDS)).isNotNull();
    assertThat(budget.held()).isEqualTo(30);
  }

  @Test
  void aLineLargerThanTheBudgetGoesWhenNothingElseIsHeld() throws Exception {
    MessageBudget budget = new MessageBudget(100);
    MessageBudget.Hold big = budget.holdRequest(500, 0, TimeUnit.NANOSECONDS);
    assertThat(big).isNotNull();
    assertThat(budget.holdRequest(1, 0, TimeUnit.NANOSECONDS)).isNull(); // no room and no patience: refused
    big.release();
    assertThat(budget.held()).isZero();
  }

  @Test
  void oneReaderMayGoPastTheLimitTheOthersPauseUntilItEnds() throws Exception {
    MessageBudget budget = new MessageBudget(100);
    MessageBudget.Hold a = budget.reader();
    MessageBudget.Hold b = budget.reader();
    CountDownLatch bResumed = new CountDownLatch(1);
    assertThat(a.charge(60, () -> {})).isTrue();
    assertThat(b.charge(60, bResumed::countDown)).isTrue(); // past the limit: b takes the overdraft
    assertThat(a.charge(10, () -> {})).isFalse(); // a pauses
    assertThat(b.charge(500, () -> {})).isTrue(); // the overdraft holder reads on
    b.release();
    // a was paused, not b: b's resume never runs; a's does once b's bytes are back
    assertThat(budget.held()).isEqualTo(70);
    assertThat(bResumed.getCount()).isEqualTo(1);
  }

  @Test
  void aPausedReaderResumesOnAThreadOfItsOwnWhenBytesComeBack() throws Exception {
    MessageBudget budget = new MessageBudget(100);
    MessageBudget.Hold a = budget.reader();
    MessageBudget.Hold b = budget.reader();
    assertThat(a.charge(150, () -> {})).isTrue(); // a holds the overdraft
    CompletableFuture<Thread> resumedOn = new CompletableFuture<>();
    assertThat(b.charge(10, () -> resumedOn.complete(Thread.currentThread()))).isFalse();
    assertThat(resumedOn).isNotDone();
    a.giveBack(150); // a delivered a notification: its bytes are back, it keeps reading
    Thread thread = resumedOn.get(10, TimeUnit.SECONDS);
    assertThat(thread).isNotSameAs(Thread.currentThread());
    assertThat(budget.held()).isEqualTo(10);
    b.release();
    a.release();
    assertThat(budget.held()).isZero();
  }

  @Test
  void releaseIsIdempotentAndChargesAfterItAreNotCounted() {
    MessageBudget budget = new MessageBudget(100);
    MessageBudget.Hold a = budget.reader();
    a.charge(40, () -> {});
    a.release();
    a.release();
    assertThat(a.charge(40, () -> {})).isTrue();
    assertThat(budget.held()).isZero();
  }

  /** Waits until a thread is parked in {@code holdRequest}. */
  private static void awaitWaiters(MessageBudget budget) {
    Await.until("a thread waiting for the budget", () -> Thread.getAllStackTraces().keySet().stream()
        .anyMatch(t -> t.getState() == Thread.State.TIMED_WAITING
            && java.util.Arrays.stream(t.getStackTrace()).anyMatch(f -> f.getMethodName().equals("holdRequest"))));
  }
}
