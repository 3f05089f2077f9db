package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code serve.era2026}'s rules are pure (its package-info): no HTTP, no Jetty, no processes, no
 * I/O, no logging; only the classes of {@link #IO_CLASSES} do I/O, using them. Its sources may import only the JDK's {@code java.util}, {@code java.time},
 * {@code java.math}, {@code java.nio.charset}, {@code java.security} and {@code javax.crypto},
 * Jackson core, {@code jsonrpc} and {@code protocol}, and never name a process or a thread.
 */
class Era2026PackagePurityTest {

  private static final Path DIR = Path.of("src", "main", "java", "dev", "mcpstdio", "serve", "era2026");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)");
  private static final List<String> ALLOWED = List.of("java.util.", "java.time.", "java.math.", "java.nio.charset.",
      "java.security.", "javax.crypto.", "com.fasterxml.jackson.core.", "dev.mcpstdio.jsonrpc.", "dev.mcpstdio.protocol.");

  /**
   * The path's I/O: the endpoint (Jetty), the pool and its children (processes: the probe, the
   * process started ahead of need, the hand-over of their output), and what the gateway reads of them.
   */
  static final List<String> IO_CLASSES = List.of("Era2026Endpoint.java", "ChildPool.java", "PooledChild.java",
      "Principals.java", "LogLevels.java", "ListenHub.java", "ChildEvents.java", "ChildProbe.java", "ChildStarter.java", "HandOver.java", "WarmProcess.java", "ReverseBridge.java");

  @Test
  void importsOnlyPureDependencies() throws IOException {
    List<Path> sources;
    try (Stream<Path> files = Files.list(DIR)) {
      sources = files.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(sources).extracting(p -> p.getFileName().toString()).contains("ValidationLadder.java", "package-info.java");
    List<String> offending = new ArrayList<>();
    for (Path source : sources) {
      if (IO_CLASSES.contains(source.getFileName().toString())) {
        continue;
      }
      String text = Files.readString(source);
      Matcher imports = IMPORT.matcher(text);
      while (imports.find()) {
        String name = imports.group(1);
        if (ALLOWED.stream().noneMatch(name::startsWith)) {
          offending.add(source.getFileName() + " imports " + name);
        }
      }
      for (String banned : List.of("ProcessBuilder", "new Thread", "Thread.sleep", "System.out", "System.err", "org.eclipse.jetty")) {
        if (text.contains(banned)) {
          offending.add(source.getFileName() + " names " + banned);
        }
      }
    }
    assertThat(offending).isEmpty();
  }
}
