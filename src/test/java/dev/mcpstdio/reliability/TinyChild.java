package dev.mcpstdio.reliability;

import java.util.List;

/**
 * Stdio MCP servers for the serve cases, as {@code sh -c} scripts: small, no JVM per session, so
 * that what is measured is serve. (The gateway itself never runs a shell; the suite's test child
 * may.)
 */
final class TinyChild {
  /**
   * Answers every request line that has an id with an initialize result whose
   * {@code serverInfo.version} is the child's pid (so the suite can tell which process serves
   * which session); notifications are read and dropped.
   */
  static final String ANSWER_LOOP = "while IFS= read -r line; do case \"$line\" in *'\"id\":'*)"
      + " id=${line#*\\\"id\\\":}; id=${id%%[,\\}]*};"
      + " printf '{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
      + "\"serverInfo\":{\"name\":\"tiny\",\"version\":\"%s\"}}}\\n' \"$id\" \"$$\";; esac; done";

  static List<String> polite() {
    return List.of("sh", "-c", ANSWER_LOOP);
  }

  /**
   * The hostile child: ignores SIGTERM (and so do the {@code sleep}s it starts, as an ignored
   * signal stays ignored across exec), forks a {@code sleep}, double-forks another (its parent
   * exits at once, so it is re-parented), writes {@code floodLines} lines of 100 bytes to stderr
   * as fast as the pipe takes them, answers initialize, then ignores stdin EOF and lives on.
   * Every descendant carries {@code MCP_RELIABILITY_SESSION=<the child's pid>}.
   *
   * @param escape also start a grandchild in a session of its own ({@code setsid}), out of the
   *     child's process group
   */
  static List<String> hostile(long floodLines, boolean escape) {
    String line = "x".repeat(99);
    String script = "trap '' TERM HUP INT; export MCP_RELIABILITY_SESSION=$$;"
        + " sleep 600 & ( sleep 601 & ) ;"
        + (escape ? " ( setsid sleep 602 & ) ;" : "")
        + " ( yes " + line + " | head -n " + floodLines + " >&2 ) &"
        + " " + ANSWER_LOOP.replace("done", "done; while :; do sleep 1; done");
    return List.of("sh", "-c", script);
  }

  private TinyChild() {}
}
