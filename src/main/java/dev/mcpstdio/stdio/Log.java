package dev.mcpstdio.stdio;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The one logger: human-readable lines on stderr, each prefixed {@code [mcp-stdio]}, every line
 * passed through the {@link Redactor} first.
 *
 * <p>Diagnostics never go to stdout, which belongs to the JSON-RPC wire. A line is written whole
 * (one lock, one write), so lines from concurrent exchanges never interleave.
 */
public final class Log {

  /** How much to say. */
  public enum Level {
    DEBUG,
    INFO,
    WARN,
    ERROR,
    OFF
  }

  private static final String PREFIX = "[mcp-stdio] ";

  private final PrintStream out;
  private final Level threshold;
  private final Redactor redactor;
  private final String tag;
  private final ReentrantLock lock;

  public Log(OutputStream stderr, Level threshold, Redactor redactor) {
    this(new PrintStream(stderr, false, StandardCharsets.UTF_8), threshold, redactor, "", new ReentrantLock());
  }

  private Log(PrintStream out, Level threshold, Redactor redactor, String tag, ReentrantLock lock) {
    this.out = out;
    this.threshold = threshold;
    this.redactor = redactor;
    this.tag = tag;
    this.lock = lock;
  }

  /** A logger for the process's own stderr. */
  public static Log stderr(Level threshold, Redactor redactor) {
    return new Log(new FileOutputStream(FileDescriptor.err), threshold, redactor);
  }

  /**
   * The same sink with a tag added after the prefix and any tags this logger already has, e.g.
   * {@code [mcp-stdio] [session 3f0c] [child] ...}.
   */
  public Log tagged(String newTag) {
    return new Log(out, threshold, redactor, newTag.isEmpty() ? tag : tag + "[" + newTag + "] ", lock);
  }

  public Redactor redactor() {
    return redactor;
  }

  public boolean isDebug() {
    return threshold == Level.DEBUG;
  }

  public void debug(String message) {
    write(Level.DEBUG, "debug: ", message);
  }

  public void info(String message) {
    write(Level.INFO, "", message);
  }

  /** A line meant to be seen unless the user asked for errors only (a report, not a warning). */
  public void notice(String message) {
    write(Level.WARN, "", message);
  }

  /**
   * A line the user must act on, such as a sign-in URL to open: shown unless the user asked for
   * errors only, its URLs kept whole (registered secrets and bearer credentials are still
   * removed). The caller must already have taken out anything secret in the URL.
   */
  public void prompt(String message) {
    write(Level.WARN, "", message, redactor.scrubKeepingUrls(message));
  }

  public void warn(String message) {
    write(Level.WARN, "warning: ", message);
  }

  public void error(String message) {
    write(Level.ERROR, "error: ", message);
  }

  private void write(Level level, String label, String message) {
    if (level.ordinal() < threshold.ordinal()) {
      return;
    }
    write(level, label, message, redactor.scrub(message));
  }

  private void write(Level level, String label, String message, String scrubbed) {
    if (level.ordinal() < threshold.ordinal()) {
      return;
    }
    String clean = scrubbed.stripTrailing();
    StringBuilder text = new StringBuilder(clean.length() + 32);
    for (String line : clean.split("\r\n|\r|\n", -1)) {
      text.append(PREFIX).append(tag).append(label).append(line).append('\n');
    }
    lock.lock();
    try {
      out.print(text);
      out.flush();
    } finally {
      lock.unlock();
    }
  }
}
