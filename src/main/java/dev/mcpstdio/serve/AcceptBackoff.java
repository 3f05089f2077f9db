package dev.mcpstdio.serve;

import dev.mcpstdio.stdio.Log;
import java.util.function.LongSupplier;

/**
 * What the acceptor does when accepting a connection fails (most often because the process is out
 * of file descriptors): it pauses before trying again, {@link #FIRST_PAUSE_MILLIS} after the first
 * failure, doubling up to {@link #MAX_PAUSE_MILLIS}, back to none after an accept succeeds; and it
 * says so in one log line, then at most one line each {@link #REPORT_INTERVAL_MILLIS} that counts
 * the failures since the last one. No stack trace: the cause is the whole story.
 */
final class AcceptBackoff {

  static final long FIRST_PAUSE_MILLIS = 10;
  static final long MAX_PAUSE_MILLIS = 1_000;
  static final long REPORT_INTERVAL_MILLIS = 10_000;

  private final Log log;
  private final LongSupplier clockMillis;
  private long pause; // guarded by this; 0 while accepting works
  private long unreported; // failures since the last line
  private long failures; // failures since accepting last worked
  private long lastReport = Long.MIN_VALUE;

  AcceptBackoff(Log log, LongSupplier clockMillis) {
    this.log = log;
    this.clockMillis = clockMillis;
  }

  /** Notes a failed accept; returns how long to pause before the next one, in milliseconds. */
  synchronized long failed(Throwable failure) {
    pause = pause == 0 ? FIRST_PAUSE_MILLIS : Math.min(2 * pause, MAX_PAUSE_MILLIS);
    failures++;
    unreported++;
    long now = clockMillis.getAsLong();
    if (lastReport == Long.MIN_VALUE || now - lastReport >= REPORT_INTERVAL_MILLIS) {
      String cause = String.valueOf(failure.getMessage());
      boolean descriptors = cause.contains("Too many open files");
      log.warn("cannot accept connections: " + failure.getClass().getSimpleName() + ": " + cause
          + (unreported > 1 ? " (" + unreported + " failures since the last report)" : "")
          + (descriptors ? "; the process is out of file descriptors (raise ulimit -n, or lower --max-connections)" : "")
          + "; retrying every " + pause + " ms at most");
      unreported = 0;
      lastReport = now;
    }
    return pause;
  }

  /** Notes an accept that worked: no pause from now on. */
  synchronized void succeeded() {
    if (pause == 0) {
      return;
    }
    log.info("accepting connections again after " + failures + " failed attempt(s)");
    pause = 0;
    failures = 0;
    unreported = 0;
    lastReport = Long.MIN_VALUE;
  }
}
