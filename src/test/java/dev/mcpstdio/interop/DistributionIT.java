package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The archive and the {@code .deb} of {@code target/dist/} do what the README's install section
 * says: unpacked anywhere (a folder with a space in its name) or installed with {@code dpkg -i},
 * they run the relay and serve on their own trimmed runtime, with a PATH that has no
 * {@code java}, no JDK and no Maven on it and no {@code JAVA_HOME}. Each run is checked to be
 * on the bundled runtime ({@code /proc/PID/exe}), with its trained start-up cache mapped, and serve's
 * demo child too; the archive's tree is the same after the runs (the launcher writes nothing
 * into a distribution), and {@code dpkg -r} leaves nothing behind.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class DistributionIT {

  @TempDir
  Path tmp;

  @Test
  void theArchiveUnpackedAnywhereRunsRelayAndServeWithoutAJdk() throws Exception {
    Path dist = Distribution.dir();
    String version = Distribution.version(dist);
    Path archive = Distribution.only(dist, "mcp-stdio-*-linux-x64.tar.gz");
    Distribution.assertChecksum(archive);

    Path unpacked = Files.createDirectories(tmp.resolve("unpacked here"));
    Distribution.Result untar = Distribution.run(List.of("tar", "-xzf", archive.toString(), "-C", unpacked.toString()));
    assertThat(untar.exitCode()).as("tar: " + untar.output()).isZero();
    Path home = unpacked.resolve("mcp-stdio-" + version + "-linux-x64");
    assertThat(home.resolve("bin/mcp-stdio")).isExecutable();
    assertThat(home.resolve("runtime/bin/java")).isExecutable();
    assertThat(home.resolve("lib/mcp-stdio.aot")).isRegularFile();
    assertThat(home.resolve("lib/mcp-stdio-serve.aot")).isRegularFile();
    assertThat(home.resolve("runtime/bin/javac")).doesNotExist();
    assertThat(home.resolve("runtime/jmods")).doesNotExist();
    Map<String, String> before = tree(home);

    String path = jdkFreePath(tmp.resolve("path"));
    Path launcher = home.resolve("bin/mcp-stdio");
    Function<List<String>, ProcessBuilder> mcpStdio = args -> {
      List<String> command = new ArrayList<>(List.of(launcher.toString()));
      command.addAll(args);
      return withoutJdk(new ProcessBuilder(command), path);
    };
    assertVersion(mcpStdio, version);
    exerciseRelayAndServe(mcpStdio, home.resolve("runtime").toRealPath());

    assertThat(tree(home)).as("the unpacked tree after the runs: nothing written, nothing changed").isEqualTo(before);
  }

  @Test
  void theDebInstallsMcpStdioOnThePathAndRunsRelayAndServeWithoutAJdk() throws Exception {
    Path dist = Distribution.dir();
    String version = Distribution.version(dist);
    Path deb = Distribution.only(dist, "mcp-stdio_*_amd64.deb");
    Distribution.assertChecksum(deb);
    Assumptions.assumeTrue(Files.isExecutable(Path.of("/usr/bin/dpkg")), "no dpkg on this machine");
    Assumptions.assumeTrue(Distribution.root(),
        "installing a .deb needs root");
    Assumptions.assumeTrue(Distribution.run(List.of("dpkg-query", "-W", "mcp-stdio")).exitCode() != 0,
        "mcp-stdio is installed on this machine already: not touching it");

    Distribution.Result info = Distribution.run(List.of("dpkg-deb", "--field", deb.toString(), "Package", "Version", "Depends"));
    assertThat(info.output()).contains("Package: mcp-stdio").contains("Version: " + version.replace('-', '~'))
        .contains("Depends: libc6");

    Distribution.Result install = Distribution.run(List.of("dpkg", "-i", deb.toString()));
    assertThat(install.exitCode()).as("dpkg -i: " + install.output()).isZero();
    try {
      assertThat(Path.of("/usr/bin/mcp-stdio")).isSymbolicLink();
      assertThat(Path.of("/usr/bin/mcp-stdio").toRealPath()).isEqualTo(Path.of("/usr/lib/mcp-stdio/bin/mcp-stdio"));
      String path = jdkFreePath(tmp.resolve("path"));
      // found on the PATH, as a host finds it: sh looks "mcp-stdio" up in the PATH it is given
      Function<List<String>, ProcessBuilder> mcpStdio = args -> {
        List<String> command = new ArrayList<>(List.of("/bin/sh", "-c", "exec mcp-stdio \"$@\"", "mcp-stdio"));
        command.addAll(args);
        return withoutJdk(new ProcessBuilder(command), path);
      };
      assertVersion(mcpStdio, version);
      exerciseRelayAndServe(mcpStdio, Path.of("/usr/lib/mcp-stdio/runtime"));
    } finally {
      Distribution.Result remove = Distribution.run(List.of("dpkg", "-r", "mcp-stdio"));
      assertThat(remove.exitCode()).as("dpkg -r: " + remove.output()).isZero();
    }
    assertThat(Path.of("/usr/bin/mcp-stdio")).doesNotExist();
    assertThat(Path.of("/usr/lib/mcp-stdio")).as("left behind by the runs, or not removed").doesNotExist();
  }

  private static void assertVersion(Function<List<String>, ProcessBuilder> mcpStdio, String version) throws Exception {
    Distribution.Result result = Distribution.run(mcpStdio.apply(List.of("--version")));
    assertThat(result.exitCode()).as("--version: " + result.output()).isZero();
    assertThat(result.output()).contains(version);
  }

  /**
   * Serve (the built-in demo server, a child on the same runtime) on a free port, and the relay
   * connected to it: a host's initialize and tools/call go through both and come back.
   */
  private static void exerciseRelayAndServe(Function<List<String>, ProcessBuilder> mcpStdio, Path runtime) throws Exception {
    try (JarProcess serve = JarProcess.spawn(mcpStdio.apply(List.of("serve", "--port", "0")))) {
      String line = serve.stderr.nextMatching(l -> l.contains("] serving "), Distribution.START);
      Matcher m = Pattern.compile("at (http://127\\.0\\.0\\.1:(\\d+)/mcp) ").matcher(line);
      assertThat(m.find()).as("serve's start line: " + line).isTrue();
      String url = m.group(1);
      assertThat(Distribution.executable(serve)).as("serve's program").startsWith(runtime);
      assertThat(Distribution.maps(serve, "mcp-stdio-serve.aot")).as("serve's start-up cache mapped").isTrue();
      try (HttpClient http = HttpClient.newHttpClient()) {
        HttpResponse<String> health = http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + m.group(2) + "/healthz")).build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
      }

      try (JarProcess relay = JarProcess.spawn(mcpStdio.apply(List.of(url)))) {
        Distribution.initializeDemo(relay, "distribution-it");
        assertThat(Distribution.executable(relay)).as("the relay's program").startsWith(runtime);
        assertThat(Distribution.maps(relay, "mcp-stdio.aot")).as("the relay's start-up cache mapped").isTrue();
        Distribution.echo(relay, "from the distribution");

        // the session's child: the demo server, started by serve through the same launcher and runtime
        String started = serve.stderr.nextMatching(l -> l.contains("started ") && l.contains("(pid "), Distribution.START);
        Matcher pid = Pattern.compile("\\(pid (\\d+)\\)").matcher(started);
        assertThat(pid.find()).as(started).isTrue();
        assertThat(Files.readSymbolicLink(Path.of("/proc", pid.group(1), "exe"))).as("the demo child's program").startsWith(runtime);

        relay.closeStdin();
        assertThat(relay.awaitExit(Duration.ofSeconds(30))).as("the relay's exit code; " + relay.log()).isZero();
      }
      serve.terminate();
      assertThat(serve.awaitExit(Duration.ofSeconds(30))).as("serve's exit code after SIGTERM; " + serve.log()).isZero();
    }
  }

  /**
   * A folder of links to every program on this machine's usual PATH but the JDK's and Maven's
   * (whatever resolves into a JVM folder or a Maven install, {@code /usr/bin/java} among them), as
   * PATH: what a machine without a JDK has. Proven to find no java, javac, jlink or mvn.
   */
  static String jdkFreePath(Path dir) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    for (String folder : List.of("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")) {
      Path from = Path.of(folder);
      if (!Files.isDirectory(from)) {
        continue;
      }
      try (Stream<Path> programs = Files.list(from)) {
        for (Path program : programs.toList()) {
          Path link = dir.resolve(program.getFileName().toString());
          if (Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS) || !Files.isExecutable(program)) {
            continue;
          }
          String real;
          try {
            real = program.toRealPath().toString();
          } catch (IOException dangling) {
            continue;
          }
          if (real.contains("/jvm/") || real.contains("/maven") || real.contains("/jdk")) {
            continue;
          }
          Files.createSymbolicLink(link, program.toRealPath());
        }
      }
    }
    ProcessBuilder check = new ProcessBuilder("/bin/sh", "-c",
        "for p in java javac jlink jar mvn; do command -v $p && exit 1; done; exit 0");
    check.environment().put("PATH", dir.toString());
    Distribution.Result found = Distribution.run(check);
    assertThat(found.exitCode()).as("a JDK or Maven on the JDK-free PATH: " + found.output()).isZero();
    return dir.toString();
  }

  /** An environment with {@code path} as PATH and none of the variables that name a JDK or Maven. */
  static ProcessBuilder withoutJdk(ProcessBuilder builder, String path) {
    Map<String, String> env = builder.environment();
    env.keySet().removeIf(name -> name.contains("JAVA") || name.contains("JDK") || name.contains("MAVEN")
        || name.startsWith("M2") || name.startsWith("MCP_STDIO"));
    env.put("PATH", path);
    return builder;
  }

  /** Every file under {@code root} with its size, modification time and SHA-256: what a run would have changed. */
  private static Map<String, String> tree(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> all = Files.walk(root)) {
      for (Path p : all.toList()) {
        String state = "folder";
        if (Files.isRegularFile(p)) {
          try (var in = Files.newInputStream(p)) {
            state = Files.size(p) + " " + Files.getLastModifiedTime(p).toMillis() + " " + Distribution.sha256(in);
          }
        }
        files.put(root.relativize(p).toString(), state);
      }
    }
    return files;
  }
}
