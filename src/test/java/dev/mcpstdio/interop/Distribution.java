package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import tools.jackson.databind.JsonNode;

/**
 * The artifacts {@code src/dist/build-dist.sh} leaves under {@code target/dist/} (the {@code dist}
 * profile, on by default on Linux x64), and what the tests of them share: the version, checksums,
 * and running a command and waiting for it. {@code .ci/run} checks that the tests that use it ran
 * rather than skipped.
 */
final class Distribution {

  private Distribution() {}

  /** {@code target/dist}; the test is skipped where the build does not make it (not Linux x64, or {@code -P!dist}). */
  static Path dir() {
    Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux")
        && System.getProperty("os.arch").equals("amd64"), "the distribution is built on Linux x64 only");
    Path dir = NodePeers.basedir().resolve("target/dist");
    Assumptions.assumeTrue(Files.isDirectory(dir), "no target/dist: built without the dist profile");
    return dir;
  }

  /** Whether this test runs as root (installing a package, namespaces and chroot need it). */
  static boolean root() throws IOException {
    return ((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid")) == 0;
  }

  /** The one file in {@code dir} whose name matches {@code glob}. */
  static Path only(Path dir, String glob) {
    try (var files = Files.newDirectoryStream(dir, glob)) {
      List<Path> found = new ArrayList<>();
      files.forEach(found::add);
      assertThat(found).as(glob + " in " + dir).hasSize(1);
      return found.get(0);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The version in the archive's name, {@code mcp-stdio-VERSION-linux-x64.tar.gz}. */
  static String version(Path dir) {
    String name = only(dir, "mcp-stdio-*-linux-x64.tar.gz").getFileName().toString();
    return name.substring("mcp-stdio-".length(), name.length() - "-linux-x64.tar.gz".length());
  }

  static String sha256(InputStream in) throws IOException {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      try (DigestInputStream digesting = new DigestInputStream(in, digest)) {
        digesting.transferTo(OutputStream.nullOutputStream());
      }
      return HexFormat.of().formatHex(digest.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new AssertionError(e);
    }
  }

  /** The {@code FILE.sha256} beside {@code file} is what {@code sha256sum} writes for it, and holds. */
  static void assertChecksum(Path file) throws IOException {
    Path sums = file.resolveSibling(file.getFileName() + ".sha256");
    String expected;
    try (InputStream in = Files.newInputStream(file)) {
      expected = sha256(in) + "  " + file.getFileName() + "\n";
    }
    assertThat(Files.readString(sums)).as(sums.toString()).isEqualTo(expected);
  }

  /** Runs {@code command} to its end (at most 2 minutes) and returns what it wrote, both streams. */
  static Result run(List<String> command) throws IOException, InterruptedException {
    return run(new ProcessBuilder(command));
  }

  static Result run(ProcessBuilder builder) throws IOException, InterruptedException {
    Process process = builder.redirectErrorStream(true).start();
    process.getOutputStream().close();
    byte[] output = process.getInputStream().readAllBytes(); // ends when the process and its children close it
    if (!process.waitFor(2, TimeUnit.MINUTES)) {
      process.destroyForcibly();
      throw new AssertionError(builder.command() + " did not end");
    }
    return new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8));
  }

  record Result(int exitCode, String output) {}

  /** The program a process runs now (after the launcher's exec), from {@code /proc}. */
  static Path executable(JarProcess process) throws IOException {
    return Files.readSymbolicLink(Path.of("/proc", Long.toString(process.process.pid()), "exe"));
  }

  /** Whether a process has the file named {@code fileName} mapped (the start-up cache), from {@code /proc}. */
  static boolean maps(JarProcess process, String fileName) throws IOException {
    return Files.readAllLines(Path.of("/proc", Long.toString(process.process.pid()), "maps")).stream()
        .anyMatch(line -> line.endsWith("/" + fileName));
  }

  static final Duration START = Duration.ofSeconds(60);

  /** A host's {@code initialize} through {@code relay}, answered by serve's built-in demo server. */
  static void initializeDemo(JarProcess relay, String clientName) {
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
        + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"" + clientName + "\",\"version\":\"1\"}}}");
    JsonNode init = Jsons.parse(relay.stdout.next(START));
    assertThat(init.path("result").path("serverInfo").path("name").asString()).as(relay.log()).isEqualTo("mcp-stdio-demo");
  }

  /** After {@link #initializeDemo}: {@code initialized}, and the demo's {@code echo} of {@code text} (id 2) comes back. */
  static void echo(JarProcess relay, String text) {
    relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        + "\"arguments\":{\"text\":\"" + text + "\"}}}");
    JsonNode call = Jsons.parse(relay.stdout.next(START));
    assertThat(call.path("id").asInt()).isEqualTo(2);
    assertThat(call.path("result").path("content").path(0).path("text").asString()).as(relay.log()).contains(text);
  }
}
