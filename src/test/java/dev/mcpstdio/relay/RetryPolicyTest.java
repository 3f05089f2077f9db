package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class RetryPolicyTest {

  @Test
  void reconnectsDoubleWhileFailingUpToTheirCapAndStartAgainOnceAStreamWorked() {
    RetryPolicy.Reconnects r = RetryPolicy.reconnects();
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(1));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(2));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(4));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(8));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(16));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(30));
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(30));
    r.worked();
    assertThat(r.failed()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aServersRetryFieldIsHonouredWithinItsBounds() {
    assertThat(RetryPolicy.serverRetry(2500, Duration.ofSeconds(1))).isEqualTo(2500);
    assertThat(RetryPolicy.serverRetry(0, Duration.ofSeconds(1))).isEqualTo(100);
    assertThat(RetryPolicy.serverRetry(3_600_000, Duration.ofSeconds(1))).isEqualTo(300_000);
    assertThat(RetryPolicy.serverRetry(-1, Duration.ofMillis(500))).isEqualTo(500);
  }

  @Test
  void aMessagesAttemptsBackOffLinearly() {
    assertThat(RetryPolicy.DEFAULT.backoff(1)).isEqualTo(Duration.ofSeconds(1));
    assertThat(RetryPolicy.DEFAULT.backoff(2)).isEqualTo(Duration.ofSeconds(2));
  }
}
