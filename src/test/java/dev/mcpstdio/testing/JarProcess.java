package dev.mcpstdio.testing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The packaged {@code target/mcp-stdio.jar} as a real child process, with the launcher's JVM
 * flags, stdin to write, stdout split into lines and stderr collected.
 */
public final class JarProcess implements AutoCloseable {

  /** The launcher's stdio-safe JVM flags (see ARCHITECTURE.md, invariant 1). */
  public static final List<String> JVM_FLAGS =
      List.of("-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr", "-XX:+UseSerialGC");

  public final Process process;
  public final LineCollector stdout = new LineCollector();
  public final LineCollector stderr = new LineCollector();
  private final OutputStream stdin;

  private JarProcess(Process process) {
    this.process = process;
    this.stdin = process.getOutputStream();
    stdout.collect(process.getInputStream());
    stderr.collect(process.getErrorStream());
  }

  public static Path jar() {
    String jar = System.getProperty("mcpstdio.jar");
    Path path = jar != null ? Path.of(jar) : NodePeers.basedir().resolve("target/mcp-stdio.jar");
    if (!Files.isRegularFile(path)) {
      throw new AssertionError("packaged jar not found at " + path + " (process tests run in mvn verify)");
    }
    return path;
  }

  public static String java() {
    return ProcessHandle.current().info().command().orElse("java");
  }

  /** Starts {@code java FLAGS -jar mcp-stdio.jar ARGS}. */
  public static JarProcess start(List<String> args) {
    return start(List.of(), args, Map.of());
  }

  public static JarProcess start(List<String> extraJvmFlags, List<String> args, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(java());
    command.addAll(JVM_FLAGS);
    command.addAll(extraJvmFlags);
    command.add("-jar");
    command.add(jar().toString());
    command.addAll(args);
    return command(command, env);
  }

  /** The project's launcher script ({@code ./mcp-stdio ARGS}), as a host spawns it. */
  public static JarProcess launcher(List<String> args, Map<String, String> env) {
    List<String> command = new ArrayList<>();
    command.add(NodePeers.basedir().resolve("mcp-stdio").toString());
    command.addAll(args);
    return command(command, env);
  }

  private static JarProcess command(List<String> command, Map<String, String> env) {
    ProcessBuilder builder = new ProcessBuilder(command);
    builder.environment().putAll(env);
    return spawn(builder);
  }

  /** Any command set up by the caller (its environment, its folder), with stdio as above. */
  public static JarProcess spawn(ProcessBuilder builder) {
    try {
      return new JarProcess(builder.start());
    } catch (IOException e) {
      throw new AssertionError("cannot start " + builder.command() + ": " + e);
    }
  }

  public void send(String line) {
    try {
      stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
    } catch (IOException e) {
      throw new AssertionError("stdin closed: " + e);
    }
  }

  public void closeStdin() {
    try {
      stdin.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  /** Waits for exit up to {@code timeout} and returns the exit code. */
  public int awaitExit(Duration timeout) {
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError("process did not exit within " + timeout + "; stderr:\n" + log());
      }
      return process.exitValue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }

  /**
   * Sends SIGTERM (on POSIX) and nothing else: {@code Process.destroy()} would also close this
   * side's pipes, so the relay would see EOF and a broken stdout at the same moment.
   */
  public void terminate() {
    process.toHandle().destroy();
  }

  public String log() {
    return String.join("\n", stderr.snapshot());
  }

  @Override
  public void close() {
    process.destroyForcibly();
    try {
      process.waitFor(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
