package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code serve --warm N} with real children (shell scripts the gateway spawns without a shell of
 * its own around them): each script carries a marker of its test in its argv, so the test counts
 * its live children in {@code /proc} the way an operator would with {@code ps}. The gateway runs in
 * the test's JVM, so its children are this JVM's.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServeWarmTest {

  private static final String ANSWER_INIT = "echo '" + ServeHarness.initResult("warm-child") + "'";

  private final String marker = "warm-test-" + UUID.randomUUID();

  /** A shell child whose argv carries this test's marker. */
  private dev.mcpstdio.process.ChildSpec child(String body) {
    return ServeHarness.sh(": " + marker + "; " + body);
  }

  /**
   * The pids of this test's children alive now: the gateway's own children (it runs in this JVM),
   * not what they fork (a shell's fork shows its command line until it execs); a zombie has an
   * empty command line and is not counted.
   */
  private Set<Long> alive() {
    try (Stream<ProcessHandle> all = ProcessHandle.current().children()) {
      return all.filter(p -> commandLine(p.pid()).contains(marker)).map(ProcessHandle::pid).collect(Collectors.toSet());
    }
  }

  private static String commandLine(long pid) {
    try {
      return new String(Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline")), StandardCharsets.UTF_8).replace('\0', ' ');
    } catch (IOException e) {
      return ""; // gone
    }
  }

  /** Waits until exactly {@code count} of this test's children are alive; returns their pids. */
  private Set<Long> awaitAlive(String what, int count) {
    return Await.value(what + " (" + count + " children alive)", Duration.ofSeconds(20), () -> {
      Set<Long> now = alive();
      return now.size() == count ? now : null;
    });
  }

  private static boolean gone(long pid) {
    return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
  }

  @Test
  void aClientTakesAWarmChildWhoseArgvWasSetAtSpawnAndWhoseFirstLineIsTheClientsInitialize(@TempDir Path root)
      throws Exception {
    String script = "echo \"args: $0 $1\" >&2; echo \"channel: $MCP_STDIO_CALLBACK_URL\" >&2; read first;"
        + " echo \"first line: $first\" >&2; " + ANSWER_INIT + "; cat >/dev/null";
    ServeConfig config = ServeHarness.config(child(script))
        .withLaunch(new ServeConfig.SessionLaunch(List.of("{sessionId}", "{workspaceRoot}"), root, false)).withWarm(1);
    try (ServeHarness serve = ServeHarness.start(config)) {
      // Before any client: the warm child is running with its session's public id and workspace.
      Matcher spawned = Await.value("the warm child's argv in the log", Duration.ofSeconds(20), () -> {
        Matcher m = Pattern.compile("\\[session ([0-9a-f]{8})\\] child (\\d+) stderr> args: ([0-9a-f]{32}) (\\S+)")
            .matcher(serve.log());
        return m.find() ? m : null;
      });
      String tag = spawned.group(1);
      long pid = Long.parseLong(spawned.group(2));
      String publicId = spawned.group(3);
      Path workspace = Path.of(spawned.group(4));
      assertThat(workspace).isEqualTo(root.resolve(publicId)).isDirectory();
      assertThat(alive()).containsExactly(pid);
      assertThat(serve.log()).doesNotContain("first line:"); // it waits for its first line

      String session = serve.initialize();
      assertThat(session).startsWith(tag).isNotEqualTo(publicId); // the same session, its capability apart
      assertThat(serve.childPid(session)).isEqualTo(pid);
      assertThat(serve.log()).containsPattern("\\[session " + tag + "\\] started /bin/sh \\(pid " + pid
          + "\\), \\d+ ms ahead of need\n");
      serve.awaitLog("[session " + tag + "] child " + pid + " stderr> first line: "
          + "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"");
      assertThat(serve.log()).contains("[session " + tag + "] child " + pid + " stderr> channel: http://127.0.0.1:")
          .containsPattern("stderr> channel: \\S*" + publicId);
      assertThat(commandLine(pid)).contains(publicId).doesNotContain(session);
      assertThat(serve.log()).doesNotContain(session);

      assertThat(serve.delete(session).statusCode()).isEqualTo(200);
      Await.until("the session's workspace removed", Duration.ofSeconds(20), () -> !Files.exists(workspace));
    }
  }

  @Test
  void thePoolRefillsToNBesideTheLiveSessionsAndAWarmChildThatDiesIsReplaced() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child("read first; " + ANSWER_INIT + "; cat >/dev/null"))
        .withWarm(2))) {
      assertThat(serve.gateway.describe()).contains("max 100 sessions, 2 warm, idle-ttl");
      Set<Long> warm = awaitAlive("two warm children", 2);
      String session = serve.initialize();
      long live = serve.childPid(session);
      assertThat(warm).contains(live);
      awaitAlive("one live child and two warm ones", 3);

      long victim = alive().stream().filter(p -> p != live).findFirst().orElseThrow();
      ProcessHandle.of(victim).orElseThrow().destroyForcibly();
      Await.until("the dead warm child replaced", Duration.ofSeconds(20),
          () -> gone(victim) && alive().size() == 3 && !alive().contains(victim));
      serve.awaitLog("ended before a client took it");

      String second = serve.initialize(); // a warm one, not the dead one
      assertThat(serve.childPid(second)).isNotEqualTo(victim).isNotEqualTo(live);
      assertThat(serve.log()).containsPattern("\\[session " + second.substring(0, 8) + "\\] started .*, \\d+ ms ahead of need\n");
    }
  }

  @Test
  void warmChildrenAreExtraProcessesBesideTheSessionCapAndAClientTurnedAwayLeavesThemWaiting() throws Exception {
    ServeConfig config = ServeHarness.config(child("read first; " + ANSWER_INIT + "; cat >/dev/null"))
        .withLimits(1, Duration.ZERO, 1 << 20, Duration.ofSeconds(10), Duration.ofSeconds(15)).withWarm(1);
    try (ServeHarness serve = ServeHarness.start(config)) {
      long first = awaitAlive("the warm child", 1).iterator().next();
      String session = serve.initialize();
      assertThat(serve.childPid(session)).isEqualTo(first);
      Set<Long> before = awaitAlive("the live child and a new warm one", 2); // --max-sessions + --warm at most

      HttpResponse<String> refused = serve.post(null, INIT, false);
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.body()).contains("session limit reached (1)");
      assertThat(alive()).isEqualTo(before); // the warm child still waits, untouched

      assertThat(serve.delete(session).statusCode()).isEqualTo(200);
      Await.until("the ended session's child gone", Duration.ofSeconds(20), () -> gone(first));
      long waiting = before.stream().filter(p -> p != first).findFirst().orElseThrow();
      String next = serve.initialize();
      assertThat(serve.childPid(next)).isEqualTo(waiting);
    }
  }

  @Test
  void shutdownEndsEveryWarmChildAndItsDescendantsEvenOnesThatIgnoreSigterm() throws Exception {
    // Deaf to stdin's end and to SIGTERM, and so is its descendant: only the ladder's SIGKILL ends them.
    String stubborn = "trap '' TERM; sleep 1000 & read first; " + ANSWER_INIT + "; while :; do sleep 1000; done";
    ServeHarness serve = ServeHarness.start(ServeHarness.config(child(stubborn)).withWarm(3));
    Set<Long> tree = new HashSet<>();
    try {
      awaitAlive("three warm children", 3);
      serve.initialize(); // one of them live now, replaced in the pool
      awaitAlive("one live child and three warm ones", 4);
      Await.until("every child's sleep running", Duration.ofSeconds(20),
          () -> alive().stream().allMatch(p -> ProcessHandle.of(p).map(h -> h.children().findAny().isPresent()).orElse(false)));
      for (long p : alive()) {
        tree.add(p);
        ProcessHandle.of(p).ifPresent(h -> h.descendants().forEach(d -> tree.add(d.pid())));
      }
    } finally {
      serve.close();
    }
    assertThat(alive()).isEmpty(); // close returned: every child was ended and reaped
    Await.until("no process of the children's trees left", Duration.ofSeconds(10), () -> tree.stream().allMatch(ServeWarmTest::gone));
    assertThat(serve.log()).contains("ignored SIGTERM");
  }

  @Test
  void withoutWarmNoChildStartsBeforeAClientInitializes() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child("read first; echo \"first line: $first\" >&2; "
        + ANSWER_INIT + "; cat >/dev/null")))) {
      assertThat(serve.gateway.describe()).contains("max 100 sessions, idle-ttl");
      assertThat(alive()).isEmpty();
      String session = serve.initialize();
      long pid = serve.childPid(session);
      assertThat(alive()).containsExactly(pid);
      assertThat(serve.log()).containsPattern("\\[session " + session.substring(0, 8) + "\\] started /bin/sh \\(pid " + pid + "\\)\n")
          .doesNotContain("ahead of need");
      serve.awaitLog("child " + pid + " stderr> first line: {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"");
    }
  }

  @Test
  void aWarmChildUnusedForTheIdleTtlIsClosedAndTheNextClientRefillsThePool() throws Exception {
    ServeConfig config = ServeHarness.config(child("read first; " + ANSWER_INIT + "; cat >/dev/null"))
        .withLimits(10, Duration.ofSeconds(1), 1 << 20, Duration.ofSeconds(10), Duration.ofSeconds(15)).withWarm(1);
    try (ServeHarness serve = ServeHarness.start(config)) {
      long idle = awaitAlive("the warm child", 1).iterator().next();
      serve.awaitLog("closing the child started ahead of need: unused for 1 s (the next client refills the pool)");
      Await.until("the idle warm child gone", Duration.ofSeconds(20), () -> gone(idle));
      assertThat(alive()).isEmpty(); // not replaced while nobody comes

      String session = serve.initialize(); // spawned for it: none waited
      long pid = serve.childPid(session);
      assertThat(serve.log()).containsPattern("\\[session " + session.substring(0, 8) + "\\] started /bin/sh \\(pid " + pid + "\\)\n");
      Await.until("the pool refilled behind the client", Duration.ofSeconds(20),
          () -> alive().stream().anyMatch(p -> p != pid && p != idle));
    }
  }

  @Test
  void anHttpSseClientTakesAWarmChildToo() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child("read first; " + ANSWER_INIT + "; cat >/dev/null"))
        .withWarm(1))) {
      long warm = awaitAlive("the warm child", 1).iterator().next();
      HttpResponse<Stream<String>> stream = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/sse"))
          .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines());
      assertThat(stream.statusCode()).isEqualTo(200);
      Iterator<String> lines = stream.body().iterator();
      String endpoint = ServeHarness.nextEvent(lines);
      assertThat(endpoint).startsWith("/messages?sessionId=");
      HttpResponse<String> accepted = serve.http.send(HttpRequest.newBuilder(serve.url.resolve(endpoint))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(INIT)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(accepted.statusCode()).isEqualTo(202);
      assertThat(ServeHarness.nextEvent(lines)).contains("\"id\":1").contains("warm-child");
      String session = endpoint.substring(endpoint.indexOf('=') + 1);
      assertThat(serve.childPid(session)).isEqualTo(warm);
      assertThat(serve.log()).containsPattern("started /bin/sh \\(pid " + warm + "\\), \\d+ ms ahead of need for an HTTP\\+SSE client");
      stream.body().close();
    }
  }
}
