package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.NodePeers;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;

/**
 * The official MCP conformance suite's server scenarios (spec 2025-11-25) against {@code mcp-stdio
 * serve}: the packaged jar runs as a real process, publishing {@link ConformanceFixtureServer} (a
 * stdio server, one child per session) as a Streamable HTTP endpoint, and the suite's CLI is run
 * once per scenario against that endpoint. What the suite checks is therefore the gateway's HTTP
 * behaviour plus the fixture's MCP surface.
 *
 * <p>The scenarios are the suite's own list for the spec version ({@code list --server
 * --spec-version 2025-11-25}), pending ones included. A scenario passes when the CLI exits 0 and
 * no check is a FAILURE; WARNING checks (SHOULD-level advice) are reported on stderr and as test
 * report entries, and fail the test only with {@code -Dconformance.failOnWarning=true}.
 *
 * <p>Needs Node.js, like {@link ConformanceClientIT}: the suite and, when needed, a Node 22 binary
 * are installed by {@link NodePeers}; without Node the scenarios are skipped, except under {@code
 * CI=true}.
 *
 * <p>Artifacts under {@code target/conformance/server}: {@code results/<scenario>/server-<scenario>-
 * <time>/checks.json}, {@code <scenario>-cli.log} (the CLI's output), {@code <scenario>-serve.log}
 * (serve's stderr while the scenario ran: every HTTP exchange, and the fixture's stderr), {@code
 * serve.log} (all of serve's stderr) and {@code fixture-classes} (the fixture's class files, copied).
 */
class ConformanceServerIT {

  static final String SPEC_VERSION = "2025-11-25";

  /** Our bound on one CLI run (one scenario). */
  private static final Duration SCENARIO_TIMEOUT = Duration.ofSeconds(60);

