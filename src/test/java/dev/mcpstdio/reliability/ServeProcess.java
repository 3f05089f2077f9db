package dev.mcpstdio.reliability;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real launcher's {@code serve} as a process for the serve cases: started on a free loopback
 * port with {@link Procs#TOKEN_VARIABLE} in its environment (inherited by every child, so that the
 * suite finds, and kills, only what it started), its stderr copied to a file under target/ and
 * counted as it arrives: bytes, lines, lines that look like a stack trace, lines about failed
 * accepts.
 */
final class ServeProcess implements AutoCloseable {
  private static final Pattern URL = Pattern.compile(" at (http://\\S+?)(/mcp)? ");

  final Process process;
  final String token;
  final Path log;
  private final CompletableFuture<URI> base = new CompletableFuture<>();
  final AtomicLong logBytes = new AtomicLong();
  final AtomicLong logLines = new AtomicLong();
  final AtomicLong stackLines = new AtomicLong();
  final AtomicLong acceptLines = new AtomicLong();

  /**
   * @param prefix run before the launcher, e.g. {@code prlimit --nofile=256:256 --}; empty for none
   * @param args serve's options and, optionally, its COMMAND
   */
  ServeProcess(String name, List<String> prefix, List<String> args) throws IOException {
    this.token = Procs.newToken();
    List<String> command = new ArrayList<>(prefix);
    command.add(Path.of("mcp-stdio").toAbsolutePath().toString());
    command.add("serve");
    command.add("--port=0");
    command.addAll(args);
    Files.createDirectories(Path.of("target"));
    this.log = Path.of("target", "reliability-" + name + ".log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
    builder.environment().put(Procs.TOKEN_VARIABLE, token);
    this.process = builder.start();
    Thread.ofPlatform().daemon().name("serve-stderr").start(this::pumpStderr);
  }

  /** The endpoint's base, e.g. {@code http://127.0.0.1:40123}, once serve said where it listens. */
  URI base() throws Exception {
    return base.get(120, TimeUnit.SECONDS);
  }

  long pid() {
    return process.pid();
  }

  private void pumpStderr() {
    try (OutputStream file = Files.newOutputStream(log);
        BufferedReader err = new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = err.readLine()) != null) {
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        file.write(bytes);
        logBytes.addAndGet(bytes.length);
        logLines.incrementAndGet();
        if (line.startsWith("\tat ") || line.startsWith("Caused by:") || line.matches("^\\S*(Exception|Error)(: .*)?$")) {
          stackLines.incrementAndGet();
        }
        if (line.contains("cannot accept connections")) {
          acceptLines.incrementAndGet();
        }
        if (!base.isDone()) {
          Matcher m = URL.matcher(line);
          if (line.contains("serving ") && m.find()) {
            base.complete(URI.create(m.group(1)));
          }
        }
      }
    } catch (IOException e) {
      // serve is gone
    } finally {
      base.completeExceptionally(new IOException("serve ended before it said where it listens; see " + log));
    }
  }

  /** Stops serve with SIGTERM, then SIGKILL after 15 s; returns the exit code. */
  int stop() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
    return process.exitValue();
  }

  @Override
  public void close() throws InterruptedException {
    if (process.isAlive()) {
      stop();
    }
    Procs.killAll(token); // whatever of this run's is left
  }
}
