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
 *
 * <p>Someone else's output (a child's stderr) is written by {@link #output} only, marked
 * {@code <source> stderr> } after the tags, with every control character escaped: it stays one
 * line and can never pass for one of the gateway's own lines, which never carry that mark. Text a
 * peer controls that goes into a gateway line (a callback's type, say) goes through
 * {@link #visible} first, so it cannot start a line of its own.
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
   * {@code [mcp-stdio] [session 3f0c] ...}.
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

  /** What marks a line of someone else's output, after its source. */
  public static final String OUTPUT_MARK = " stderr> ";

  /**
   * One line of {@code source}'s own output (a child's stderr), at INFO: written
   * {@code [mcp-stdio] [tags] <source> stderr> <text>}, the text passed through {@link #visible}.
   */
  public void output(String source, String text) {
    if (Level.INFO.ordinal() < threshold.ordinal()) {
      return;
    }
    String line = source + OUTPUT_MARK + visible(text);
    write(Level.INFO, "", line, redactor.scrub(line));
  }

  /**
   * {@code text} safe to put in a log line: control characters (C0 but tab, DEL, C1), line and
   * paragraph separators and the bidirectional overrides and isolates, which could end the line or
   * make a terminal show it in another order, written as escapes ({@code \x1b} for ESC).
   */
  public static String visible(String text) {
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      boolean hidden = c < 0x20 && c != '\t' || c >= 0x7f && c <= 0x9f || c == '\u2028' || c == '\u2029'
          || c >= '\u202a' && c <= '\u202e' || c >= '\u2066' && c <= '\u2069' || c == '\u200e' || c == '\u200f'
          || c == '\u061c';
      if (hidden && out == null) {
        out = new StringBuilder(text.length() + 16).append(text, 0, i);
      }
      if (hidden) {
        out.append(c <= 0xff ? String.format("\\x%02x", (int) c) : String.format("\\u%04x", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
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