  /** How long serve may take to print its {@code serving ... at URL} line. */
  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);

  /**
   * The suite's client never ends its session (the TypeScript SDK's {@code Client.close()} sends
   * no DELETE), so without an idle TTL every scenario would leave a fixture JVM running until serve
   * stops. Serve notices the CLI's closed GET stream at its next keep-alive write; the session is
   * reaped this long after that.
   */
  private static final String SESSION_IDLE_TTL_SECONDS = "10";

  /** The fixture JVM: stdio-safe (nothing but JSON-RPC on stdout), quick to start, small. */
  static final List<String> FIXTURE_JVM_FLAGS = List.of(
      "-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr",
      "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto");

  private static final Pattern SERVING = Pattern.compile("serving .* at (http://127\\.0\\.0\\.1:(\\d+)/mcp) \\(");
  private static final Pattern LISTED_SCENARIO = Pattern.compile("^\\s+-\\s+(\\S+)(\\s+\\[.*])?\\s*$");
  private static final Pattern ANSI = Pattern.compile("\u001B\\[[0-9;]*m");

  private static final Path WORK = NodePeers.basedir().resolve("target/conformance/server");

  private static Path node;
  private static Path cli;
  private static JarProcess serve;
  private static String url;

  @BeforeAll
  static void installSuiteAndStartGateway() throws IOException {
    node = NodePeers.node22();
    cli = ConformanceRuns.cli();
    Files.createDirectories(WORK);

    List<String> args = new ArrayList<>(List.of("serve", "--port", "0", "--session-idle-ttl", SESSION_IDLE_TTL_SECONDS));
    Arrays.stream(System.getProperty("conformance.serveArgs", "-v").trim().split("\\s+"))
        .filter(a -> !a.isEmpty())
        .forEach(args::add);
    args.add("--");
    args.add(JarProcess.java());
    args.addAll(FIXTURE_JVM_FLAGS);
    args.add("-cp");
    args.add(fixtureClasspath());
    args.add(ConformanceFixtureServer.class.getName());
    serve = JarProcess.start(args);

    String line;
    try {
      line = serve.stderr.nextMatching(l -> SERVING.matcher(l).find(), STARTUP_TIMEOUT);
    } catch (AssertionError e) {
      throw new AssertionError("serve did not report its URL (alive: " + serve.process.isAlive() + ")\n" + serve.log(), e);
    }
    Matcher m = SERVING.matcher(line);
    assertThat(m.find()).isTrue();
    // localhost, not 127.0.0.1: the DNS rebinding scenario sends Host: localhost:PORT as the valid one
    url = "http://localhost:" + m.group(2) + "/mcp";
    System.err.println("[conformance] serve is up: " + line + " -> suite URL " + url);
  }

  /**
   * The fixture's classpath: a private copy of its class files, then the test classpath's entries
   * from outside this project's {@code target} directory (the SDK and its dependencies). Children
   * start throughout the run, and another build may recompile {@code target/test-classes} or
   * repackage the project's jars meanwhile.
   */
  private static String fixtureClasspath() throws IOException {
    Path classes = WORK.resolve("fixture-classes");
    ConformanceRuns.deleteRecursively(classes);
    ClassLoader loader = ConformanceFixtureServer.class.getClassLoader();
    for (Class<?> c : ConformanceFixtureServer.class.getNestMembers()) {
      String resource = c.getName().replace('.', '/') + ".class";
      try (InputStream in = loader.getResourceAsStream(resource)) {
        if (in == null) {
          throw new AssertionError("class file not found on the test classpath: " + resource);
        }
        Path file = classes.resolve(resource);
        Files.createDirectories(file.getParent());
        Files.copy(in, file);
      }
    }
    Path projectTarget = NodePeers.basedir().resolve("target").toAbsolutePath().normalize();
    List<String> entries = new ArrayList<>();
    entries.add(classes.toString());
    for (String entry : testClasspath().split(File.pathSeparator)) {
      if (!entry.isBlank() && !Path.of(entry).toAbsolutePath().normalize().startsWith(projectTarget)) {
        entries.add(entry);
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  /** The test classpath (failsafe's manifest-only booter jar hides it from java.class.path). */
  private static String testClasspath() {
    String classpath = System.getProperty("surefire.test.class.path");
    return classpath == null || classpath.isBlank() ? System.getProperty("java.class.path") : classpath;
  }

  @AfterAll
  static void stopGateway() throws IOException {
    if (serve == null) {
      return;
    }
    try {
      serve.terminate();
      serve.awaitExit(Duration.ofSeconds(30));
    } catch (AssertionError e) {
      System.err.println("[conformance] serve did not stop on SIGTERM: " + e.getMessage());
    } finally {
      serve.close();
      Files.write(WORK.resolve("serve.log"), serve.stderr.snapshot(), StandardCharsets.UTF_8);
      serve = null;
    }
  }

  /** The suite's server scenarios for {@link #SPEC_VERSION}, as its CLI lists them. */
  static List<String> scenarios() throws IOException, InterruptedException {
    Path log = WORK.resolve("list.log");
    int exit = runCli(List.of("list", "--server", "--spec-version", SPEC_VERSION), log, Duration.ofSeconds(60));
    String output = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(exit).as("conformance list exit code; output:\n%s", output).isZero();
    List<String> scenarios = new ArrayList<>();
    boolean serverSection = false;
    for (String line : output.split("\n")) {
      if (line.startsWith("Server scenarios")) {
        serverSection = true;
      } else if (!line.startsWith(" ") && !line.isBlank()) {
        serverSection = false;
      } else if (serverSection) {
        Matcher m = LISTED_SCENARIO.matcher(line);
        if (m.matches()) {
          scenarios.add(m.group(1));
        }
      }
    }
    assertThat(scenarios).as("server scenarios listed by the suite:\n%s", output)
        .contains("server-initialize", "tools-call-with-progress", "dns-rebinding-protection");
    return scenarios;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scenarios")
  void serverScenarioPassesThroughTheGateway(String scenario, TestReporter reporter) throws Exception {
    assertThat(serve.process.isAlive()).as("serve is running; its log:\n%s", tail(serve.log(), 20_000)).isTrue();

    Path results = WORK.resolve("results").resolve(scenario);
    ConformanceRuns.deleteRecursively(results);
    Files.createDirectories(results);
    Path cliLog = WORK.resolve(scenario + "-cli.log");
    Path serveLog = WORK.resolve(scenario + "-serve.log");

    int serveLinesBefore = serve.stderr.snapshot().size();
    long start = System.nanoTime();
    int exit = runCli(List.of("server", "--url", url, "--scenario", scenario, "-o", results.toString()),
        cliLog, SCENARIO_TIMEOUT);
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    Path runDir = ConformanceRuns.newestRunDir(results, "server-" + scenario);
    List<JsonNode> checks = runDir == null ? List.of() : ConformanceRuns.readChecks(runDir.resolve("checks.json"));
    List<String> failures = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    for (JsonNode check : checks) {
      String status = check.path("status").asString("");
      if (status.equals("FAILURE")) {
        failures.add(describe(check));
      } else if (status.equals("WARNING")) {
        warnings.add(describe(check));
      }
    }
    long successes = checks.stream().filter(c -> "SUCCESS".equals(c.path("status").asString(""))).count();
    System.err.printf("[conformance] %s: CLI exit %d, %d ms, %d checks (%d SUCCESS, %d FAILURE, %d WARNING)%n",
        scenario, exit, millis, checks.size(), successes, failures.size(), warnings.size());
    for (String warning : warnings) {
      System.err.println("[conformance] " + scenario + ": " + warning);
      reporter.publishEntry("warning", warning);
    }

    // taken last, after the checks are read, so the exchanges the CLI's exit closed are logged by now
    List<String> serveLines = serve.stderr.snapshot();
    Files.write(serveLog, serveLines.subList(Math.min(serveLinesBefore, serveLines.size()), serveLines.size()),
        StandardCharsets.UTF_8);
    String report = "\n=== scenario " + scenario + ": CLI exit " + exit + " after " + millis + " ms"
        + (exit == -1 ? " (CLI killed after " + SCENARIO_TIMEOUT.toSeconds() + " s)" : "")
        + "\n=== failed checks:\n  " + String.join("\n  ", failures)
        + "\n=== warnings:\n  " + String.join("\n  ", warnings)
        + "\n=== CLI output (" + cliLog + "):\n" + tail(readOrNote(cliLog), 12_000)
        + "\n=== serve stderr during the scenario (" + serveLog + "):\n" + tail(readOrNote(serveLog), 20_000);

    assertThat(runDir).as("the CLI wrote no checks.json for %s%s", scenario, report).isNotNull();
    assertThat(checks).as("checks reported%s", report).isNotEmpty();
    assertThat(failures).as("checks with status FAILURE%s", report).isEmpty();
    assertThat(exit).as("conformance CLI exit code%s", report).isZero();
    if (Boolean.getBoolean("conformance.failOnWarning")) {
      assertThat(warnings).as("checks with status WARNING (-Dconformance.failOnWarning=true)%s", report).isEmpty();
    }
  }

  /** Runs the conformance CLI with output (both streams) to {@code log}; -1 when it timed out. */
  private static int runCli(List<String> cliArgs, Path log, Duration timeout) throws IOException, InterruptedException {
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

  private static String describe(JsonNode check) {
    JsonNode details = check.path("details");
    return check.path("status").asString("") + " " + check.path("id").asString("") + ": "
        + check.path("errorMessage").asString(check.path("description").asString(""))
        + (details.isMissingNode() ? "" : " details=" + details);
  }

  private static String readOrNote(Path file) {
    try {
      if (!Files.isRegularFile(file)) {
        return "(missing)";
      }
      return ANSI.matcher(Files.readString(file, StandardCharsets.UTF_8)).replaceAll("");
    } catch (IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }

  private static String tail(String text, int maxChars) {
    return text.length() <= maxChars ? text : "...\n" + text.substring(text.length() - maxChars);
  }
}
