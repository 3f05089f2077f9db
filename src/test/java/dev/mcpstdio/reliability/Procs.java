package dev.mcpstdio.reliability;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The processes of one run, found by an environment variable set in serve's environment and
 * inherited by its descendants (Linux /proc). The suite kills only processes that carry its token,
 * never by name.
 */
final class Procs {
  static final String TOKEN_VARIABLE = "MCP_RELIABILITY_TOKEN";

  /** One process: its pid, command name and parent. */
  record Proc(long pid, long ppid, String comm) {}

  static String newToken() {
    byte[] b = new byte[12];
    new SecureRandom().nextBytes(b);
    return HexFormat.of().formatHex(b);
  }

  /** Every live (not zombie) process whose environment holds {@code name=value}. */
  static List<Proc> withEnv(String name, String value) {
    byte[] wanted = (name + "=" + value).getBytes(StandardCharsets.UTF_8);
    List<Proc> found = new ArrayList<>();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
      for (Path dir : all) {
        try {
          if (holds(Files.readAllBytes(dir.resolve("environ")), wanted)) {
            stat(dir).ifPresent(found::add);
          }
        } catch (IOException | RuntimeException e) {
          // gone, or not ours to read
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return found;
  }

  static List<Proc> ofToken(String token) {
    return withEnv(TOKEN_VARIABLE, token);
  }

  /** SIGKILLs every process that carries {@code token}, re-checking each one's environment. */
  static int killAll(String token) {
    int killed = 0;
    for (Proc p : ofToken(token)) {
      if (ProcessHandle.of(p.pid()).map(ProcessHandle::destroyForcibly).orElse(false)) {
        killed++;
      }
    }
    return killed;
  }

  private static Optional<Proc> stat(Path dir) throws IOException {
    String stat = Files.readString(dir.resolve("stat"));
    int close = stat.lastIndexOf(')');
    String comm = stat.substring(stat.indexOf('(') + 1, close);
    String[] rest = stat.substring(close + 2).split(" ");
    if (rest[0].equals("Z") || rest[0].equals("X")) {
      return Optional.empty(); // a zombie holds nothing but its slot: not "alive"
    }
    return Optional.of(new Proc(Long.parseLong(dir.getFileName().toString()), Long.parseLong(rest[1]), comm));
  }

  private static boolean holds(byte[] environ, byte[] wanted) {
    int start = 0;
    for (int i = 0; i <= environ.length; i++) {
      if (i == environ.length || environ[i] == 0) {
        if (i - start == wanted.length && java.util.Arrays.equals(environ, start, i, wanted, 0, wanted.length)) {
          return true;
        }
        start = i + 1;
      }
    }
    return false;
  }

  /** Open file descriptors and threads of one process now; -1 when it is gone. */
  static int[] fdsAndThreads(long pid) {
    try {
      String[] fds = new java.io.File("/proc/" + pid + "/fd").list();
      int threads = -1;
      for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
        if (line.startsWith("Threads:")) {
          threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
        }
      }
      return new int[] {fds == null ? -1 : fds.length, threads};
    } catch (IOException | RuntimeException e) {
      return new int[] {-1, -1};
    }
  }

  private Procs() {}
}
