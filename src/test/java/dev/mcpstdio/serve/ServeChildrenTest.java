package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static dev.mcpstdio.serve.ServeHarness.shAfterInit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.testing.Await;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** Children that misbehave, and the lifecycle of sessions and their children. */
class ServeChildrenTest {

  private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{}}}";
  private static final String ANSWER = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}";
  private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}";

  private static ServeHarness start(ChildSpec child, Duration backendTimeout, Duration idleTtl, int maxSessions) throws Exception {
    return ServeHarness.start(ServeHarness.config(child)
        .withLimits(maxSessions, idleTtl, 1 << 20, backendTimeout, Duration.ofSeconds(15)));
  }

  private static ServeHarness start(ChildSpec child) throws Exception {
    return start(child, Duration.ofSeconds(10), Duration.ZERO, 10);
  }

  @Test
  void aChildThatCrashesMidRequestFailsTheRequestThenTheSessionIs503OnceThen404() throws Exception {
    try (ServeHarness serve = start(shAfterInit("read n; read call; echo 'about to crash' >&2; exit 3"))) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, false);
      assertThat(call.statusCode()).isEqualTo(503);
      assertThat(call.body()).contains("\"id\":2").contains("exited with code 3");
      HttpResponse<String> next = serve.post(session, PING, false);
      assertThat(next.statusCode()).isEqualTo(503);
      assertThat(next.body()).contains("backend unavailable");
      assertThat(serve.post(session, PING, false).statusCode()).isEqualTo(404);
      assertThat(serve.log()).contains("[session " + session.substring(0, 8) + "] child " + serve.childPid(session)
          + " stderr> about to crash");
    }
  }

  @Test
  void aCrashSeenOnAnEventStreamEndsItWithAnErrorForTheRequest() throws Exception {
    try (ServeHarness serve = start(shAfterInit("read n; read call; exit 4"))) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, true);
      assertThat(call.statusCode()).isEqualTo(200); // the stream had started
      assertThat(ServeHarness.events(call.body())).singleElement()
          .satisfies(e -> assertThat(e).contains("\"id\":2,\"error\"").contains("exited with code 4"));
    }
  }

  @Test
  void garbageOnTheChildsStdoutIsLoggedAndDroppedAndTheAnswerStillArrives() throws Exception {
    try (ServeHarness serve = start(shAfterInit("read n; read call; echo 'this is not json'; echo '{\"half\":';"
        + " echo '" + ANSWER + "'; cat >/dev/null"))) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, false);
      assertThat(call.statusCode()).isEqualTo(200);
      assertThat(call.body()).isEqualTo(ANSWER);
      serve.awaitLog("the server wrote a line that is not JSON");
    }
  }

  @Test
  void aChildFloodingStderrKeepsAnsweringAndEveryLineIsLoggedWithItsSession() throws Exception {
    try (ServeHarness serve = start(shAfterInit("read n; read call; i=0; while [ $i -lt 20000 ]; do echo \"noise $i\" >&2;"
        + " i=$((i+1)); done; echo '" + ANSWER + "'; cat >/dev/null"))) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, false);
      assertThat(call.body()).isEqualTo(ANSWER);
      serve.awaitLog("[session " + session.substring(0, 8) + "] child " + serve.childPid(session) + " stderr> noise 19999");
    }
  }

  @Test
  void aChildIgnoringSigtermIsKilledWhenItsSessionEnds() throws Exception {
    try (ServeHarness serve = start(shAfterInit("trap '' TERM; while :; do sleep 0.05; done"))) {
      String session = serve.initialize();
      long pid = serve.childPid(session);
      assertThat(serve.delete(session).statusCode()).isEqualTo(200);
      serve.awaitLog("ignored SIGTERM");
      Await.until("child " + pid + " to be gone", Duration.ofSeconds(10),
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void aRequestTheChildNeverAnswersGets504AndTheChildIsToldToCancel() throws Exception {
    ChildSpec child = shAfterInit("while read line; do echo \"got $line\" >&2; done");
    try (ServeHarness serve = start(child, Duration.ofSeconds(1), Duration.ZERO, 10)) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, false);
      assertThat(call.statusCode()).isEqualTo(504);
      assertThat(call.body()).contains("\"id\":2").contains("no response from the server within 1 s");
      serve.awaitLog("got {\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2");
      // the session lives on
      HttpResponse<String> stream = serve.post(session, CALL.replace("\"id\":2", "\"id\":5"), true);
      assertThat(ServeHarness.events(stream.body())).singleElement()
          .satisfies(e -> assertThat(e).contains("\"id\":5,\"error\"").contains("within 1 s"));
    }
  }

  @Test
  void aProgramThatCannotStartIsReported503AndNotReady() throws Exception {
    try (ServeHarness serve = start(new ChildSpec(List.of("/nonexistent/mcp-server")))) {
      HttpResponse<String> init = serve.post(null, INIT, false);
      assertThat(init.statusCode()).isEqualTo(503);
      assertThat(init.body()).contains("\"id\":1").contains("could not be started");
      HttpResponse<String> ready = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/readyz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(ready.statusCode()).isEqualTo(503);
      assertThat(ready.body()).contains("command not found or not executable");
    }
  }

  @Test
  void aChildThatDiesBeforeAnsweringInitializeFreesItsSlot() throws Exception {
    try (ServeHarness serve = start(ServeHarness.sh("read init; exit 1"), Duration.ofSeconds(10), Duration.ZERO, 1)) {
      for (int i = 0; i < 3; i++) { // with one slot, a leak would show as 503 "session limit reached"
        HttpResponse<String> init = serve.post(null, INIT, false);
        assertThat(init.statusCode()).isEqualTo(503);
        assertThat(init.body()).contains("exited");
      }
    }
  }

  @Test
  void anInitializeTheChildNeverAnswersTimesOutAndEndsTheSession() throws Exception {
    try (ServeHarness serve = start(ServeHarness.sh("cat >/dev/null"), Duration.ofSeconds(1), Duration.ZERO, 1)) {
      HttpResponse<String> init = serve.post(null, INIT, false);
      assertThat(init.statusCode()).isEqualTo(504);
      // the slot is free again
      assertThat(serve.post(null, INIT, false).statusCode()).isEqualTo(504);
    }
  }

  @Test
  void idleSessionsAreEndedAfterTheirTtl() throws Exception {
    try (ServeHarness serve = start(shAfterInit("cat >/dev/null"), Duration.ofSeconds(5), Duration.ofSeconds(1), 10)) {
      String session = serve.initialize();
      long pid = serve.childPid(session);
      Await.until("the idle session to be ended", Duration.ofSeconds(10),
          () -> serve.log().contains("idle for 1 s; ending the session"));
      assertThat(serve.post(session, PING, false).statusCode()).isEqualTo(404);
      Await.until("child " + pid + " to be gone", Duration.ofSeconds(10),
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
    }
  }

  @Test
  void closingTheGatewayEndsStreamsAndEveryChild() throws Exception {
    ServeHarness serve = start(shAfterInit("cat >/dev/null"));
    String a = serve.initialize();
    String b = serve.initialize();
    List<Long> pids = List.of(serve.childPid(a), serve.childPid(b));
    HttpResponse<Stream<String>> stream = serve.openStream(a);
    CompletableFuture<Long> drained = CompletableFuture.supplyAsync(() -> stream.body().count(), dev.mcpstdio.testing.Threads.VIRTUAL);
    serve.close();
    assertThat(drained.get(10, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(0);
    for (long pid : pids) {
      assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("child " + pid).isFalse();
    }
  }

  /**
   * A grandchild that left its child's group and session (setsid) and ignores SIGTERM: ended by
   * the gateway's graceful stop (its cookie), like the child. Linux with util-linux setsid.
   */
  @Test
  void closingTheGatewayEndsAGrandchildThatStartedASessionOfItsOwn(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path dir) throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(System.getProperty("os.name").equals("Linux")
        && java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/setsid")), "Linux with setsid");
    java.nio.file.Path pidFile = dir.resolve("grandchild");
    ServeHarness serve = start(shAfterInit("( setsid sh -c 'trap \"\" TERM; exec sleep 600' </dev/null >/dev/null 2>&1"
        + " & echo $! > '" + pidFile + ".new' ); mv '" + pidFile + ".new' '" + pidFile + "'; cat >/dev/null"));
    long grandchild = -1;
    boolean stopped = false;
    try {
      serve.initialize();
      Await.until("the grandchild's pid", Duration.ofSeconds(10), () -> java.nio.file.Files.exists(pidFile));
      grandchild = Long.parseLong(java.nio.file.Files.readString(pidFile).trim());
      long pid = grandchild;
      Await.until("the grandchild to lead a session of its own", Duration.ofSeconds(10), () -> {
        try {
          String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
          return stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2].equals(Long.toString(pid));
        } catch (java.io.IOException e) {
          throw new AssertionError("the grandchild is gone", e);
        }
      });

      stopped = true;
      serve.close();

      Await.until("grandchild " + pid + " to be gone", Duration.ofSeconds(10),
          () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true) || zombie(pid));
    } finally {
      if (!stopped) {
        serve.close();
      }
      if (grandchild > 0) {
        ProcessHandle.of(grandchild).ifPresent(ProcessHandle::destroyForcibly);
      }
    }
  }

  /** A zombie has exited; reaping an orphan is the test machine's init's job, not the gateway's. */
  private static boolean zombie(long pid) {
    try {
      String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/stat"));
      return stat.charAt(stat.lastIndexOf(')') + 2) == 'Z';
    } catch (java.io.IOException | RuntimeException e) {
      return true;
    }
  }

  @Test
  void callbackLinesOnTheChildsStderrAreRecognisedAndBrokenOnesLoggedWithAWarning() throws Exception {
    ChildSpec child = shAfterInit("echo '__CALLBACK__{\"type\":\"confirm\",\"id\":\"c1\",\"sessionId\":\"s\",\"message\":\"ok?\"}' >&2;"
        + " echo '__CALLBACK__{not json' >&2; echo 'done' >&2; cat >/dev/null");
    try (ServeHarness serve = start(child)) {
      String session = serve.initialize();
      serve.awaitLog("stderr> done");
      assertThat(serve.log()).contains("callback confirm (id c1)")
          .contains("is not a valid callback (callback is not one JSON object); logged as text")
          .contains("stderr> __CALLBACK__{not json")
          .doesNotContain("stderr> __CALLBACK__{\"type\"");
    }
  }

  @Test
  void aSessionScopedChildGetsItsSessionOnArgvAndAPrivateFolderRemovedWithIt(@org.junit.jupiter.api.io.TempDir
      java.nio.file.Path root) throws Exception {
    ChildSpec child = ServeHarness.sh("read init; echo '" + ServeHarness.initResult("scoped")
        + "'; echo \"argv: $0 $1 $2 $3\" >&2; cat >/dev/null");
    ServeConfig config = ServeHarness.config(child).withLaunch(new ServeConfig.SessionLaunch(
        List.of("--session-id", "{sessionId}", "--workspace-root", "{workspaceRoot}"), root, false));
    try (ServeHarness serve = ServeHarness.start(config)) {
      String session = serve.initialize();
      serve.awaitLog("argv: --session-id ");
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("argv: --session-id ([0-9a-f]{32}) --workspace-root (\\S+)")
          .matcher(serve.log());
      assertThat(m.find()).isTrue();
      assertThat(m.group(1)).as("the child sees a public id, never the session's capability").isNotEqualTo(session);
      java.nio.file.Path folder = root.resolve(m.group(1));
      assertThat(m.group(2)).isEqualTo(folder.toString());
      assertThat(folder).isDirectory();
      assertThat(folder.resolve("plans")).isDirectory();
      serve.delete(session);
      Await.until("the workspace to be removed", Duration.ofSeconds(10), () -> !java.nio.file.Files.exists(folder));
    }
  }

  @Test
  void anOversizedAnswerWithAReadableIdFailsItsRequestAtOnce() throws Exception {
    // the answer's id comes first, then 2 MB of result: over the 1 MiB bound
    ChildSpec child = shAfterInit("read n; read call; printf '{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"text\":\"';"
        + " head -c 2000000 /dev/zero | tr '\\0' 'x'; echo '\"}}'; cat >/dev/null");
    // a backend timeout far beyond the HTTP client's wait: only an answer at once passes
    try (ServeHarness serve = start(child, Duration.ofMinutes(10), Duration.ZERO, 10)) {
      String session = serve.initialize();
      HttpResponse<String> call = serve.post(session, CALL, false);
      assertThat(call.statusCode()).isEqualTo(502);
      assertThat(call.body()).contains("\"id\":2,\"error\"").contains("over --max-message-size");
      serve.awaitLog("tools/call (id 2): the server's answer is "); // written just after the answer
      assertThat(serve.log()).containsPattern("the server's answer is 20000\\d\\d bytes, over --max-message-size");
    }
  }

  @Test
  void anOversizedLineFromTheChildIsDroppedAndReported() throws Exception {
    ChildSpec child = shAfterInit("read n; read call; head -c 2000000 /dev/zero | tr '\\0' 'x'; echo; echo '" + ANSWER
        + "'; cat >/dev/null");
    try (ServeHarness serve = start(child)) {
      String session = serve.initialize();
      assertThat(serve.post(session, CALL, false).body()).isEqualTo(ANSWER);
      serve.awaitLog("-byte line, over --max-message-size; dropped");
    }
  }
}
