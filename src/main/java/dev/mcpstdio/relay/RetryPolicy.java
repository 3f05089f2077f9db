package dev.mcpstdio.relay;

import java.time.Duration;

/**
 * The relay's one policy for trying again, for every kind of upstream request.
 *
 * <ul>
 *   <li>A message's POST: {@link #attempts} attempts with linear backoff ({@link #backoff}), a
 *       server's {@code Retry-After} honoured up to {@link #retryAfterCap} (applied by
 *       {@link RetryLink}, which also decides what is safe to send again).
 *   <li>A stream the relay keeps open (the 2025 era's GET stream, the HTTP+SSE (2024-11-05) event
 *       stream): reopened after a {@link Reconnects} schedule, 1 s doubling to 30 s while attempts
 *       fail, back to 1 s once a stream worked.
 *   <li>A POST's event stream cut before its answer: resumed with {@code Last-Event-ID} after the
 *       server's {@code retry:} delay or {@link #RESUME_DELAY}, at most
 *       {@link #MAX_FRUITLESS_RESUMES} times in a row without a new event.
 *   <li>Any server's {@code retry:} field: honoured within {@link #MIN_SERVER_RETRY} ..
 *       {@link #MAX_SERVER_RETRY} ({@link #serverRetry}).
 * </ul>
 *
 * @param attempts total attempts per message (first try included)
 * @param backoffUnit the linear backoff step: attempt n waits {@code n * backoffUnit}
 * @param retryAfterCap the longest {@code Retry-After} honoured; a longer one gives up at once
 */
public record RetryPolicy(int attempts, Duration backoffUnit, Duration retryAfterCap) {

  public static final RetryPolicy DEFAULT =
      new RetryPolicy(3, Duration.ofSeconds(1), Duration.ofSeconds(60));

  /** Longest wait honoured from a server's {@code retry:} field. */
  static final Duration MAX_SERVER_RETRY = Duration.ofMinutes(5);

  /** Shortest wait between reconnections, whatever {@code retry:} says (no hot loop). */
  static final Duration MIN_SERVER_RETRY = Duration.ofMillis(100);

  /** Delay before resuming a POST's event stream when the server did not ask for one with {@code retry:}. */
  static final Duration RESUME_DELAY = Duration.ofMillis(500);

  /** Resumptions in a row that brought no new event before the call fails. */
  static final int MAX_FRUITLESS_RESUMES = 5;

  /** First wait of a {@link Reconnects} schedule, and the wait after a stream that worked. */
  static final Duration FIRST_RECONNECT = Duration.ofSeconds(1);

  /** Longest wait of a {@link Reconnects} schedule. */
  static final Duration MAX_RECONNECT = Duration.ofSeconds(30);

  public Duration backoff(int attempt) {
    return backoffUnit.multipliedBy(attempt);
  }

  /** The server's {@code retry:} delay in milliseconds, bounded; {@code fallback} when absent (negative). */
  static long serverRetry(long retryMillis, Duration fallback) {
    long ms = retryMillis >= 0 ? retryMillis : fallback.toMillis();
    return Math.max(MIN_SERVER_RETRY.toMillis(), Math.min(ms, MAX_SERVER_RETRY.toMillis()));
  }

  /** A fresh reconnect schedule for one stream the relay keeps open. Not thread-safe: one per stream's thread. */
  static Reconnects reconnects() {
    return new Reconnects();
  }

  /** The waits before reopening one stream: doubling while attempts fail, reset once one worked. */
  static final class Reconnects {
    private Duration next = FIRST_RECONNECT;

    private Reconnects() {}

    /** The wait before the next attempt after a failed one; the one after it doubles (to 30 s). */
    Duration failed() {
      Duration wait = next;
      next = next.multipliedBy(2).compareTo(MAX_RECONNECT) > 0 ? MAX_RECONNECT : next.multipliedBy(2);
      return wait;
    }

    /** A stream worked: the schedule starts again at its first wait. */
    void worked() {
      next = FIRST_RECONNECT;
    }
  }
}
