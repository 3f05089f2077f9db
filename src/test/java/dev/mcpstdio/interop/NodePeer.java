package dev.mcpstdio.interop;

import dev.mcpstdio.testing.LineCollector;
import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The TypeScript SDK Streamable HTTP peer ({@code src/test/node/streamable-server.mjs}) as a
 * child process on an ephemeral loopback port. Skips the calling test when Node.js is missing
 * (fails under {@code CI=true}), through {@link NodePeers}.
 */
final class NodePeer implements AutoCloseable {

  final Process process;
  final int port;
  final LineCollector stdout = new LineCollector();
  final LineCollector stderr = new LineCollector();

  private NodePeer(Process process) {
    this.process = process;
    stdout.collect(process.getInputStream());
    stderr.collect(process.getErrorStream());
    String line;
    try {
      line = stdout.nextMatching(l -> l.startsWith("LISTENING "), Duration.ofSeconds(30));
    } catch (AssertionError e) {
      close();
      throw new AssertionError("node peer did not start: " + e.getMessage() + "\nstderr:\n" + log(), e);
    }
    port = Integer.parseInt(line.substring("LISTENING ".length()).trim());
  }

  /** Starts the peer: {@code mode} is "sse" or "json"; flags are "resumable", "paged". */
  static NodePeer start(String mode, String... flags) {
    List<String> args = new ArrayList<>(List.of("0", mode));
    args.addAll(List.of(flags));
    return script("streamable-server.mjs", args);
  }

  /** Starts another peer script of {@code src/test/node} with {@code args}. */
  static NodePeer script(String script, List<String> args) {
    Path folder = NodePeers.interopPeers();
    List<String> command = new ArrayList<>();
    command.add(NodePeers.node().toString());
    command.add(folder.resolve(script).toString());
    command.addAll(args);
    try {
      return new NodePeer(new ProcessBuilder(command).directory(folder.toFile()).start());
    } catch (IOException e) {
      throw new AssertionError("cannot start " + command + ": " + e);
    }
  }

  String url() {
    return "http://127.0.0.1:" + port + "/mcp";
  }

  String log() {
    return String.join("\n", stderr.snapshot());
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(5, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
