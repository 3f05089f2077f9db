package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.NodePeers;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code mcp-stdio serve} for the conformance suite's server scenarios: the packaged jar runs as a
 * real process publishing a stdio fixture (one child per 2025-era session) as a Streamable HTTP
 * endpoint, for {@link ConformanceBatch} to run the suite's CLI against. Shared by {@link
 * ConformanceServerIT} (the 2025 suites) and {@link ConformanceServer2026IT} (the 2026-07-28
 * requirements), with the CLI's helpers both use ({@link #listed}, {@link #runCli}).
 *
 * <p>Each instance owns one serve process (and through it the fixture children) and writes {@code
 * serve.log} (all of serve's stderr) to its work folder at {@link #stop()}.
 */
final class ConformanceServe {

  /** Our bound on one scenario of a CLI run (see {@link ConformanceBatch}). */
  static final Duration SCENARIO_TIMEOUT = Duration.ofSeconds(60);

  /** How long serve may take to print its {@code serving ... at URL} line. */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The suite's client never ends its session (the TypeScript SDK's {@code Client.close()} sends
   * no DELETE), so without an idle TTL every scenario would leave a fixture child running until
   * serve stops. Serve notices the CLI's closed GET stream at its next keep-alive write; the
   * session is reaped this long after that.
   */
  private static final String SESSION_IDLE_TTL_SECONDS = "10";

  private static final Pattern SERVING = Pattern.compile("serving .* at (http://127\\.0\\.0\\.1:(\\d+)/mcp) \\(");
  private static final Pattern LISTED_SCENARIO = Pattern.compile("^\\s+-\\s+(\\S+)(\\s+\\[.*])?\\s*$");
  private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

  final Path work;
  final String url;
  private final JarProcess serve;

  private ConformanceServe(Path work, JarProcess serve, String url) {
    this.work = work;
    this.serve = serve;
    this.url = url;
  }

  /**
   * Starts {@code mcp-stdio serve} (port 0, the session idle TTL above, {@code
   * -Dconformance.serveArgs}, default {@code -v}) over {@code child}, and waits for its URL.
   */
  static ConformanceServe start(Path work, List<String> child) throws IOException {
    Files.createDirectories(work);
    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--session-idle-ttl", SESSION_IDLE_TTL_SECONDS));
    Arrays.stream(System.getProperty("conformance.serveArgs", "-v").trim().split("\\s+"))
        .filter(a -> !a.isEmpty())
        .forEach(args::add);
    args.add("--");
    args.addAll(child);
    JarProcess serve = JarProcess.start(args);
    String line;
    try {
      line = serve.stderr.nextMatching(l -> SERVING.matcher(l).find(), STARTUP_TIMEOUT);
    } catch (AssertionError e) {
      String log = serve.log();
      serve.close();
      throw new AssertionError("serve did not report its URL (alive: " + serve.process.isAlive() + ")\n" + log, e);
    }
    Matcher m = SERVING.matcher(line);
    assertThat(m.find()).isTrue();
    // localhost, not 127.0.0.1: the DNS rebinding scenario sends Host: localhost:PORT as the valid one
    String url = "http://localhost:" + m.group(2) + "/mcp";
    System.err.println("[conformance] serve is up: " + line + " -> suite URL " + url);
    return new ConformanceServe(work, serve, url);
  }

  /** Stops serve (SIGTERM, then the process tree) and writes its whole stderr to {@code serve.log}. */
  void stop() throws IOException {
    try {
      serve.terminate();
      serve.awaitExit(Duration.ofSeconds(30));
    } catch (AssertionError e) {
      System.err.println("[conformance] serve did not stop on SIGTERM: " + e.getMessage());
    } finally {
      serve.close();
      Files.write(work.resolve("serve.log"), serve.stderr.snapshot(), StandardCharsets.UTF_8);
    }
  }

  boolean alive() {
    return serve.process.isAlive();
  }

  String logTail() {
    return tail(serve.log(), 20_000);
  }

  /** How many lines serve has written to stderr so far. */
  int stderrLineCount() {
    return serve.stderr.snapshot().size();
  }

  /** Every line serve has written to stderr so far. */
  List<String> stderrLines() {
    return serve.stderr.snapshot();
  }

  /**
   * The scenario names the CLI lists (with {@code listArgs}) under the heading starting with
   * {@code section}, but those tagged {@code [client]}; lines of another kind end the section. The
   * CLI's output is kept in {@code log}.
   */
  static List<String> listed(Path node, Path cli, List<String> listArgs, String section, Path log)
      throws IOException, InterruptedException {
    Files.createDirectories(log.getParent());
    List<String> args = new ArrayList<>(List.of("list"));
    args.addAll(listArgs);
    int exit = runCli(node, cli, args, log, Duration.ofSeconds(60));
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(exit).as("conformance list exit code; output:\n%s", output).isZero();
    List<String> scenarios = new ArrayList<>();
    boolean inSection = false;
    for (String line : output.split("\n")) {
      if (line.trim().startsWith(section)) {
        inSection = true;
      } else if (inSection && LISTED_SCENARIO.matcher(line).matches()) {
        if (!line.contains("[client]")) { // the "run but not scored" lists tag each entry's kind
          scenarios.add(LISTED_SCENARIO.matcher(line).replaceAll("$1"));
        }
      } else if (inSection && !line.isBlank()) {
        inSection = false;
      }
    }
    return scenarios;
  }

  /** Runs the conformance CLI with output (both streams) to {@code log}; -1 when it timed out. */
  static int runCli(Path node, Path cli, List<String> cliArgs, Path log, Duration timeout)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(node.toString(), cli.toString()));
    command.addAll(cliArgs);
    Process process = new ProcessBuilder(command)
        .directory(NodePeers.basedir().toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
        .start();
    if (process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      return process.exitValue();
    }
    process.descendants().forEach(ProcessHandle::destroyForcibly);
    process.destroyForcibly();
    process.waitFor(10, TimeUnit.SECONDS);
    return -1;
  }

  static String readOrNote(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        return "(missing)";
      }
      return ANSI.matcher(Files.readString(file, StandardCharsets.UTF_8)).replaceAll("");
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  static String tail(String text, int maxChars) {
    return text.length() <= maxChars ? text : "...\n" + text.substring(text.length() - maxChars);
  }
}
