package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The relay's compilation policy, set by the launcher (docs/performance.md, issue 15): C2 only
 * for the loops over every byte of a message, every other method refused by C2 (a node limit no
 * method fits) and compiled again by C1. The list must name classes that exist (a class renamed
 * would silently leave a large message's scan with C1), the Windows launcher must carry the same
 * list, and the JVM must do what the flags say.
 */
class RelayJitTest {

  private static final Pattern C2_CLASSES = Pattern.compile("for c2 in ((?:'[^']+' ?)+); do");

  /** The class patterns (without ".*") the launcher lets C2 compile. */
  private static List<String> c2Classes() throws IOException {
    Matcher m = C2_CLASSES.matcher(Files.readString(Path.of("mcp-stdio")));
    assertThat(m.find()).as("the launcher's list of classes for C2").isTrue();
    List<String> classes = new ArrayList<>();
    for (String quoted : m.group(1).trim().split(" ")) {
      classes.add(quoted.substring(1, quoted.length() - 1));
    }
    return classes;
  }

  private static List<String> relayJitFlags() throws IOException {
    List<String> flags = new ArrayList<>(List.of("-XX:CompileCommand=quiet", "-XX:CompileCommand=MaxNodeLimit,*.*,50"));
    for (String c : c2Classes()) {
      flags.add("-XX:CompileCommand=MaxNodeLimit," + c + ".*,80000");
    }
    return flags;
  }

  @Test
  void theClassesForC2ExistAndBothLaunchersNameThem() throws IOException {
    String launcher = Files.readString(Path.of("mcp-stdio"));
    assertThat(launcher).contains("RELAY_JIT=\"-XX:CompileCommand=MaxNodeLimit,*.*,50\"");
    String windows = Files.readString(Path.of("mcp-stdio.cmd"));
    assertThat(windows).contains("\"-XX:CompileCommand=MaxNodeLimit,*.*,50\"");
    List<String> classFiles;
    Path classes = Path.of("target/classes");
    try (Stream<Path> files = Files.walk(classes)) {
      classFiles = files.map(p -> classes.relativize(p).toString().replace('\\', '/'))
          .filter(p -> p.endsWith(".class")).toList();
    }
    List<String> covered = new ArrayList<>();
    for (String pattern : c2Classes()) {
      assertThat(pattern).endsWith("*");
      String prefix = pattern.substring(0, pattern.length() - 1);
      List<String> named = classFiles.stream().filter(f -> f.startsWith(prefix)).toList();
      assertThat(named).as("classes named by " + pattern).isNotEmpty();
      covered.addAll(named);
      assertThat(windows).contains("\"-XX:CompileCommand=MaxNodeLimit," + pattern + ".*,80000\"");
    }
    assertThat(covered).contains("dev/mcpstdio/wire/Swar.class", "dev/mcpstdio/wire/LineReader.class",
        "dev/mcpstdio/wire/Utf8.class", "dev/mcpstdio/wire/Ndjson.class", "dev/mcpstdio/wire/SseDecoder.class",
        "dev/mcpstdio/jsonrpc/StreamingScanner.class", "dev/mcpstdio/jsonrpc/JsonScanner.class",
        "dev/mcpstdio/stdio/StdoutWire.class");
  }

  @Test
  void c2CompilesTheListedLoopsAndRefusesTheRestWhichC1CompilesAgain() throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "-Xbatch", "-XX:+PrintCompilation"));
    command.addAll(relayJitFlags());
    command.addAll(List.of("-cp", "target/classes" + File.pathSeparator + "target/test-classes", JitProbe.class.getName()));
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    byte[] out = p.getInputStream().readAllBytes(); // until the probe exits
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isZero();
    List<String> log = new String(out, StandardCharsets.UTF_8).lines().toList();
    // PrintCompilation: "<time> <compile id> <flags> <level> <method> (<size>) [why it ended]"; a
    // compilation C2 gave up on has its task line, then the same line with COMPILE SKIPPED
    Pattern line = Pattern.compile("^\\s*\\d+\\s+(\\d+)\\s+[%sbn! ]*\\s(\\d)\\s+(\\S+)\\s.*$");
    java.util.Set<String> listedAtC2 = new java.util.TreeSet<>();
    java.util.Set<String> unlistedAtC2 = new java.util.TreeSet<>();
    java.util.Set<String> unlistedRefused = new java.util.TreeSet<>();
    boolean unlistedAtC1 = false;
    for (String l : log) {
      Matcher m = line.matcher(l);
      if (!m.matches()) {
        continue;
      }
      String id = m.group(1);
      String level = m.group(2);
      String method = m.group(3);
      if (method.equals("dev.mcpstdio.wire.Swar::indexOf") && level.equals("4") && !l.contains("SKIPPED")) {
        listedAtC2.add(id);
      }
      if (method.equals("dev.mcpstdio.cli.JitProbe::unlisted")) {
        if (level.equals("4")) {
          (l.contains("COMPILE SKIPPED: out of nodes") ? unlistedRefused : unlistedAtC2).add(id);
        }
        unlistedAtC1 |= level.equals("1");
      }
    }
    String all = String.join("\n", log);
    assertThat(listedAtC2).as("Swar.indexOf compiled by C2; log:\n" + all).isNotEmpty();
    assertThat(unlistedAtC2).as("every C2 task for JitProbe.unlisted refused; log:\n" + all).isNotEmpty()
        .isEqualTo(unlistedRefused);
    assertThat(unlistedAtC1).as("JitProbe.unlisted compiled again by C1 without profiling (level 1)").isTrue();
  }
}
