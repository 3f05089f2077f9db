package dev.mcpstdio.process;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One small POSIX {@code sh} process per gateway that holds the process groups of its children
 * and ends them, and every process carrying one of its children's cookies, when the gateway goes,
 * however it goes (SIGKILL and crashes included).
 *
 * <p>The gateway writes commands to the watchdog's stdin, one per line: {@code watch <pgid> [<start>]},
 * {@code forget <pgid>}, {@code TERM <pgid>}, {@code KILL <pgid>} (the last two signal the whole
 * group with {@code kill -s SIG -- -<pgid>}, which a single kill(2) delivers to every member at
 * once, a member forking meanwhile included). Only the gateway holds the write end of that pipe
 * (the JVM opens its pipes close-on-exec, so no child inherits it), so the pipe reaches EOF exactly
 * when the gateway's process is gone. Then the watchdog runs the shutdown ladder on the groups still
 * watched whose number is still the child's (no process has it as pid, or the one that has it
 * started when the child did: a child gone long before may have left its number to a stranger's
 * group) and on every process whose environment carries {@code MCP_STDIO_PROCESS_TREE=<this
 * gateway's token>-<number>} ({@link ProcessTree}: descendants that left their group by setsid(2)),
 * with {@link ChildProcess.Ladder#DEFAULT}'s waits: the children have seen EOF on their stdin
 * already; after the first wait, SIGTERM to each group still alive and to each carrier; after the
 * second, SIGKILL, then SIGKILL sweeps until none is left (ten at most); then it
 * exits. It ignores SIGINT, SIGHUP, SIGTERM and SIGQUIT and runs in a session of its own, so a
 * Ctrl-C or a signal to the gateway's group does not end it before its work.
 *
 * <p>Carriers are found with {@code grep -lzx} over {@code /proc/[0-9]*}{@code /environ} (one
 * process for the whole machine; GNU and BusyBox grep read NUL-separated records with {@code -z})
 * or, where grep has no {@code -z}, with {@code tr} and {@code grep -x} per process. A carrier is
 * named by its {@code /proc} path, which the shell's own glob produced, and checked to be a number
 * before it is signalled.
 *
 * <p>The shell only ever sees numbers and this gateway's token (32 hex digits) from the gateway,
 * never anything a child or client wrote, and the children's argv never passes through it. A
 * watchdog that died is started again on the next command and told every group still watched.
 */
final class Watchdog {

  /** The watchdog's {@code $0}: what {@code ps} shows for it. */
  static final String NAME = "mcp-stdio-watchdog";

  /**
   * {@code $1} and {@code $2}: the waits after stdin EOF and after SIGTERM, in seconds; {@code $3}:
   * the gateway's {@link ProcessTree#TOKEN}. The group list is a space-separated string; forget
   * removes one entry, since a group id freed by an ended child may come back for a new one before
   * the old one is forgotten. Once the gateway is gone, {@code live} keeps the groups still alive
   * whose number is still the child's ({@code ours}: {@code watch <pgid> <start>} gave the
   * leader's start time), and {@code carriers} lists the {@code /proc/<pid>/environ} paths that carry a cookie of this
   * gateway's, ten SIGKILL sweeps at most (a carrier may fork between a scan and its signal).
   */
  static final String SCRIPT = """
      trap '' INT HUP TERM QUIT PIPE
      cookie="MCP_STDIO_PROCESS_TREE=$3-[0-9][0-9]*"
      case $3 in ''|*[!0-9a-f]*) cookie= ;; esac
      groups=' '
      while read -r verb id start; do
        case $id in ''|*[!0-9]*) continue ;; esac
        case $verb in
          watch) groups="$groups$id "
            case $start in ''|*[!0-9]*) start= ;; esac
            eval "start_$id=\\$start" ;;
          forget) rest=' '; gone=
            for g in $groups; do
              if [ -z "$gone" ] && [ "$g" = "$id" ]; then gone=1; else rest="$rest$g "; fi
            done
            groups=$rest ;;
          TERM|KILL) kill -s "$verb" -- "-$id" 2>/dev/null ;;
        esac
      done
      if printf 'a\\0' | grep -qzx a 2>/dev/null; then
        carriers() { [ -z "$cookie" ] || grep -lzx -e "$cookie" /proc/[0-9]*/environ 2>/dev/null; }
      else
        carriers() {
          [ -z "$cookie" ] && return
          for f in /proc/[0-9]*/environ; do
            tr '\\0' '\\n' 2>/dev/null <"$f" | grep -qx -e "$cookie" && echo "$f"
          done
        }
      fi
      found=
      signal() {
        found=
        for f in $(carriers); do
          p=${f#/proc/}; p=${p%/environ}
          case $p in ''|*[!0-9]*) continue ;; esac
          kill -s "$1" "$p" 2>/dev/null && found=1
        done
      }
      starttime() {
        stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
        set -- ${stat##*) }
        shift 19
        echo "$1"
      }
      ours() {
        [ -e "/proc/$1" ] || return 0
        eval "want=\\${start_$1-}"
        [ -n "$want" ] && [ "$(starttime "$1")" = "$want" ]
      }
      live() {
        rest=' '
        for g in $groups; do kill -s 0 -- "-$g" 2>/dev/null && ours "$g" && rest="$rest$g "; done
        groups=$rest
        [ "$groups" != ' ' ] || [ -n "$(carriers)" ]
      }
      live || exit 0
      sleep "$1"
      live || exit 0
      for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
      signal TERM
      sleep "$2"
      live || exit 0
      for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
      sweeps=0
      while [ $sweeps -lt 10 ]; do
        signal KILL
        [ -n "$found" ] || break
        sweeps=$((sweeps + 1))
      done
      """;

  private static Watchdog instance; // guarded by Watchdog.class

  private final Map<Long, Integer> watched = new HashMap<>(); // guarded by this: group id -> children with it
  private final Map<Long, String> starts = new HashMap<>(); // guarded by this: group id -> its leader's start time
  private Process process; // guarded by this; null until started, or after it failed
  private OutputStream commands; // guarded by this

  private Watchdog() {}

  /** The gateway's watchdog, started with the first group it watches. */
  static synchronized Watchdog get() {
    if (instance == null) {
      instance = new Watchdog();
    }
    return instance;
  }

  /**
   * Watches group {@code pgid}: ended when the gateway dies.
   *
   * @return false when no watchdog could be started (the group is then only ended by close)
   */
  synchronized boolean watch(long pgid) {
    watched.merge(pgid, 1, Integer::sum);
    starts.put(pgid, ProcessTree.startTime(pgid)); // the leader's: a later holder of the number differs
    return send(watchCommand(pgid), true);
  }

  /** The group's child was closed and reaped: nothing to end on its behalf any more. */
  synchronized void forget(long pgid) {
    Integer count = watched.get(pgid);
    if (count == null) {
      return;
    }
    if (count == 1) {
      watched.remove(pgid);
    } else {
      watched.put(pgid, count - 1);
    }
    send("forget " + pgid, true);
  }

  /** {@code watch <pgid> <the leader's start time in clock ticks, or nothing>}: digits only. */
  private String watchCommand(long pgid) {
    String start = starts.get(pgid);
    return "watch " + pgid + (start == null ? "" : " " + start);
  }

  /** Sends SIGTERM ({@code kill} false) or SIGKILL to every member of group {@code pgid}. */
  synchronized boolean signal(long pgid, boolean kill) {
    return send((kill ? "KILL " : "TERM ") + pgid, false);
  }

  /** The watchdog's pid, or -1 when none runs. */
  synchronized long pid() {
    return process != null && process.isAlive() ? process.pid() : -1;
  }

  /**
   * Writes one command, starting the watchdog first when none runs.
   *
   * @param stateChange a watch or forget, already applied to {@link #watched}: a fresh watchdog
   *     learns it from the replay and must not be told twice
   */
  private boolean send(String command, boolean stateChange) {
    byte[] line = (command + "\n").getBytes(StandardCharsets.US_ASCII);
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        if (process == null || !process.isAlive()) {
          start();
          if (stateChange) {
            return true;
          }
        }
        commands.write(line);
        commands.flush();
        return true;
      } catch (IOException e) {
        process = null; // gone or never started: the next attempt starts one
      }
    }
    return false;
  }

  /** Starts the shell and tells it every group watched (a change being sent included). */
  private void start() throws IOException {
    Duration afterStdin = ChildProcess.Ladder.DEFAULT.afterStdinClosed();
    Duration afterTerm = ChildProcess.Ladder.DEFAULT.afterTerm();
    Process started = new ProcessBuilder(ProcessGroups.detachedArgv(List.of(ProcessGroups.onPath("sh").toString(),
        "-c", SCRIPT, NAME, seconds(afterStdin), seconds(afterTerm), ProcessTree.TOKEN)))
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    process = started;
    commands = started.getOutputStream();
    StringBuilder replay = new StringBuilder();
    watched.forEach((pgid, count) -> replay.append((watchCommand(pgid) + "\n").repeat(count)));
    commands.write(replay.toString().getBytes(StandardCharsets.US_ASCII));
    commands.flush();
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.3f", d.toMillis() / 1000.0);
  }
}
