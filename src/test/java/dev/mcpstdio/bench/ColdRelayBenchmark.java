package dev.mcpstdio.bench;

import dev.mcpstdio.testing.NodePeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The relay as a user meets it (issue 15; {@code bench/relay-cold.sh}): installs the pinned Node
 * peers (the TypeScript SDK 1.32.2) and runs {@code src/test/node/cold-host.mjs}, a Node host on
 * the stdio of a fresh relay per run against the SDK's Streamable HTTP server with event-stream
 * replies, beside the same calls made directly. Arguments pass through to the host (--runs,
 * --calls, --json); --launcher names the relay's launcher (default ./mcp-stdio). The relay's
 * state folder is target/bench-state, kept between runs, as a user's is between spawns.
 */
public final class ColdRelayBenchmark {

  private ColdRelayBenchmark() {}

  public static void main(String[] args) throws Exception {
    String launcher = Path.of("mcp-stdio").toAbsolutePath().toString();
    List<String> pass = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--launcher")) {
        launcher = Path.of(args[++i]).toAbsolutePath().toString();
      } else {
        pass.add(args[i]);
      }
    }
    Path peers = NodePeers.interopPeers();
    Path state = NodePeers.basedir().resolve("target/bench-state").toAbsolutePath();
    Files.createDirectories(state);
    List<String> command = new ArrayList<>(List.of(NodePeers.node().toString(), peers.resolve("cold-host.mjs").toString(),
        "--relay", launcher));
    command.addAll(pass);
    ProcessBuilder pb = new ProcessBuilder(command).inheritIO();
    pb.environment().put("XDG_STATE_HOME", state.toString());
    System.exit(pb.start().waitFor());
  }
}
