package dev.mcpstdio.serve.era2026;

import java.util.List;

/**
 * MCP's log levels (RFC 5424's, least severe first) as severities. A 2026-era request asks for log
 * messages with {@code _meta["io.modelcontextprotocol/logLevel"]}; a message reaches it only at or
 * above that level, and not at all without one.
 */
final class LogLevels {

  /** No level requested: no log message passes. */
  static final int NONE = Integer.MAX_VALUE;

  private static final List<String> LEVELS =
      List.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");

  private LogLevels() {}

  /** The severity of {@code level} (0 = debug); an unknown or absent level counts as the most severe, so it is never hidden. */
  static int severity(String level) {
    int i = level == null ? -1 : LEVELS.indexOf(level);
    return i < 0 ? LEVELS.size() - 1 : i;
  }

  /** The threshold a request asked for: the severity of a known level, else {@link #NONE}. */
  static int threshold(String requested) {
    int i = requested == null ? -1 : LEVELS.indexOf(requested);
    return i < 0 ? NONE : i;
  }
}
