package dev.mcpstdio.interop;

import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.LineCollector;
import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import tools.jackson.databind.JsonNode;

/**
 * The MCP 2026-07-28 era peers of {@code src/test/node/era2026}, at the versions pinned there
 * (the TypeScript SDK v2: {@code @modelcontextprotocol/server} 2.4.0 with {@code
 * @modelcontextprotocol/node} 2.0.0, and {@code @modelcontextprotocol/client} 2.4.0), installed
 * from the npm registry by {@link NodePeers#era2026()}. Skips the calling test when Node.js is
 * missing (fails under {@code CI=true}).
 *
 * <p>{@link #server(Mode)} starts {@code server.mjs} on an ephemeral loopback port; {@link
 * #client(List, Duration)} and {@link #clientOverHttp(String, Duration)} run {@code client.mjs}'s
 * scripted sequence as a 2026 host, over stdio against a command it spawns (the relay) or straight
 * over HTTP. Every process started here is owned: a server ends with {@link Server#close()} (its
 * stdin closed, then SIGTERM, then SIGKILL, each waited for), a client run ends within its bound
 * with its whole tree killed, and both also end on their own when the test JVM dies (the server
 * exits on stdin EOF; the client's stdio child, the relay, exits on its own stdin EOF).
 */
final class Era2026Peers {

  /** Bound on the server printing its LISTENING line. */
  static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  /** Bound on each step of a shutdown ladder. */
  static final Duration STOP_STEP = Duration.ofSeconds(5);

  private Era2026Peers() {}

  /** What {@code server.mjs} serves on its endpoint. */
  enum Mode {
    /** 2026-07-28 only ({@code createMcpHandler(factory, {legacy: 'reject'})}). */
    MODERN,
    /** 2026-07-28 plus a session-based 2025-era leg that sends real server-to-client requests. */
    DUAL;

    String arg() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** Starts {@code server.mjs 0 <mode>} and waits for its URL. */
  static Server server(Mode mode) {
    Path folder = NodePeers.era2026();
    List<String> command = List.of(NodePeers.node().toString(), folder.resolve("server.mjs").toString(), "0", mode.arg());
    try {
      return new Server(new ProcessBuilder(command).directory(folder.toFile()).start());
    } catch (IOException e) {
      throw new AssertionError("cannot start " + command + ": " + e, e);
    }
  }

  /** Runs {@code client.mjs stdio <command...>}: the 2026 host spawns {@code command} and speaks stdio to it. */
  static ClientRun client(List<String> command, Duration timeout) {
    List<String> args = new ArrayList<>(List.of("stdio"));
    args.addAll(command);
    return runClient("client.mjs", args, timeout);
  }

  /** Runs {@code client.mjs http <url>}: the 2026 host speaks Streamable HTTP to {@code url} itself. */
  static ClientRun clientOverHttp(String url, Duration timeout) {
    return runClient("client.mjs", List.of("http", url), timeout);
  }

  /** Runs {@code serve-client.mjs <url> <mode>}: the v2 client against serve in front of the demo ({@code pin} or {@code auto}). */
  static ClientRun serveClient(String url, String mode, Duration timeout) {
    return runClient("serve-client.mjs", List.of(url, mode), timeout);
  }

  private static ClientRun runClient(String script, List<String> args, Duration timeout) {
    Path folder = NodePeers.era2026();
    List<String> command = new ArrayList<>(List.of(NodePeers.node().toString(), folder.resolve(script).toString()));
    command.addAll(args);
    Path out;
    Path err;
    try {
      out = Files.createTempFile("era2026-client", ".out");
      err = Files.createTempFile("era2026-client", ".err");
    } catch (IOException e) {
      throw new AssertionError("cannot create the client's output files: " + e, e);
    }
    Process process;
    try {
      process = new ProcessBuilder(command).directory(folder.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    } catch (IOException e) {
      throw new AssertionError("cannot start " + command + ": " + e, e);
    }
    boolean timedOut = false;
    try {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        timedOut = true;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      timedOut = true;
    } finally {
      killTree(process); // a no-op for a client that exited and reaped its child
    }
    try {
      List<JsonNode> steps = new ArrayList<>();
      for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
        if (!line.isBlank()) {
          steps.add(Jsons.parse(line));
        }
      }
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      return new ClientRun(timedOut ? -1 : process.exitValue(), steps, stderr);
    } catch (IOException e) {
      throw new AssertionError("cannot read the client's output: " + e, e);
    } finally {
      try {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      } catch (IOException ignored) {
        // temp files; the OS cleans up
      }
    }
  }

  /** Ends a process and every descendant seen now: SIGTERM, a bounded wait, then SIGKILL; all reaped. */
  static void killTree(Process process) {
    List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
    tree.add(process.toHandle());
    tree.forEach(ProcessHandle::destroy);
    for (ProcessHandle p : tree) {
      try {
        p.onExit().get(STOP_STEP.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        p.destroyForcibly();
      }
    }
    try {
      process.waitFor(STOP_STEP.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** One run of {@code client.mjs}: its exit code (-1 when it was killed at its bound) and its step lines. */
  record ClientRun(int exitCode, List<JsonNode> steps, String stderr) {

    /** The line of step {@code name}, or an assertion error naming what the run printed. */
    JsonNode step(String name) {
      return steps.stream().filter(s -> name.equals(s.path("step").asString(""))).findFirst()
          .orElseThrow(() -> new AssertionError("client printed no step '" + name + "'" + this));
    }

    @Override
    public String toString() {
      return "\nexit " + exitCode + "\nsteps:\n  " + String.join("\n  ", steps.stream().map(JsonNode::toString).toList())
          + "\nclient stderr:\n" + stderr;
    }
  }

  /** A running {@code server.mjs}. */
  static final class Server implements AutoCloseable {

    private final Process process;
    private final LineCollector stdout = new LineCollector();
    private final LineCollector stderr = new LineCollector();
    private final int port;

    private Server(Process process) {
      this.process = process;
      stdout.collect(process.getInputStream());
      stderr.collect(process.getErrorStream());
      String line;
      try {
        line = stdout.nextMatching(l -> l.startsWith("LISTENING "), START_TIMEOUT);
      } catch (AssertionError e) {
        close();
        throw new AssertionError("era2026 server did not start: " + e.getMessage() + "\nstderr:\n" + log(), e);
      }
      port = Integer.parseInt(line.split(" ")[1].trim());
    }

    int port() {
      return port;
    }

    /** The MCP endpoint, {@code http://127.0.0.1:<port>/mcp}. */
    String url() {
      return "http://127.0.0.1:" + port + "/mcp";
    }

    /** What the server wrote to stderr so far (a line per HTTP request, among others). */
    String log() {
      return String.join("\n", stderr.snapshot());
    }

    boolean isAlive() {
      return process.isAlive();
    }

    /** Closes the server's stdin (it exits on EOF), then SIGTERM, then SIGKILL, each step bounded. */
    @Override
    public void close() {
      try {
        process.getOutputStream().close();
        if (process.waitFor(STOP_STEP.toMillis(), TimeUnit.MILLISECONDS)) {
          return;
        }
      } catch (IOException ignored) {
        // already closed: go on with signals
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      killTree(process);
    }
  }
}
