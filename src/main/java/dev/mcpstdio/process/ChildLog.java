package dev.mcpstdio.process;

import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * What one child may cost the log: a budget of bytes per second ({@link ChildProcess.StderrLimit},
 * a token bucket) shared by the child's stderr lines and by the gateway's own lines about things
 * the child does at will (a callback it sends, a stray or broken stdout line), so that neither way
 * buys the child more log than its budget. A line that does not fit is dropped and counted, and
 * what was dropped is told in one warning {@link #REPORT_INTERVAL} after dropping began, whether
 * or not the child writes anything more, and at once by {@link #flush} (stderr closed, the child
 * closed): one line per interval however long a flood lasts.
 *
 * <p>The due reports of every child share one scheduler thread ({@link Reports}); each
 * {@code ChildLog} has at most one report waiting there, so what it holds is bounded by the
 * number of children. The gateway's lines that a child cannot cause at will (its start, the
 * shutdown ladder) go to {@link #log()} directly. Thread-safe: the stderr pump, the stdout pump,
 * HTTP threads (the callback reply channel) and the scheduler all use it.
 */
public final class ChildLog {

  /** How often, at most, a flooding child costs the log a line saying what was dropped. */
  public static final Duration REPORT_INTERVAL = Duration.ofSeconds(10);

  private final Log log;
  private final StderrBudget budget;
  private final long intervalNanos;
  private volatile String source = "the child";
  private boolean reportWaiting; // guarded by this: a report is scheduled and has not run yet

  /** A budget of {@code limit} for the child whose lines go to {@code log}. */
  public ChildLog(Log log, ChildProcess.StderrLimit limit) {
    this(log, limit, REPORT_INTERVAL);
  }

  ChildLog(Log log, ChildProcess.StderrLimit limit, Duration interval) {
    this.log = log;
    this.budget = new StderrBudget(limit, System.nanoTime());
    this.intervalNanos = interval.toNanos();
  }

  /** The log itself, for the gateway's lines about the child that the child cannot cause at will. */
  public Log log() {
    return log;
  }

  /** Names the child in the report lines ({@code child 4711}), once it has a pid. */
  void name(String childSource) {
    this.source = childSource;
  }

  /**
   * One of the gateway's lines about something the child did at will, at INFO: logged when the
   * budget has room for it, otherwise counted in the next report.
   */
  public void info(String message) {
    if (takeGatewayLine(message)) {
      log.info(message);
    }
  }

  /** Like {@link #info}, as a warning. */
  public void warn(String message) {
    if (takeGatewayLine(message)) {
      log.warn(message);
    }
  }

  private synchronized boolean takeGatewayLine(String message) {
    boolean fits = budget.takeGatewayLine(message.length() + 1L, System.nanoTime());
    scheduleIfDropping();
    return fits;
  }

  /**
   * Whether a stderr line that costs {@code cost} bytes of log ({@code size} bytes as the child
   * wrote it) may be logged; when not, it is counted.
   */
  synchronized boolean admit(long cost, long size) {
    boolean fits = budget.take(cost, size, System.nanoTime());
    scheduleIfDropping();
    return fits;
  }

  /** Takes {@code cost} bytes, or all there are: for lines that are never dropped (callbacks). */
  synchronized void charge(long cost) {
    budget.charge(cost, System.nanoTime());
  }

  /** Reports now what was dropped since the last report, if anything was. */
  public void flush() {
    StderrBudget.Dropped dropped;
    synchronized (this) {
      dropped = budget.report(System.nanoTime());
    }
    report(dropped);
  }

  private void scheduleIfDropping() {
    if (budget.dropping() && !reportWaiting) {
      reportWaiting = true;
      Reports.SCHEDULER.schedule(this::due, intervalNanos, TimeUnit.NANOSECONDS);
    }
  }

  /** The interval since dropping began is over. */
  private void due() {
    synchronized (this) {
      reportWaiting = false;
    }
    flush();
  }

  private void report(StderrBudget.Dropped dropped) {
    if (dropped == null) {
      return;
    }
    StringBuilder line = new StringBuilder(source).append(" went over its log budget (").append(dropped.bytesPerSecond())
        .append(" bytes/s): dropped ").append(dropped.lines()).append(" stderr lines (").append(dropped.bytes())
        .append(" bytes)");
    if (dropped.gatewayLines() > 0) {
      line.append(" and ").append(dropped.gatewayLines()).append(" gateway lines about it");
    }
    log.warn(line.append(" over ").append(dropped.overMillis()).append(" ms").toString());
  }

  /** The one scheduler thread for due reports, started with the first child that drops a line. */
  private static final class Reports {
    static final ScheduledThreadPoolExecutor SCHEDULER = new ScheduledThreadPoolExecutor(1,
        Thread.ofPlatform().daemon().name("child-log-reports").factory());
  }
}
