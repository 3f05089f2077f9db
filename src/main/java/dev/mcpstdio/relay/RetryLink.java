package dev.mcpstdio.relay;

import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.time.Instant;

/**
 * Retries what is safe to retry.
 *
 * <p>Transport failures get {@link RetryPolicy#attempts()} attempts with linear backoff, subject
 * to {@link ReplaySafety}: never after part of the answer reached the host, and after the request
 * left only for replay-safe methods. 429 and 503 are retried after {@code Retry-After} (or the
 * backoff when absent); a wait longer than the cap, or the last attempt, surfaces the status.
 */
final class RetryLink implements Interceptor {

  private final RetryPolicy policy;
  private final Sleeper sleeper;
  private final Log log;

  RetryLink(RetryPolicy policy, Sleeper sleeper, Log log) {
    this.policy = policy;
    this.sleeper = sleeper;
    this.log = log;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    for (int attempt = 1; ; attempt++) {
      Outcome outcome = chain.proceed(call);
      boolean last = attempt >= policy.attempts();
      switch (outcome) {
        case Outcome.Failed f -> {
          if (last || !f.retryable() || f.emitted() || (f.sent() && !ReplaySafety.mayReplay(call))) {
            return outcome;
          }
          log.info("attempt " + attempt + "/" + policy.attempts() + " failed: " + f.reason());
          if (!pause(policy.backoff(attempt))) {
            return outcome;
          }
        }
        case Outcome.Refused r when r.status() == 429 || r.status() == 503 -> {
          if (last) {
            return outcome;
          }
          Duration wait = retryAfter(r);
          if (wait == null) {
            wait = policy.backoff(attempt);
          } else if (wait.compareTo(policy.retryAfterCap()) > 0) {
            log.info(
                "HTTP " + r.status() + " asks to retry after " + wait.toSeconds()
                    + " s, beyond the " + policy.retryAfterCap().toSeconds() + " s cap; giving up");
            return outcome;
          }
          log.info(
              "attempt " + attempt + "/" + policy.attempts() + " got HTTP " + r.status()
                  + ", sleeping " + seconds(wait) + "s before retry");
          if (!pause(wait)) {
            return outcome;
          }
        }
        default -> {
          return outcome;
        }
      }
    }
  }

  /**
   * Waits before the next attempt; false when interrupted (the relay is shutting down), so the
   * last real failure is what the host is told, not a bare "shutting down".
   */
  private boolean pause(Duration wait) {
    try {
      sleeper.sleep(wait);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  static Duration retryAfter(Outcome outcome) {
    return RetryAfter.parse(Header.first(outcome.headers(), "retry-after"), Instant.now());
  }

  private static String seconds(Duration d) {
    double s = d.toMillis() / 1000.0;
    return s == Math.rint(s) ? String.valueOf((long) s) : String.valueOf(s);
  }
}
