package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.SyncBuffer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The warm pool's own rules, with sessions over {@link FakeChild}ren (the process side is proved
 * with real children in {@code ServeWarmTest}): what is taken, refilling, the pause after early
 * exits, the idle TTL, and close.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class WarmSessionsTest {

  private final SyncBuffer logBytes = new SyncBuffer();
  private final Log log = new Log(logBytes, Log.Level.DEBUG, new Redactor());
  private final ByteBudget queued = new ByteBudget(1 << 20);
  /** Every session spawned, in order, with its fake child and when it was spawned. */
  private final List<Spawned> spawned = new CopyOnWriteArrayList<>();
  private final List<String> retired = new CopyOnWriteArrayList<>();
  private WarmSessions pool;

  private record Spawned(Session session, FakeChild child, long atNanos) {}

  /** Fake children show no CPU time: none counts as starting. */
  private static final StartPacing NO_PACING = new StartPacing(1, s -> -1);

  @AfterEach
  void close() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  /** A pool of {@code size} whose children come from {@code children}. */
  private WarmSessions pool(int size, Duration idleTtl, Supplier<FakeChild> children) {
    pool = new WarmSessions(size, "fake-server", idleTtl, () -> {
      FakeChild child = children.get();
      Session s = new Session(Long.toHexString(System.nanoTime()) + "0123456789abcdef0123", new ChildLog(log.tagged("s"),
          ChildProcess.StderrLimit.DEFAULT), queued, Duration.ofSeconds(1), Duration.ofSeconds(5));
      s.attach(child, null);
      spawned.add(new Spawned(s, child, System.nanoTime()));
      return s;
    }, (s, why) -> {
      retired.add(why);
      s.end(why);
      s.closeChild();
    }, NO_PACING, log);
    pool.start();
    return pool;
  }

  private WarmSessions pool(int size) {
    return pool(size, Duration.ZERO, FakeChild::new);
  }

  @Test
  void itFillsToItsSizeAndATakeIsRefilledWithTheOldestTakenFirst() throws Exception {
    WarmSessions warm = pool(3);
    Await.until("three warm sessions", () -> warm.waiting() == 3);
    assertThat(warm.running()).isTrue();
    Session taken = warm.take();
    assertThat(taken).isSameAs(spawned.get(0).session()); // the oldest: the furthest in its start-up
    assertThat(spawned.get(0).child().sent).isEmpty(); // asked nothing: the client's initialize comes first
    Await.until("the pool refilled", () -> warm.waiting() == 3 && spawned.size() == 4);
    assertThat(warm.take()).isSameAs(spawned.get(1).session());
  }

  @Test
  void aBurstOfTakesIsRefilledOnlyOnceTheTakesPause() throws Exception {
    WarmSessions warm = pool(3);
    Await.until("three warm sessions", () -> warm.waiting() == 3);
    long[] takeStarts = new long[3]; // before each take: never later than the take the pool saw
    for (int i = 0; i < 3; i++) {
      takeStarts[i] = System.nanoTime();
      assertThat(warm.take()).isNotNull();
    }
    Await.until("the pool refilled", () -> warm.waiting() == 3);
    long firstRefill = spawned.get(3).atNanos();
    long lastTakeBefore = takeStarts[0]; // (a stalled test thread may leave a lull between two takes)
    for (long start : takeStarts) {
      if (start <= firstRefill) {
        lastTakeBefore = start;
      }
    }
    assertThat(TimeUnit.NANOSECONDS.toMillis(firstRefill - lastTakeBefore))
        .isGreaterThanOrEqualTo(WarmSessions.REFILL_LULL.toMillis());
  }

  @Test
  void takesThatNeverPauseDeferTheRefillASecondAtMost() throws Exception {
    WarmSessions warm = pool(2);
    Await.until("two warm sessions", () -> warm.waiting() == 2);
    // A client every few milliseconds (Await's polls, at most 20 ms apart). A loaded machine may
    // still leave a gap of REFILL_LULL between two takes as the pool saw them, which allows the
    // refill at once. Each take happened between the times read before and after it, so the
    // widest gap the pool can have seen is bounded by those: the refill must have waited for the
    // deferral, or such a gap was possible.
    List<long[]> takes = new ArrayList<>();
    Await.until("a refill while clients keep coming", Duration.ofSeconds(20), () -> {
      try {
        long before = System.nanoTime();
        warm.take();
        takes.add(new long[] {before, System.nanoTime()});
      } catch (InterruptedException e) {
        throw new AssertionError(e);
      }
      return spawned.size() > 2;
    });
    long refillAt = spawned.get(2).atNanos();
    long firstTake = takes.getFirst()[0];
    long widestGap = 0;
    int i = 1;
    for (; i < takes.size() && takes.get(i)[0] <= refillAt; i++) {
      widestGap = Math.max(widestGap, takes.get(i)[1] - takes.get(i - 1)[0]);
    }
    // and from the last take before the refill to the refill (recorded when the spawn had ended)
    widestGap = Math.max(widestGap, refillAt - takes.get(i - 1)[0]);
    long waited = TimeUnit.NANOSECONDS.toMillis(refillAt - firstTake);
    assertThat(waited >= WarmSessions.REFILL_DEFER.toMillis() || widestGap >= WarmSessions.REFILL_LULL.toNanos())
        .as("refill %d ms after the first take, widest possible gap between takes %d ms", waited,
            TimeUnit.NANOSECONDS.toMillis(widestGap))
        .isTrue();
  }

  @Test
  void aTakeThatFindsNoneWaitsForTheSpawnInProgressRatherThanStartARival() throws Exception {
    java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    pool(1, Duration.ZERO, () -> {
      entered.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new FakeChild();
    });
    entered.await();
    java.util.concurrent.CompletableFuture<Session> taken = new java.util.concurrent.CompletableFuture<>();
    Thread client = Thread.ofVirtual().start(() -> {
      try {
        taken.complete(pool.take());
      } catch (InterruptedException e) {
        taken.completeExceptionally(e);
      }
    });
    Await.until("the client waiting for the spawn", () -> client.getState() == Thread.State.TIMED_WAITING
        || client.getState() == Thread.State.WAITING);
    assertThat(taken).isNotDone();
    release.countDown();
    assertThat(taken.get(10, TimeUnit.SECONDS)).isSameAs(spawned.getFirst().session());
  }

  @Test
  void aDeadWarmSessionIsNeverTakenAndIsReplaced() throws Exception {
    WarmSessions warm = pool(2);
    Await.until("two warm sessions", () -> warm.waiting() == 2);
    spawned.get(0).child().exit.complete(3);
    Await.until("the dead one replaced", () -> spawned.size() == 3 && warm.waiting() == 2);
    assertThat(retired).containsExactly("it ended before a client took it");
    assertThat(warm.take()).isSameAs(spawned.get(1).session());
    assertThat(logBytes.text()).contains("a child started ahead of need (fake-server) ended before a client took it");
  }

  @Test
  void childrenThatExitAtOnceAreReplacedAfterPausesThatDouble() throws Exception {
    pool(1, Duration.ZERO, () -> {
      FakeChild c = new FakeChild();
      c.exit.complete(1); // the command crashes at once
      return c;
    });
    Await.until("five spawns", Duration.ofSeconds(20), () -> spawned.size() >= 5);
    for (int i = 1; i < 5; i++) { // after the i-th early exit the pause is pauseAfter(i)
      long gapMillis = TimeUnit.NANOSECONDS.toMillis(spawned.get(i).atNanos() - spawned.get(i - 1).atNanos());
      assertThat(gapMillis).as("the pause before spawn %d", i + 1).isGreaterThanOrEqualTo(WarmSessions.pauseAfter(i).toMillis());
    }
    assertThat(logBytes.text()).contains("the next one starts in 100 ms at the earliest");
  }

  @Test
  void thePauseDoublesFromATenthOfASecondToHalfAMinute() throws Exception {
    assertThat(WarmSessions.pauseAfter(1)).isEqualTo(Duration.ofMillis(100));
    assertThat(WarmSessions.pauseAfter(2)).isEqualTo(Duration.ofMillis(200));
    assertThat(WarmSessions.pauseAfter(5)).isEqualTo(Duration.ofMillis(1600));
    assertThat(WarmSessions.pauseAfter(9)).isEqualTo(Duration.ofMillis(25_600));
    assertThat(WarmSessions.pauseAfter(10)).isEqualTo(WarmSessions.MAX_PAUSE);
    assertThat(WarmSessions.pauseAfter(10_000)).isEqualTo(WarmSessions.MAX_PAUSE);
  }

  @Test
  void aFailingSpawnIsRetriedAfterAPauseAndTheRunEndsWhenOneIsTaken() throws Exception {
    int[] calls = {0};
    pool = new WarmSessions(1, "fake-server", Duration.ZERO, () -> {
      if (calls[0]++ < 2) {
        throw new IOException("no such file");
      }
      Session s = new Session("00000000000000000000000000000000", new ChildLog(log, ChildProcess.StderrLimit.DEFAULT), queued,
          Duration.ofSeconds(1), Duration.ofSeconds(5));
      s.attach(new FakeChild(), null);
      return s;
    }, (s, why) -> s.closeChild(), NO_PACING, log);
    pool.start();
    Await.until("a warm session after two failed spawns", () -> pool.waiting() == 1);
    assertThat(calls[0]).isEqualTo(3);
    assertThat(pool.take()).isNotNull();
  }

  @Test
  void aWarmSessionUnusedForTheIdleTtlIsClosedAndTheNextClientRefillsThePool() throws Exception {
    WarmSessions warm = pool(1, Duration.ofMillis(300), FakeChild::new);
    Await.until("the idle warm session closed", () -> retired.contains("unused for 300 ms"));
    assertThat(spawned.getFirst().child().closed).isTrue();
    assertThat(warm.waiting()).isZero();
    assertThat(spawned).hasSize(1); // not replaced while nobody comes
    assertThat(warm.take()).isNull(); // this client spawns its own; the pool fills again behind it
    Await.until("the pool refilled", () -> warm.waiting() == 1 && spawned.size() == 2);
    assertThat(logBytes.text()).contains("closing the child started ahead of need: unused for 300 ms");
  }

  @Test
  void closeEndsEveryWarmSessionAndTakesNoMore() throws Exception {
    WarmSessions warm = pool(3);
    Await.until("three warm sessions", () -> warm.waiting() == 3);
    warm.close();
    assertThat(spawned).hasSize(3).allSatisfy(s -> assertThat(s.child().closed).isTrue());
    assertThat(retired).containsOnly("the gateway is shutting down").hasSize(3);
    assertThat(warm.take()).isNull();
    assertThat(warm.running()).isFalse();
  }

  @Test
  void sizeZeroRunsNothing() throws Exception {
    WarmSessions warm = pool(0);
    assertThat(warm.take()).isNull();
    assertThat(warm.waiting()).isZero();
    assertThat(spawned).isEmpty();
    assertThat(warm.running()).isFalse();
  }
}
