package dev.mcpstdio.process;

import java.time.Duration;

/**
 * A child's allowance of log bytes for its stderr: a token bucket that holds at most
 * {@link ChildProcess.StderrLimit#burstBytes()} and refills at its bytes per second. A line that
 * does not fit is dropped and counted; the count is handed out for one log line with the first
 * line (dropped or not) after {@link #REPORT_INTERVAL} has passed since the first drop it counts,
 * and when stderr closes: one line per interval however long the flood lasts. Used by the stderr
 * pump alone: not thread-safe.
 */
final class StderrBudget {

  /** How often, at most, a flooding child costs the log a line saying what was dropped. */
  static final Duration REPORT_INTERVAL = Duration.ofSeconds(10);

  /** What was dropped since the last report, over how long. */
  record Dropped(long bytesPerSecond, long lines, long bytes, long overMillis) {}

  private final long bytesPerSecond;
  private final long burst;
  private double tokens;
  private long refilledNanos;
  private long droppedLines;
  private long droppedBytes;
  private long firstDropNanos;

  StderrBudget(ChildProcess.StderrLimit limit) {
    this(limit, System.nanoTime());
  }

  StderrBudget(ChildProcess.StderrLimit limit, long nowNanos) {
    this.bytesPerSecond = limit.bytesPerSecond();
    this.burst = limit.burstBytes();
    this.tokens = burst;
    this.refilledNanos = nowNanos;
  }

  /**
   * Takes {@code cost} bytes if they are there; otherwise counts a dropped line of {@code size}
   * bytes.
   */
  boolean take(long cost, long size, long nowNanos) {
    refill(nowNanos);
    if (tokens >= cost) {
      tokens -= cost;
      return true;
    }
    if (droppedLines == 0) {
      firstDropNanos = nowNanos;
    }
    droppedLines++;
    droppedBytes += size;
    return false;
  }

  /** Takes {@code cost} bytes, or all there are: for lines that are never dropped. */
  void charge(long cost, long nowNanos) {
    refill(nowNanos);
    tokens = Math.max(0, tokens - cost);
  }

  /**
   * What was dropped since the last report, when a report is due ({@code now} true, as when stderr
   * closed, or the interval has passed since the first drop it counts); null when nothing was
   * dropped or it is not time yet.
   */
  Dropped report(long nowNanos, boolean now) {
    if (droppedLines == 0 || !now && nowNanos - firstDropNanos < REPORT_INTERVAL.toNanos()) {
      return null;
    }
    Dropped dropped = new Dropped(bytesPerSecond, droppedLines, droppedBytes, (nowNanos - firstDropNanos) / 1_000_000);
    droppedLines = 0;
    droppedBytes = 0;
    return dropped;
  }

  private void refill(long nowNanos) {
    long elapsed = nowNanos - refilledNanos;
    if (elapsed > 0) {
      tokens = Math.min(burst, tokens + elapsed * (bytesPerSecond / 1e9));
      refilledNanos = nowNanos;
    }
  }
}
