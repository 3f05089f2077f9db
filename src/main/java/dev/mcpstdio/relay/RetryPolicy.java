package dev.mcpstdio.relay;

import java.time.Duration;

/**
 * How failed attempts are retried.
 *
 * @param attempts total attempts per message (first try included)
 * @param backoffUnit the linear backoff step: attempt n waits {@code n * backoffUnit}
 * @param retryAfterCap the longest {@code Retry-After} honoured; a longer one gives up at once
 */
public record RetryPolicy(int attempts, Duration backoffUnit, Duration retryAfterCap) {

  public static final RetryPolicy DEFAULT =
      new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(60));

  public Duration backoff(int attempt) {
    return backoffUnit.multipliedBy(attempt);
  }
}
