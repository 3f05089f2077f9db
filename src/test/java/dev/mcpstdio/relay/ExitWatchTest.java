package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ExitWatchTest {

  @Test
  void aShutdownThatStallsIsEndedAtItsDeadline() throws Exception {
    CountDownLatch halted = new CountDownLatch(1);
    ExitWatch watch = new ExitWatch(Duration.ofMillis(50), halted::countDown);
    watch.arm();
    assertThat(halted.await(200, TimeUnit.MILLISECONDS)).isFalse(); // nothing before the shutdown begins
    watch.begin();
    assertThat(halted.await(10, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void aShutdownThatFinishesIsLeftAlone() throws Exception {
    CountDownLatch halted = new CountDownLatch(1);
    ExitWatch watch = new ExitWatch(Duration.ofMillis(300), halted::countDown);
    watch.arm();
    watch.begin();
    watch.done();
    assertThat(halted.await(1, TimeUnit.SECONDS)).isFalse();
  }
}
