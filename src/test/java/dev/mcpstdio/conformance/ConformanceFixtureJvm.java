package dev.mcpstdio.conformance;

import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.LineCollector;
import dev.mcpstdio.testing.NodePeers;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The command that starts the Java conformance fixture ({@link ConformanceFixtureServer}) as a
 * stdio child of serve. A 2025-era session gets a child of its own, so the conformance ITs start
 * one fixture JVM per scenario and its start-up is most of what a scenario costs once Node starts
 * only once ({@link ConformanceBatch}).
 *
 * <p>Made once per test JVM under {@code target/conformance/fixture/}: {@code
 * conformance-fixture.jar}, a private copy of the fixture's class files (children start throughout
 * the run, and another build may recompile {@code target/test-classes} meanwhile; a jar, because
 * the JVM's class cache refuses a non-empty directory on the class path), and {@code fixture.aot},
 * an ahead-of-time cache of the classes the fixture loads (JDK 25 {@code -XX:AOTCacheOutput}),
 * trained by one run through initialize and the list methods ({@code training.log}). The cache
 * roughly halves a child's start-up; when training fails the fixture runs without it (said on
 * stderr), and a cache the JVM finds stale is only a warning on the child's stderr.
 */
final class ConformanceFixtureJvm {

  /** The fixture JVM: stdio-safe (nothing but JSON-RPC on stdout), quick to start, small. */
  static final List<String> FLAGS = List.of(
      "-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr",
      "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

  /** The fixture's classes: {@link ConformanceFixtureServer} and the 2026 scenarios' surface. */
  private static final List<Class<?>> CLASSES = List.of(ConformanceFixtureServer.class, ConformanceFixture2026Surface.class);

  /** Our bound on the training run (two JVMs: the run itself, then the cache's assembly). */
  private static final Duration TRAINING_TIMEOUT = Duration.ofSeconds(90);

  /** What the training run is sent: the requests every scenario's session begins with. */
  private static final List<String> TRAINING = List.of(
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{\"elicitation\":{}},\"clientInfo\":{\"name\":\"training\",\"version\":\"1\"}}}",
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/list\"}",
      "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"prompts/list\"}");

  private static List<String> command;

  private ConformanceFixtureJvm() {}

  /** The fixture's argv for serve to spawn. */
  static synchronized List<String> command() throws IOException, InterruptedException {
    if (command == null) {
      Path dir = NodePeers.basedir().resolve("target/conformance/fixture");
      ConformanceRuns.deleteRecursively(dir);
      Files.createDirectories(dir);
      List<String> tail = List.of("-cp", classpath(writeJar(dir.resolve("conformance-fixture.jar"))),
          ConformanceFixtureServer.class.getName());
      Path cache = dir.resolve("fixture.aot");
      boolean trained = train(cache, tail, dir.resolve("training.log"));
      List<String> argv = new ArrayList<>(List.of(JarProcess.java()));
      argv.addAll(FLAGS);
      if (trained) {
        argv.add("-XX:AOTCache=" + cache);
      }
      argv.addAll(tail);
      command = List.copyOf(argv);
    }
    return command;
  }

  /** Runs the fixture once with {@code -XX:AOTCacheOutput}; true when the cache was written. */
  private static boolean train(Path cache, List<String> tail, Path log) throws IOException, InterruptedException {
    List<String> argv = new ArrayList<>(List.of(JarProcess.java()));
    argv.addAll(FLAGS);
    argv.add("-XX:AOTCacheOutput=" + cache);
    argv.addAll(tail);
    long start = System.nanoTime();
    Process process = new ProcessBuilder(argv).redirectErrorStream(false).redirectError(log.toFile()).start();
    LineCollector stdout = new LineCollector().collect(process.getInputStream());
    String failure = null;
    try (OutputStream stdin = process.getOutputStream()) {
      for (String line : TRAINING) {
        stdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      }
      stdin.flush();
      stdout.nextMatching(l -> l.contains("\"id\":4"), TRAINING_TIMEOUT);
      trainACallThatAsks(stdin, stdout);
    } catch (AssertionError | IOException e) {
      failure = "the fixture did not answer: " + e.getMessage();
    }
    // stdin is closed now: the fixture exits, and the JVM assembles the cache before the process ends
    if (!process.waitFor(TRAINING_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      failure = "the training run did not end within " + TRAINING_TIMEOUT.toSeconds() + " s";
    } else if (failure == null && (process.exitValue() != 0 || !Files.isRegularFile(cache))) {
      failure = "exit " + process.exitValue() + ", cache written: " + Files.isRegularFile(cache);
    }
    long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start);
    System.err.println(failure == null
        ? "[conformance] Java fixture's AOT cache trained in " + seconds + " s: " + cache
        : "[conformance] Java fixture runs without an AOT cache (" + failure + "; see " + log + ")");
    return failure == null;
  }

  private static final Pattern FIRST_ID = Pattern.compile("\"id\":(\"[^\"]*\"|[0-9]+)");

  /**
   * Best effort, after the list methods: a tools/call that logs and one that asks its client
   * (elicitation), answered, so the cache also holds the classes of a call and of a server-to-client
   * request (the 2026 scenarios' first such call, through serve, meets a child that just started,
   * and one of them allows 600 ms). A fixture that does not get this far is trained on the rest.
   */
  private static void trainACallThatAsks(OutputStream stdin, LineCollector stdout) throws IOException {
    stdin.write(("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\""
        + ConformanceFixture2026Surface.LOGGING_TOOL + "\",\"arguments\":{}}}\n"
        + "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"tools/call\",\"params\":{\"name\":\""
        + ConformanceFixture2026Surface.STREAMING_ELICITATION + "\",\"arguments\":{}}}\n").getBytes(StandardCharsets.UTF_8));
    stdin.flush();
    try {
      String ask = stdout.nextMatching(l -> l.contains("\"method\":\"elicitation/create\""), TRAINING_TIMEOUT);
      Matcher id = FIRST_ID.matcher(ask);
      if (!id.find()) {
        return;
      }
      stdin.write(("{\"jsonrpc\":\"2.0\",\"id\":" + id.group(1) + ",\"result\":{\"action\":\"accept\","
          + "\"content\":{\"name\":\"training\"}}}\n").getBytes(StandardCharsets.UTF_8));
      stdin.flush();
      stdout.nextMatching(l -> l.contains("\"id\":6"), TRAINING_TIMEOUT);
    } catch (AssertionError e) {
      System.err.println("[conformance] the fixture's training call did not complete (" + e.getMessage()
          + "); its cache holds the rest");
    }
  }

  /** The fixture's class files (nest members and anonymous classes included) in a jar of their own. */
  private static Path writeJar(Path jar) throws IOException {
    Set<String> names = new LinkedHashSet<>();
    for (Class<?> top : CLASSES) {
      Arrays.stream(top.getNestMembers()).map(Class::getName).forEach(names::add);
      // anonymous classes are nest members too, but getNestMembers need not list them all
      for (int i = 1; top.getClassLoader().getResource(top.getName().replace('.', '/') + "$" + i + ".class") != null; i++) {
        names.add(top.getName() + "$" + i);
      }
    }
    try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
      for (String name : names) {
        copyClass(ConformanceFixtureJvm.class.getClassLoader(), name, out);
      }
    }
    return jar;
  }

  private static void copyClass(ClassLoader loader, String className, JarOutputStream out) throws IOException {
    String resource = className.replace('.', '/') + ".class";
    try (InputStream in = loader.getResourceAsStream(resource)) {
      if (in == null) {
        throw new AssertionError("class file not found on the test classpath: " + resource);
      }
      out.putNextEntry(new JarEntry(resource));
      in.transferTo(out);
      out.closeEntry();
    }
  }

  /**
   * The fixture's jar, then the test classpath's entries from outside this project's {@code target}
   * directory (the SDK and its dependencies; the project's own jars may be repackaged meanwhile).
   */
  private static String classpath(Path jar) {
    Path projectTarget = NodePeers.basedir().resolve("target").toAbsolutePath().normalize();
    List<String> entries = new ArrayList<>();
    entries.add(jar.toString());
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
}
