package dev.mcpstdio.serve;

import dev.mcpstdio.serve.era2025.Sessions;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code GET /readyz} checks: a new session could be started now. That needs a free session
 * slot and a command that resolves to an executable file (as the OS would find it on PATH).
 * Spawning a real child per probe would cost a process start every few seconds for nothing.
 */
final class Readiness {

  private final ServeConfig config;
  private final Sessions sessions;

  Readiness(ServeConfig config, Sessions sessions) {
    this.config = config;
    this.sessions = sessions;
  }

  /** Null when ready, else the reason. */
  String problem() {
    if (sessions.full()) {
      return "session limit reached (" + config.maxSessions() + ")";
    }
    String program = config.child().argv().getFirst();
    return resolve(program, System.getenv("PATH")) == null ? "command not found or not executable: " + program : null;
  }

  static Path resolve(String program, String pathVariable) {
    if (program.contains("/") || program.contains(File.separator)) {
      Path p = Path.of(program);
      return Files.isRegularFile(p) && Files.isExecutable(p) ? p : null;
    }
    if (pathVariable == null) {
      return null;
    }
    for (String dir : pathVariable.split(File.pathSeparator)) {
      if (dir.isEmpty()) {
        continue;
      }
      for (String suffix : File.separatorChar == '\\' ? new String[] {"", ".exe", ".cmd", ".bat"} : new String[] {""}) {
        Path candidate = Path.of(dir, program + suffix);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }
}
