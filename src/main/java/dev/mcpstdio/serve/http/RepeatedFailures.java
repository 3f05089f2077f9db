package dev.mcpstdio.serve.http;

import dev.mcpstdio.stdio.Log;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The log lines of one kind of failure that can repeat as fast as peers make it happen (accepting a
 * connection, starting a child while the process is out of file descriptors): the first failure
 * is told at once, later ones in at most one line each {@link #REPORT_INTERVAL_MILLIS} that counts
 * the failures since the last line, and the end of the run in one line when the thing works again.
 * Each line is one line: a failure's text is cut to its first line and made {@link Log#visible}
 * (the JDK's message for a failed spawn runs to ten lines). Thread-safe.
 */
public final class RepeatedFailures {

  public static final long REPORT_INTERVAL_MILLIS = 10_000;

  private final Consumer<String> failureLine;
  private final Log log;
  private final LongSupplier clockMillis;
  private long unreported; // guarded by this: failures since the last line
  private long failures; // failures since the thing last worked
  private long lastReport;

  /**
   * @param failureLine where a failure's line goes (a warning, an error)
   * @param log where the line saying it works again goes, at INFO
   */
  public RepeatedFailures(Consumer<String> failureLine, Log log, LongSupplier clockMillis) {
    this.failureLine = failureLine;
    this.log = log;
    this.clockMillis = clockMillis;
  }

  /** Notes one failure, told by {@code line} when a line is due. */
  public synchronized void failed(String line) {
    failures++;
    unreported++;
    long now = clockMillis.getAsLong();
    if (failures == 1 || now - lastReport >= REPORT_INTERVAL_MILLIS) {
      failureLine.accept(oneLine(line) + (unreported > 1 ? " (" + unreported + " failures since the last report)" : ""));
      unreported = 0;
      lastReport = now;
    }
  }

  /** Notes that it worked: {@code again}, with how many attempts failed, when the last one had. */
  public synchronized void succeeded(String again) {
    if (failures == 0) {
      return;
    }
    log.info(again + " after " + failures + " failed attempt(s)");
    failures = 0;
    unreported = 0;
  }

  /** The first line of {@code text} (of a failure's message), safe to log. */
  public static String oneLine(String text) {
    String s = String.valueOf(text);
    int end = s.indexOf('\n');
    int cr = s.indexOf('\r');
    if (cr >= 0 && (end < 0 || cr < end)) {
      end = cr;
    }
    return Log.visible(end < 0 ? s : s.substring(0, end).stripTrailing() + " [...]");
  }
}
