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

  RetryLink(RetryPolicy policy, Sleeper sleeper, Log log, RelayCounts counts) {
    this(policy, sleeper, log, counts, null);
  }

  /**
   * @param reissue what a request becomes when it is sent again after an attempt that reached the
   *     server, or null to send it as it was. The 2026 era re-issues a request under a new id (a
   *     broken response stream loses the request there; the same id again would be a second
   *     request under one id); the answer then travels back under the request's own id.
   */
  RetryLink(RetryPolicy policy, Sleeper sleeper, Log log, RelayCounts counts, Reissue reissue) {
    this.counts = counts;
    this.policy = policy;
    this.sleeper = sleeper;
    this.log = log;
    this.reissue = reissue;
  }

  private final Reissue reissue;
  private final RelayCounts counts;

  /**
   * How a request is sent again under a new id (2026 era). The re-issued id is known to the relay
   * from {@link #reissue} until {@link #done}, so that the host's cancel of the request reaches
   * the attempt in flight whatever id it travels under.
   */
  interface Reissue {
    /** {@code original} under a new id of the relay's own. */
    Call reissue(Call original);

    /** The attempts of {@code original} are over: its re-issued ids are forgotten. */
    void done(Call original);
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call original = chain.call();
    try {
      return attempts(chain, original);
    } finally {
      if (reissue != null) {
        reissue.done(original);
      }
    }
  }

  private Outcome attempts(Chain chain, Call original) throws InterruptedException {
    Call call = original;
    for (int attempt = 1; ; attempt++) {
      Outcome outcome = underOwnId(original, call, chain.proceed(call));
      boolean last = attempt >= policy.attempts();
      if (outcome instanceof Outcome.Failed f) {
        if (last || !f.retryable() || f.emitted() || (f.sent() && !ReplaySafety.mayReplay(call))) {
          return outcome;
        }
        log.info("attempt " + attempt + "/" + policy.attempts() + " failed: " + f.reason());
        if (!pause(policy.backoff(attempt))) {
          return outcome;
        }
        counts.retries.increment();
        if (f.sent() && reissue != null) {
          call = reissue.reissue(original);
        }
      } else if (outcome instanceof Outcome.Refused r && (r.status() == 429 || r.status() == 503)) {
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
        counts.retries.increment();
      } else {
        return outcome;
      }
    }
  }

  /** An answer to a re-issued request, under the id the request came with. */
  private static Outcome underOwnId(Call original, Call sent, Outcome outcome) {
    if (sent == original || !(outcome instanceof Outcome.Delivered d) || d.answer() == null
        || !(original.message() instanceof dev.mcpstdio.jsonrpc.JsonRpcMessage.Request r)) {
      return outcome;
    }
    return d.withAnswer(Rewrites.withId(d.answer(), r.id()));
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
