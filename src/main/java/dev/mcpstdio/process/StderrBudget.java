package dev.mcpstdio.process;

/**
 * The token bucket behind a child's log allowance ({@link ChildLog}): it holds at most
 * {@link ChildProcess.StderrLimit#burstBytes()} and refills at its bytes per second. A line that
 * does not fit is dropped and counted (a stderr line with its size, or one of the gateway's own
 * lines about what the child did); {@link #report} hands out the count once and starts it again.
 * When a report is due is {@link ChildLog}'s business. Not thread-safe: used under
 * {@link ChildLog}'s lock.
 */
final class StderrBudget {

  /** What was dropped since the last report, over how long (from the first drop it counts). */
  record Dropped(long bytesPerSecond, long lines, long bytes, long gatewayLines, long overMillis) {}

  private final long bytesPerSecond;
  private final long burst;
  private double tokens;
  private long refilledNanos;
  private long droppedLines;
  private long droppedBytes;
  private long droppedGatewayLines;
  private long firstDropNanos;

  StderrBudget(ChildProcess.StderrLimit limit, long nowNanos) {
    this.bytesPerSecond = limit.bytesPerSecond();
    this.burst = limit.burstBytes();
    this.tokens = burst;
    this.refilledNanos = nowNanos;
  }

  /**
   * Takes {@code cost} bytes if they are there; otherwise counts a dropped stderr line of
   * {@code size} bytes.
   */
  boolean take(long cost, long size, long nowNanos) {
    if (fits(cost, nowNanos)) {
      return true;
    }
    droppedLines++;
    droppedBytes += size;
    return false;
  }

  /** Takes {@code cost} bytes for one of the gateway's lines if they are there; otherwise counts it. */
  boolean takeGatewayLine(long cost, long nowNanos) {
    if (fits(cost, nowNanos)) {
      return true;
    }
    droppedGatewayLines++;
    return false;
  }

  private boolean fits(long cost, long nowNanos) {
    refill(nowNanos);
    if (tokens >= cost) {
      tokens -= cost;
      return true;
    }
    if (!dropping()) {
      firstDropNanos = nowNanos;
    }
    return false;
  }

  /** Whether something was dropped since the last report. */
  boolean dropping() {
    return droppedLines > 0 || droppedGatewayLines > 0;
  }

  /** Takes {@code cost} bytes, or all there are: for lines that are never dropped. */
  void charge(long cost, long nowNanos) {
    refill(nowNanos);
    tokens = Math.max(0, tokens - cost);
  }

  /** What was dropped since the last report, counted from zero again; null when nothing was. */
  Dropped report(long nowNanos) {
    if (!dropping()) {
      return null;
    }
    Dropped dropped = new Dropped(bytesPerSecond, droppedLines, droppedBytes, droppedGatewayLines,
        Math.max(0, nowNanos - firstDropNanos) / 1_000_000);
    droppedLines = 0;
    droppedBytes = 0;
    droppedGatewayLines = 0;
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
