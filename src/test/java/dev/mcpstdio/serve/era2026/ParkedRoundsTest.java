package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.serve.era2026.ParkedRounds.Parked;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.ArrayList;
import org.junit.jupiter.api.Test;

class ParkedRoundsTest {

  private final MutableClock clock = new MutableClock();
  private final ParkedRounds<String> rounds = new ParkedRounds<>(3, Duration.ofSeconds(60), clock);

  @Test
  void peekThenConsumeOnce() {
    assertThat(rounds.park("t1", 1, "child requests")).isTrue();
    assertThat(rounds.peek("t1")).map(Parked::round).contains(1);
    assertThat(rounds.peek("t1")).isPresent(); // peeking does not consume
    assertThat(rounds.consume("t1", 2)).isEmpty(); // another round
    assertThat(rounds.consume("t1", 1)).contains("child requests");
    assertThat(rounds.consume("t1", 1)).isEmpty(); // replayed
    assertThat(rounds.peek("t1")).isEmpty();
    assertThat(rounds.peek("never")).isEmpty();
  }

  @Test
  void oneRoundPerTransactionAndACap() {
    assertThat(rounds.park("t1", 1, "a")).isTrue();
    assertThat(rounds.park("t1", 2, "b")).isFalse();
    assertThat(rounds.park("t2", 1, "c")).isTrue();
    assertThat(rounds.park("t3", 1, "d")).isTrue();
    assertThat(rounds.park("t4", 1, "e")).isFalse();
    assertThat(rounds.size()).isEqualTo(3);
    rounds.consume("t1", 1);
    assertThat(rounds.park("t4", 1, "e")).isTrue();
    // the next round of a consumed transaction parks again
    assertThat(rounds.consume("t2", 1)).contains("c");
    assertThat(rounds.park("t2", 2, "c2")).isTrue();
    assertThat(rounds.consume("t2", 2)).contains("c2");
  }

  @Test
  void expiredRoundsAreNeverTakenAndAreSweptForTheChild() {
    rounds.park("old", 1, "x");
    clock.advance(Duration.ofSeconds(30));
    rounds.park("young", 1, "y");
    clock.advance(Duration.ofSeconds(30));
    assertThat(rounds.peek("old")).isEmpty();
    assertThat(rounds.consume("old", 1)).isEmpty();
    assertThat(rounds.peek("young")).isPresent();
    List<Parked<String>> swept = rounds.sweep();
    assertThat(swept).extracting(Parked::value).containsExactly("x");
    assertThat(rounds.sweep()).isEmpty();
    assertThat(rounds.size()).isEqualTo(1);
    assertThat(rounds.drain()).extracting(Parked::value).containsExactly("y");
    assertThat(rounds.size()).isZero();
  }

  @Test
  void racingRetriesConsumeOnce() throws Exception {
    ParkedRounds<Integer> many = new ParkedRounds<>(1, Duration.ofSeconds(60), clock);
    many.park("t", 1, 42);
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      CountDownLatch go = new CountDownLatch(1);
      List<Future<Optional<Integer>>> tries = new ArrayList<>();
      for (int i = 0; i < 32; i++) {
        tries.add(pool.submit(() -> {
          go.await();
          return many.consume("t", 1);
        }));
      }
      go.countDown();
      int won = 0;
      for (Future<Optional<Integer>> f : tries) {
        won += f.get(10, TimeUnit.SECONDS).isPresent() ? 1 : 0;
      }
      assertThat(won).isEqualTo(1);
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void boundsMustBePositive() {
    assertThatThrownBy(() -> new ParkedRounds<>(0, Duration.ofSeconds(1), clock)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ParkedRounds<>(1, Duration.ZERO, clock)).isInstanceOf(IllegalArgumentException.class);
  }
}
