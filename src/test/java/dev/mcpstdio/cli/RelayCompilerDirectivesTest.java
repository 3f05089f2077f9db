package dev.mcpstdio.cli;

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
 * The relay's compiler directives (jvm/relay-compiler-directives.json, docs/performance.md): C2
 * only for the per-byte loops. A class renamed or moved would silently fall out of the list and
 * leave a large message's scan with C1, so every pattern must still name classes that exist, the
 * loops that touch every byte must be among them, and everything else must be excluded from C2.
 */
class RelayCompilerDirectivesTest {

  private static final Path FILE = Path.of("jvm/relay-compiler-directives.json");
  private static final Path CLASSES = Path.of("target/classes");

  /** The quoted patterns of the first directive (the one that lets C2 in). */
  private static List<String> c2Patterns(String text) {
    String first = text.substring(text.indexOf("match:"), text.indexOf("c2:"));
    List<String> patterns = new ArrayList<>();
    Matcher m = Pattern.compile("\"([^\"]+)\"").matcher(first);
    while (m.find()) {
      patterns.add(m.group(1));
    }
    return patterns;
  }

  private static List<String> classFiles() throws IOException {
    try (Stream<Path> files = Files.walk(CLASSES)) {
      return files.map(p -> CLASSES.relativize(p).toString().replace('\\', '/'))
          .filter(p -> p.endsWith(".class")).map(p -> p.substring(0, p.length() - ".class".length())).toList();
    }
  }

  @Test
  void everyPatternNamesClassesThatExistAndThePerByteLoopsAreCovered() throws IOException {
    String text = Files.readString(FILE);
    List<String> patterns = c2Patterns(text);
    assertThat(patterns).isNotEmpty();
    List<String> classes = classFiles();
    List<String> covered = new ArrayList<>();
    for (String pattern : patterns) {
      assertThat(pattern).as("class pattern, then every method").endsWith("*.*");
      String prefix = pattern.substring(0, pattern.length() - "*.*".length());
      List<String> named = classes.stream().filter(c -> c.startsWith(prefix)).toList();
      assertThat(named).as("classes named by " + pattern).isNotEmpty();
      covered.addAll(named);
    }
    assertThat(covered).contains("dev/mcpstdio/wire/Swar", "dev/mcpstdio/wire/LineReader", "dev/mcpstdio/wire/Utf8",
        "dev/mcpstdio/wire/Ndjson", "dev/mcpstdio/wire/SseDecoder", "dev/mcpstdio/jsonrpc/StreamingScanner",
        "dev/mcpstdio/jsonrpc/JsonScanner", "dev/mcpstdio/stdio/StdoutWire");
  }

  @Test
  void everythingElseIsKeptFromC2AndTheLauncherPassesTheFileToTheRelayOnly() throws IOException {
    String text = Files.readString(FILE);
    String last = text.substring(text.lastIndexOf("match:"));
    assertThat(last.replaceAll("\\s+", "")).startsWith("match:\"*.*\",c2:{Exclude:true}");
    String launcher = Files.readString(Path.of("mcp-stdio"));
    assertThat(launcher).contains("DIRECTIVES=\"-XX:CompilerDirectivesFile=$HERE/jvm/relay-compiler-directives.json\"");
    String windows = Files.readString(Path.of("mcp-stdio.cmd"));
    assertThat(windows).contains("-XX:CompilerDirectivesFile=%HERE%jvm\\relay-compiler-directives.json");
  }
}
