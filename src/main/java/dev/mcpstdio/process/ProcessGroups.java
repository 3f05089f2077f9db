package dev.mcpstdio.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the platform lets it, each child leads a process group (and session) of its own, so that
 * signals reach everything it started, double-forked descendants included.
 *
 * <p>On Linux with util-linux {@code setsid} on the PATH (Debian, Ubuntu, Fedora and most
 * distributions install it by default), a child is spawned as {@code setsid -- <program> <args>}:
 * setsid calls setsid(2) and exec's the argv as given, no shell in between. A process started by
 * the JVM never leads a group, so setsid does not fork: the child's pid is its group's and
 * session's id. Its members are found through {@code /proc} ({@link ProcessTree}); the
 * {@link Watchdog} signals the group as a whole and ends it when the gateway dies, whatever kills
 * the gateway.
 *
 * <p>Elsewhere (macOS has no setsid binary; Windows has neither process groups nor a shell)
 * children are spawned plainly and {@link ChildProcess#close} reaches what
 * {@link ProcessHandle#descendants()} still shows: a descendant that double-forked, and every
 * descendant once the gateway is SIGKILLed, can escape there (docs/reference.md says so).
 *
 * <p>A group does not hold a descendant that calls setsid(2) (or setpgid(2)) itself: such a
 * descendant is found by the cookie in its environment instead ({@link ProcessTree}). Nothing here
 * catches a descendant that also cleared its environment, nor anything after the gateway's SIGKILL
 * when the watchdog was killed first; only a cgroup (systemd's {@code KillMode}, a container)
 * bounds those.
 */
final class ProcessGroups {

  /** setsid, or null when children cannot get a group of their own here. */
  private static final Path SETSID = find();

  private ProcessGroups() {}

  /** True when children get a process group of their own on this machine. */
  static boolean available() {
    return SETSID != null;
  }

  private static Path find() {
    if (!System.getProperty("os.name", "").equals("Linux") || !Files.isDirectory(Path.of("/proc/self"))) {
      return null;
    }
    Path setsid = onPath("setsid");
    return setsid != null && onPath("sh") != null ? setsid : null;
  }

  /** The first executable {@code name} in the gateway's PATH, or null. */
  static Path onPath(String name) {
    String path = System.getenv("PATH");
    for (String dir : (path == null ? "/usr/bin:/bin" : path).split(":")) {
      if (dir.isEmpty()) {
        continue;
      }
      Path candidate = Path.of(dir, name);
      if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
        return candidate.toAbsolutePath();
      }
    }
    return null;
  }

  /**
   * The argv that starts {@code spec} as the leader of a new session: setsid, then the program
   * resolved the way the JVM resolves it (the gateway's PATH; relative to the working directory
   * when it names a path), then its arguments unchanged.
   *
   * @throws IOException when the program is not found or not executable, as the JVM would report
   *     it for a plain spawn (setsid would only report it on the child's stderr, after the start)
   */
  static List<String> leaderArgv(List<String> argv, Path workingDirectory) throws IOException {
    List<String> wrapped = new ArrayList<>(argv.size() + 2);
    wrapped.add(SETSID.toString());
    wrapped.add("--");
    wrapped.add(resolve(argv.getFirst(), workingDirectory));
    wrapped.addAll(argv.subList(1, argv.size()));
    return wrapped;
  }

  /** {@code argv} for a process that must itself be out of reach of signals to the gateway's group. */
  static List<String> detachedArgv(List<String> argv) {
    List<String> wrapped = new ArrayList<>(argv.size() + 2);
    wrapped.add(SETSID.toString());
    wrapped.add("--");
    wrapped.addAll(argv);
    return wrapped;
  }

  private static String resolve(String program, Path workingDirectory) throws IOException {
    if (program.contains("/")) {
      Path p = Path.of(program);
      Path file = p.isAbsolute() || workingDirectory == null ? p : workingDirectory.resolve(p);
      if (!Files.exists(file)) {
        throw new IOException("Cannot run program \"" + program + "\": error=2, No such file or directory");
      }
      if (!Files.isRegularFile(file) || !Files.isExecutable(file)) {
        throw new IOException("Cannot run program \"" + program + "\": error=13, Permission denied");
      }
      return program; // setsid runs in the working directory already
    }
    Path found = onPath(program);
    if (found == null) {
      throw new IOException("Cannot run program \"" + program + "\": error=2, No such file or directory");
    }
    return found.toString();
  }
}
