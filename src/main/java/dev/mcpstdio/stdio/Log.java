package dev.mcpstdio.stdio;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import dev.mcpstdio.jsonrpc.Json;
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
 *
 * <p>With {@link Format#JSON} ({@code --log-format json}) each line is one JSON object instead:
 * {@code time} (UTC, milliseconds), {@code level}, the tags as fields ({@code session},
 * {@code child} of the 2026-era pool, else {@code component}), the {@code message}, and the
 * fields of a structured {@link #event} (the access log's); someone else's output is an object of
 * its own with {@code source} and {@code stderr} fields and no {@code message}. Redaction is the
 * same: the message and every field value pass through the {@link Redactor}.
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

  /** How a line is written. */
  public enum Format {
    /** {@code [mcp-stdio] [tags] label: message}, for people. */
    TEXT,
    /** One JSON object per line, for log collectors. */
    JSON
  }

  private static final String PREFIX = "[mcp-stdio] ";

  private final PrintStream out;
  private final Level threshold;
  private final Redactor redactor;
  private final String tag;
  private final ReentrantLock lock;
  private final Format format;
  /** The tags as JSON members, each {@code ,"name":"value"}, in order. */
  private final String tagFields;

  public Log(OutputStream stderr, Level threshold, Redactor redactor) {
    this(stderr, threshold, redactor, Format.TEXT);
  }

  public Log(OutputStream stderr, Level threshold, Redactor redactor, Format format) {
    this(new PrintStream(stderr, false, StandardCharsets.UTF_8), threshold, redactor, "", new ReentrantLock(), format, "");
  }

  private Log(PrintStream out, Level threshold, Redactor redactor, String tag, ReentrantLock lock, Format format, String tagFields) {
    this.out = out;
    this.threshold = threshold;
    this.redactor = redactor;
    this.tag = tag;
    this.lock = lock;
    this.format = format;
    this.tagFields = tagFields;
  }

  /** A logger for the process's own stderr. */
  public static Log stderr(Level threshold, Redactor redactor) {
    return stderr(threshold, redactor, Format.TEXT);
  }

  /** A logger for the process's own stderr, in {@code format}. */
  public static Log stderr(Level threshold, Redactor redactor, Format format) {
    return new Log(new FileOutputStream(FileDescriptor.err), threshold, redactor, format);
  }

  /**
   * The same sink with a tag added after the prefix and any tags this logger already has, e.g.
   * {@code [mcp-stdio] [session 3f0c] ...}.
   */
  public Log tagged(String newTag) {
    if (newTag.isEmpty()) {
      return this;
    }
    return new Log(out, threshold, redactor, tag + "[" + newTag + "] ", lock, format, tagFields + tagField(newTag));
  }

  /** A tag as a JSON member: {@code session <id>} and {@code pool child <n>} by name, anything else as the component. */
  private String tagField(String newTag) {
    if (newTag.startsWith("session ")) {
      return ",\"session\":" + Json.quote(newTag.substring("session ".length()));
    }
    if (newTag.startsWith("pool child ")) {
      return ",\"component\":\"pool\",\"child\":" + Json.quote(newTag.substring("pool child ".length()));
    }
    return ",\"component\":" + Json.quote(newTag);
  }

  public Format format() {
    return format;
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
    if (format == Format.JSON) {
      emit(jsonLine("info", ",\"source\":" + Json.quote(source) + ",\"stderr\":" + Json.quote(redactor.scrub(visible(text)))));
      return;
    }
    String line = source + OUTPUT_MARK + visible(text);
    write(Level.INFO, "", line, redactor.scrub(line));
  }

  /**
   * A line at {@code level} that has fields as well as a message (the access log's request): in
   * text the message alone, in JSON the message and the fields, given as name, value pairs (a
   * {@link Number} written as a number, anything else as a string, null values left out).
   */
  public void event(Level level, String message, Object... fields) {
    if (level.ordinal() < threshold.ordinal()) {
      return;
    }
    if (format == Format.TEXT) {
      write(level, labelOf(level), message);
      return;
    }
    StringBuilder members = new StringBuilder(",\"message\":").append(Json.quote(redactor.scrub(message).stripTrailing()));
    for (int i = 0; i + 1 < fields.length; i += 2) {
      Object value = fields[i + 1];
      if (value == null) {
        continue;
      }
      members.append(',').append(Json.quote(String.valueOf(fields[i]))).append(':')
          .append(value instanceof Number n ? n.toString() : Json.quote(redactor.scrub(String.valueOf(value))));
    }
    emit(jsonLine(level.name().toLowerCase(java.util.Locale.ROOT), members.toString()));
  }

  private static String labelOf(Level level) {
    return switch (level) {
      case DEBUG -> "debug: ";
      case WARN -> "warning: ";
      case ERROR -> "error: ";
      default -> "";
    };
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
    if (format == Format.JSON) {
      // a notice or prompt is WARN for the threshold but says nothing is wrong
      String name = label.isEmpty() && level == Level.WARN ? "notice" : level.name().toLowerCase(java.util.Locale.ROOT);
      emit(jsonLine(name, ",\"message\":" + Json.quote(clean)));
      return;
    }
    StringBuilder text = new StringBuilder(clean.length() + 32);
    for (String line : clean.split("\r\n|\r|\n", -1)) {
      text.append(PREFIX).append(tag).append(label).append(line).append('\n');
    }
    emit(text);
  }

  /** {@code {"time":...,"level":...<tags><members>}} and its newline. */
  private String jsonLine(String level, String members) {
    return "{\"time\":\"" + java.time.Instant.ofEpochMilli(System.currentTimeMillis()) + "\",\"level\":\"" + level + "\""
        + tagFields + members + "}\n";
  }

  private void emit(CharSequence text) {
    lock.lock();
    try {
      out.print(text);
      out.flush();
    } finally {
      lock.unlock();
    }
  }
}
