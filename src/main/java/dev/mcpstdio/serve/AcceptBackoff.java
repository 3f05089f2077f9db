package dev.mcpstdio.serve;

import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import java.util.function.LongSupplier;

/**
 * What the acceptor does when accepting a connection fails (most often because the process is out
 * of file descriptors): it pauses before trying again, {@link #FIRST_PAUSE_MILLIS} after the first
 * failure, doubling up to {@link #MAX_PAUSE_MILLIS}, back to none after an accept succeeds; and it
 * says so as {@link RepeatedFailures} do: one line at once, then at most one line each
 * {@link RepeatedFailures#REPORT_INTERVAL_MILLIS} that counts the failures since the last one. No
 * stack trace: the cause is the whole story.
 */
final class AcceptBackoff {

  static final long FIRST_PAUSE_MILLIS = 10;
  static final long MAX_PAUSE_MILLIS = 1_000;

  private final RepeatedFailures lines;
  private long pause; // guarded by this; 0 while accepting works

  AcceptBackoff(Log log, LongSupplier clockMillis) {
    this.lines = new RepeatedFailures(log::warn, log, clockMillis);
  }

  /** Notes a failed accept; returns how long to pause before the next one, in milliseconds. */
  synchronized long failed(Throwable failure) {
    pause = pause == 0 ? FIRST_PAUSE_MILLIS : Math.min(2 * pause, MAX_PAUSE_MILLIS);
    String cause = String.valueOf(failure.getMessage());
    boolean descriptors = cause.contains("Too many open files");
    lines.failed("cannot accept connections: " + failure.getClass().getSimpleName() + ": " + RepeatedFailures.oneLine(cause)
        + (descriptors ? "; the process is out of file descriptors (raise ulimit -n, or lower --max-connections)" : "")
        + "; retrying every " + pause + " ms at most");
    return pause;
  }

  /** Notes an accept that worked: no pause from now on. */
  synchronized void succeeded() {
    if (pause == 0) {
      return;
    }
    lines.succeeded("accepting connections again");
    pause = 0;
  }
}
