package dev.mcpstdio.conformance;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import dev.mcpstdio.testing.NodePeers;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** Reading what the conformance CLI wrote: one folder per run, with a {@code checks.json}. */
final class ConformanceRuns {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  private ConformanceRuns() {}

  /** The suite's CLI script, installed from npm on first use (skips without Node, fails under CI). */
  static Path cli() {
    NodePeers.assumeNode();
    return cliIn(NodePeers.conformance());
  }

  /** The same for the suite's pre-release (its newer scenarios). */
  static Path cliNext() {
    NodePeers.assumeNode();
    return cliIn(NodePeers.conformanceNext());
  }

  private static Path cliIn(Path installed) {
    Path cli = installed.resolve("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    if (!Files.isRegularFile(cli)) {
      throw new AssertionError("conformance CLI missing at " + cli);
    }
    return cli;
  }

  /**
   * The CLI's run folders are named {@code <prefix>-<ISO time with ':' and '.' as '-'>}; matching
   * the time exactly keeps a scenario whose name extends another's (one folder beside the other
   * when the CLI runs a whole set) from being taken for it.
   */
  private static final String RUN_TIME = "-\\d{4}-\\d{2}-\\d{2}T\\d{2}-\\d{2}-\\d{2}-\\d{3}Z";

  /** The newest run folder named {@code prefix-<time>} that holds checks, or null. */
  static Path newestRunDir(Path results, String prefix) throws IOException {
    Pattern name = Pattern.compile(Pattern.quote(prefix) + RUN_TIME);
    try (Stream<Path> dirs = Files.list(results)) {
      return dirs.filter(Files::isDirectory)
          .filter(d -> name.matcher(d.getFileName().toString()).matches())
          .filter(d -> Files.isRegularFile(d.resolve("checks.json")))
          .max(Comparator.comparing(d -> d.getFileName().toString()))
          .orElse(null);
    }
  }

  static List<JsonNode> readChecks(Path file) {
    List<JsonNode> checks = new ArrayList<>();
    JSON.readTree(file.toFile()).forEach(checks::add);
    return checks;
  }

  static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    }
  }
}
