package dev.mcpstdio.protocol;

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
 * ARCHITECTURE.md section 2: {@code protocol} sits on {@code jsonrpc} and below {@code relay} and
 * {@code serve}. Its sources may name only the JDK, Jackson core and {@code dev.mcpstdio.jsonrpc};
 * and {@code jsonrpc} must not name {@code protocol} (that would be a cycle).
 */
class ProtocolPackageDependenciesTest {

  private static final Path MAIN = Path.of("src", "main", "java", "dev", "mcpstdio");
  private static final Pattern IMPORT = Pattern.compile("(?m)^import\\s+(?:static\\s+)?([\\w.]+)");
  private static final Pattern PROJECT_NAME = Pattern.compile("\\bdev\\.mcpstdio\\.(\\w+)");

  @Test
  void protocolNamesOnlyTheJdkJacksonCoreAndJsonrpc() throws IOException {
    List<Path> sources = sources(MAIN.resolve("protocol"));
    assertThat(sources).extracting(p -> p.getFileName().toString()).contains("McpName.java", "package-info.java");
    List<String> offending = new ArrayList<>();
    for (Path source : sources) {
      String text = Files.readString(source);
      Matcher imports = IMPORT.matcher(text);
      while (imports.find()) {
        String name = imports.group(1);
        if (!(name.startsWith("java.")
            || name.startsWith("com.fasterxml.jackson.core.")
            || name.startsWith("dev.mcpstdio.jsonrpc.")
            || name.startsWith("dev.mcpstdio.protocol."))) {
          offending.add(source.getFileName() + " imports " + name);
        }
      }
      Matcher named = PROJECT_NAME.matcher(text);
      while (named.find()) {
        if (!named.group(1).equals("jsonrpc") && !named.group(1).equals("protocol")) {
          offending.add(source.getFileName() + " names " + named.group());
        }
      }
    }
    assertThat(offending).isEmpty();
  }

  @Test
  void jsonrpcDoesNotNameProtocol() throws IOException {
    List<Path> sources = sources(MAIN.resolve("jsonrpc"));
    assertThat(sources).isNotEmpty();
    for (Path source : sources) {
      assertThat(Files.readString(source)).as(source.toString()).doesNotContain("dev.mcpstdio.protocol");
    }
  }

  private static List<Path> sources(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      return files.filter(p -> p.toString().endsWith(".java")).toList();
    }
  }
}
