package dev.mcpstdio.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link ChildProcess} against real children. The test children are small {@code /bin/sh -c}
 * scripts (the gateway itself never uses a shell; a test child may).
 */
class ChildProcessTest {

  private static final Duration WAIT = Duration.ofSeconds(15);
  private static final ChildProcess.Ladder SHORT = new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300));
  /** Generous first steps: a test that must not reach a step does not depend on machine load. */
  private static final ChildProcess.Ladder PATIENT = new ChildProcess.Ladder(Duration.ofSeconds(10), Duration.ofSeconds(10));

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Log log = new Log(logBytes, Log.Level.DEBUG, new Redactor()).tagged("child");
  private final List<ChildProcess> started = new ArrayList<>();
  private final List<Long> strays = new ArrayList<>();

  /** Records what the child's stdout pump hands over. */
  static class Recorder implements ChildProcess.Listener {
    final List<String> lines = new CopyOnWriteArrayList<>();
    final List<Long> oversized = new CopyOnWriteArrayList<>();
    final AtomicInteger closedCount = new AtomicInteger();
    final CompletableFuture<Void> closed = new CompletableFuture<>();

    @Override
    public void onLine(byte[] line) {
      lines.add(new String(line, StandardCharsets.UTF_8));
    }

    @Override
    public void onOversizedLine(long length, byte[] head) {
      oversized.add(length);
    }

    @Override
    public void onStdoutClosed() {
      closedCount.incrementAndGet();
      closed.complete(null);
    }

    String awaitLine(int index) {
      Await.until("stdout line #" + index + " (have " + lines + ")", WAIT, () -> lines.size() > index);
      return lines.get(index);
    }

    void awaitClosed() throws Exception {
      closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }
  }

  private ChildProcess sh(String script, Recorder recorder) throws IOException {
    return sh(script, 1024 * 1024, SHORT, recorder);
  }

  private ChildProcess sh(String script, long maxLineBytes, ChildProcess.Ladder ladder, Recorder recorder)
      throws IOException {
    return start(new ChildSpec(List.of("/bin/sh", "-c", script)), maxLineBytes, ladder, recorder);
  }

  private ChildProcess start(ChildSpec spec, long maxLineBytes, ChildProcess.Ladder ladder, Recorder recorder)
      throws IOException {
    ChildProcess child = ChildProcess.start(spec, maxLineBytes, log, ladder, recorder);
    started.add(child);
    return child;
  }

  private String logText() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  private void awaitLog(String fragment) {
    try {
      Await.until("log containing '" + fragment + "'", WAIT, () -> logText().contains(fragment));
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; log so far:\n" + tail(), e);
    }
  }

  private String tail() {
    String text = logText();
    return text.length() > 2000 ? "..." + text.substring(text.length() - 2000) : text;
  }

  /**
   * Whether {@code pid} still runs. A zombie counts as dead: it has exited, and reaping an orphan
   * is the job of whatever init the test machine has, not of the gateway.
   */
  static boolean running(long pid) {
    Optional<Boolean> alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive);
    if (alive.isEmpty() || !alive.get()) {
      return false;
    }
    try {
      String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
      int afterName = stat.lastIndexOf(')');
      return afterName < 0 || stat.length() < afterName + 3 || stat.charAt(afterName + 2) != 'Z';
    } catch (IOException e) {
      return false; // gone between the two looks
    }
  }

  private void awaitDead(long pid) {
    Await.until("process " + pid + " to be gone", WAIT, () -> !running(pid));
  }

  @AfterEach
  void killEverythingStarted() {
    for (ChildProcess child : started) {
      ProcessHandle.of(child.pid()).ifPresent(h -> {
        h.descendants().forEach(ProcessHandle::destroyForcibly);
        h.destroyForcibly();
      });
    }
    for (long pid : strays) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (ChildProcess child : started) {
      child.close(); // reaps; quick now that everything is dead
    }
  }

  /** The pid a child's script printed first: a grandchild, killed by the clean-up should it survive. */
  private long grandchild(Recorder out) {
    long pid = Long.parseLong(out.awaitLine(0));
    strays.add(pid);
    return pid;
  }

  // ---------------------------------------------------------------- stdout

  @Test
  void stdoutLinesReachTheListenerInOrderWithBlankLinesSkippedAndCrlfHandled() throws Exception {
    Recorder out = new Recorder();
    sh("printf 'one\\n\\ntwo\\r\\nthree\\n\\r\\n\\n  \\nfour'", out);

    out.awaitClosed();

    // a line of spaces is not blank to the pump: only empty lines are skipped
    assertThat(out.lines).containsExactly("one", "two", "three", "  ", "four");
    assertThat(out.oversized).isEmpty();
  }

  @Test
  void manyStdoutLinesArriveInOrder() throws Exception {
    Recorder out = new Recorder();
    sh("i=0; while [ $i -lt 2000 ]; do echo \"line $i\"; i=$((i+1)); done", out);

    out.awaitClosed();

    assertThat(out.lines).hasSize(2000);
    for (int i = 0; i < 2000; i++) {
      assertThat(out.lines.get(i)).isEqualTo("line " + i);
    }
  }

  @Test
  void aStdoutLineOverTheBoundIsReportedAndTheLinesAfterItStillArrive() throws Exception {
    Recorder out = new Recorder();
    // 100 zeros on one line, bound 16 bytes
    sh("printf 'short\\n%0100d\\nafter\\n' 0; printf '%016d\\n' 7", 16, SHORT, out);

    out.awaitClosed();

    assertThat(out.oversized).containsExactly(100L);
    assertThat(out.lines).containsExactly("short", "after", "0000000000000007"); // exactly the bound is fine
  }

  @Test
  void onStdoutClosedIsCalledExactlyOnceWhenTheChildExits() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("echo bye; exit 3", out);

    out.awaitClosed();
    assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(3);
    child.close();
    child.close();

    assertThat(out.lines).containsExactly("bye");
    assertThat(out.closedCount).hasValue(1);
  }

  @Test
  void exitedCompletesWithTheExitCode() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exit 7", out);

    assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(7);
    assertThat(child.isAlive()).isFalse();
    assertThat(child.pid()).isPositive();
  }

  @Test
  void aListenerThatThrowsIsLoggedAndStillToldThatStdoutClosed() throws Exception {
    AtomicInteger closedCount = new AtomicInteger();
    CompletableFuture<Void> closed = new CompletableFuture<>();
    ChildProcess.Listener throwing = new ChildProcess.Listener() {
      @Override
      public void onLine(byte[] line) {
        throw new IllegalStateException("listener broke");
      }

      @Override
      public void onStdoutClosed() {
        closedCount.incrementAndGet();
        closed.complete(null);
      }
    };
    ChildProcess child = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", "echo x")), 1024, log, SHORT, throwing);
    started.add(child);

    closed.get(WAIT.toSeconds(), TimeUnit.SECONDS);

    awaitLog("handling a line from the child failed");
    assertThat(logText()).contains("listener broke");
    assertThat(closedCount).hasValue(1);
  }

  // ---------------------------------------------------------------- stdin

  @Test
  void sendWritesOneLineTheChildReceives() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exec cat", out);

    assertThat(child.send("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}".getBytes(StandardCharsets.UTF_8))).isTrue();
    assertThat(child.send("{\"n\":2}".getBytes(StandardCharsets.UTF_8))).isTrue();

    assertThat(out.awaitLine(0)).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}");
    assertThat(out.awaitLine(1)).isEqualTo("{\"n\":2}");
  }

  @Test
  void aPrettyPrintedMessageIsSentAsExactlyOneLine() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exec cat", out);

    assertThat(child.send("{\n  \"a\": 1,\r\n  \"b\": [2]\n}".getBytes(StandardCharsets.UTF_8))).isTrue();
    child.closeStdin();

    out.awaitClosed();
    assertThat(out.lines).containsExactly("{   \"a\": 1,    \"b\": [2] }");
  }

  @Test
  void concurrentSendsNeverInterleaveWithinALine() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exec cat", out);
    int threads = 8;
    int each = 200;
    String padding = "p".repeat(3000); // lines larger than a pipe write is atomic for
    CountDownLatch go = new CountDownLatch(1);
    List<CompletableFuture<Void>> senders = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int thread = t;
      senders.add(CompletableFuture.runAsync(() -> {
        try {
          go.await();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
        for (int i = 0; i < each; i++) {
          child.send(("{\"t\":" + thread + ",\"i\":" + i + ",\"p\":\"" + padding + "\"}").getBytes(StandardCharsets.UTF_8));
        }
      }, r -> Thread.ofVirtual().start(r)));
    }
    go.countDown();
    CompletableFuture.allOf(senders.toArray(CompletableFuture[]::new)).get(WAIT.toSeconds(), TimeUnit.SECONDS);
    child.closeStdin();

    out.awaitClosed();
    assertThat(out.lines).hasSize(threads * each);
    assertThat(out.lines).allMatch(l -> l.matches("\\{\"t\":\\d,\"i\":\\d+,\"p\":\"p{3000}\"}"));
    for (int t = 0; t < threads; t++) {
      String prefix = "{\"t\":" + t + ",";
      List<String> ofThread = out.lines.stream().filter(l -> l.startsWith(prefix)).toList();
      assertThat(ofThread).hasSize(each);
      for (int i = 0; i < each; i++) {
        assertThat(ofThread.get(i)).startsWith(prefix + "\"i\":" + i + ",");
      }
    }
  }

  @Test
  void sendReturnsFalseAfterCloseStdin() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exec cat", out);
    assertThat(child.send("{}".getBytes(StandardCharsets.UTF_8))).isTrue();

    child.closeStdin();

    assertThat(child.send("{}".getBytes(StandardCharsets.UTF_8))).isFalse();
    child.closeStdin(); // twice is harmless
    assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero(); // cat saw EOF
    out.awaitClosed(); // the exit can be seen before the stdout pump has delivered the line
    assertThat(out.lines).containsExactly("{}");
  }

  @Test
  void sendReturnsFalseOnceTheChildIsGone() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("exec 0<&-; exit 0", out); // closes its stdin and exits without reading
    child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS);

    Await.until("send to fail on the closed pipe", WAIT, () -> !child.send("{}".getBytes(StandardCharsets.UTF_8)));

    assertThat(child.send("{}".getBytes(StandardCharsets.UTF_8))).isFalse(); // and it stays false
  }

  // ---------------------------------------------------------------- stderr

  @Test
  void stderrLinesAreLoggedWithTheTagAndControlCharactersMadeVisible() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("printf 'plain words\\n\\033[31mred\\033[0m\\tand tab\\n' >&2; echo done", out);

    awaitLog("red");
    out.awaitClosed();

    String mark = "[mcp-stdio] [child] child " + child.pid() + " stderr> ";
    assertThat(logText().lines().toList()).contains(mark + "plain words", mark + "\\x1b[31mred\\x1b[0m\tand tab");
    assertThat(logText()).doesNotContain("\u001b");
    assertThat(out.lines).containsExactly("done"); // stderr never reaches the listener
  }

  @Test
  void invalidUtf8OnStderrIsLoggedWithReplacementCharacters() throws Exception {
    Recorder out = new Recorder();
    sh("printf 'bad \\377\\376 end\\n' >&2; printf 'cut \\342\\202\\n' >&2; echo still-running", out);

    assertThat(out.awaitLine(0)).isEqualTo("still-running");
    awaitLog("cut ");

    assertThat(logText()).containsPattern("stderr> bad \uFFFD\uFFFD end\n");
    assertThat(logText()).containsPattern("stderr> cut \uFFFD+\n");
  }

  @Test
  void aListenerCanConsumeStderrLinesSoTheyAreNotLogged() throws Exception {
    java.util.List<String> consumed = new java.util.concurrent.CopyOnWriteArrayList<>();
    ChildProcess.Listener listener = new ChildProcess.Listener() {
      @Override
      public void onLine(byte[] line) {}

      @Override
      public void onStdoutClosed() {}

      @Override
      public boolean onStderrLine(byte[] line) {
        String text = new String(line, StandardCharsets.UTF_8);
        if (text.startsWith("__CALLBACK__")) {
          consumed.add(text);
          return true;
        }
        return false;
      }
    };
    ChildProcess child = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c",
        "echo '__CALLBACK__{\"x\":1}' >&2; echo plain >&2")), 1024, log, SHORT, listener);
    started.add(child);
    awaitLog("plain");
    assertThat(consumed).containsExactly("__CALLBACK__{\"x\":1}");
    assertThat(logText()).doesNotContain("__CALLBACK__");
  }

  @Test
  void anOverlongStderrLineIsLoggedTruncatedWithItsLength() throws Exception {
    Recorder out = new Recorder();
    ChildProcess child = sh("head -c 10000 /dev/zero | tr '\\0' e >&2; echo >&2; echo tail-line >&2", out);

    awaitLog("tail-line");

    String line = logText().lines().filter(l -> l.contains("bytes in all")).findFirst().orElseThrow();
    assertThat(line).isEqualTo("[mcp-stdio] [child] child " + child.pid() + " stderr> "
        + "e".repeat(ChildProcess.LOGGED_LINE_BYTES) + " [... 10000 bytes in all]");
  }

  @Test
  void aStderrFloodDoesNotBlockTheChild() throws Exception {
    Recorder out = new Recorder();
    // ~250 KB on stderr: far more than a pipe buffer holds, so a pump that did not drain would stall the child
    sh("i=0; while [ $i -lt 20000 ]; do echo \"noise $i\" >&2; i=$((i+1)); done; echo finished", out);

    assertThat(out.awaitLine(0)).isEqualTo("finished");
    awaitLog("noise 19999");
    assertThat(logText().lines().filter(l -> l.contains(" stderr> noise ")).count()).isEqualTo(20000); // within the burst
  }

  @Test
  void decodeShowsControlCharactersAndReplacesInvalidUtf8() {
    byte[] bytes = {'a', 0x1b, '[', 'm', '\t', 0x7f, '\r', 0x00, (byte) 0xff, 'z'};
    assertThat(ChildProcess.decode(bytes, bytes.length)).isEqualTo("a\\x1b[m\t\\x7f\\x0d\\x00\uFFFDz");
    assertThat(ChildProcess.decode(bytes, 1)).isEqualTo("a");
    assertThat(ChildProcess.decode("h\u00e9llo \u2603".getBytes(StandardCharsets.UTF_8), 10)).isEqualTo("h\u00e9llo \u2603");
    assertThat(ChildProcess.decode(new byte[0], 0)).isEmpty();
  }

  // ---------------------------------------------------------------- spec

  @Test
  void extraEnvironmentAndWorkingDirectoryReachTheChild(@TempDir Path dir) throws Exception {
    Recorder out = new Recorder();
    Map<String, String> env = Map.of("MCP_STDIO_TEST_VAR", "from the spec");
    start(new ChildSpec(List.of("/bin/sh", "-c", "echo \"$MCP_STDIO_TEST_VAR\"; pwd -P"), env, dir), 4096, SHORT, out);

    out.awaitClosed();

    assertThat(out.lines).containsExactly("from the spec", dir.toRealPath().toString());
  }

  @Test
  void theArgvIsPassedWithoutAShell() throws Exception {
    Recorder out = new Recorder();
    // $HOME and ; would be expanded and split by a shell; as argv they arrive verbatim
    start(new ChildSpec(List.of("/bin/echo", "$HOME;", "two words")), 4096, SHORT, out);

    out.awaitClosed();

    assertThat(out.lines).containsExactly("$HOME; two words");
  }

  @Test
  void startingAProgramThatDoesNotExistThrowsIOException() {
    Recorder out = new Recorder();
    ChildSpec spec = new ChildSpec(List.of("/nonexistent/mcp-stdio-test-no-such-program"));

    assertThatThrownBy(() -> ChildProcess.start(spec, 1024, log, SHORT, out)).isInstanceOf(IOException.class);
    assertThat(out.closedCount).hasValue(0);
  }

  @Test
  void startingAProgramThatIsNotExecutableThrowsIOException(@TempDir Path dir) throws Exception {
    Path script = Files.writeString(dir.resolve("not-executable.sh"), "#!/bin/sh\necho hi\n");
    ChildSpec spec = new ChildSpec(List.of(script.toString()));

    assertThatThrownBy(() -> ChildProcess.start(spec, 1024, log, SHORT, new Recorder())).isInstanceOf(IOException.class);
  }

  @Test
  void variablesCanBeRemovedFromTheInheritedEnvironment() throws Exception {
    Recorder out = new Recorder();
    ChildSpec spec = new ChildSpec(List.of("/bin/sh", "-c", "echo \"${HOME-unset} ${EXTRA-unset}\""))
        .without(java.util.Set.of("HOME")).with(java.util.Map.of("EXTRA", "added"));
    ChildProcess child = ChildProcess.start(spec, 1024, log, SHORT, out);
    started.add(child);
    assertThat(out.awaitLine(0)).isEqualTo("unset added");
  }

  // ---------------------------------------------------------------- close ladder

  @Nested
  class TheShutdownLadder {

    @Test
    void aChildThatStopsReadingStdinNeitherBlocksSendersNorTheLadder() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("echo ready; exec sleep 60", out); // never reads stdin
      assertThat(out.awaitLine(0)).isEqualTo("ready");
      byte[] big = ("\"" + "x".repeat(64 * 1024) + "\"").getBytes(StandardCharsets.UTF_8);
      boolean refused = false;
      long t0 = System.nanoTime();
      for (int i = 0; i < ChildProcess.STDIN_QUEUE + 8 && !refused; i++) {
        refused = !child.send(big); // the pipe fills after 64 KiB, then the queue
      }
      assertThat(refused).as("a full queue refuses").isTrue();
      assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(WAIT);
      assertThat(child.trySend(big)).isFalse();

      CompletableFuture<Void> closing = CompletableFuture.runAsync(child::close, dev.mcpstdio.testing.Threads.VIRTUAL);
      closing.get(WAIT.toSeconds(), TimeUnit.SECONDS); // the writer is stuck in write(); the ladder is not
      assertThat(child.isAlive()).isFalse();
      assertThat(logText()).contains("sending SIGTERM");
    }

    @Test
    void aChildThatExitsWhenStdinClosesIsReapedWithoutSigterm() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("exec cat", 1024, PATIENT, out);
      child.send("{}".getBytes(StandardCharsets.UTF_8));
      out.awaitLine(0);

      long began = System.nanoTime();
      child.close();
      Duration took = Duration.ofNanos(System.nanoTime() - began);

      assertThat(child.isAlive()).isFalse();
      assertThat(took).isLessThan(PATIENT.afterStdinClosed());
      assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isZero();
      assertThat(logText()).doesNotContain("SIGTERM").doesNotContain("SIGKILL");
      out.awaitClosed();
      assertThat(out.closedCount).hasValue(1);
    }

    @Test
    void aChildThatIgnoresStdinEofButHonoursSigtermIsTerminated() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("exec sleep 60", 1024, new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofSeconds(10)), out);

      long began = System.nanoTime();
      child.close();
      Duration took = Duration.ofNanos(System.nanoTime() - began);

      assertThat(child.isAlive()).isFalse();
      assertThat(took).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(10));
      assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(128 + 15);
      assertThat(logText()).contains("child " + child.pid() + " still running 300 ms after stdin closed; sending SIGTERM");
      assertThat(logText()).doesNotContain("SIGKILL");
    }

    @Test
    void aChildThatIgnoresSigtermIsKilled() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", out);
      assertThat(out.awaitLine(0)).isEqualTo("ready"); // the trap is in place

      child.close();

      assertThat(child.isAlive()).isFalse();
      assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(128 + 9);
      String text = logText();
      assertThat(text).contains("[mcp-stdio] [child] child " + child.pid() + " still running 300 ms after stdin closed; sending SIGTERM");
      assertThat(text).contains("[mcp-stdio] [child] warning: child " + child.pid() + " (or a descendant) ignored SIGTERM for 300 ms; sending SIGKILL");
      assertThat(text.indexOf("sending SIGTERM")).isLessThan(text.indexOf("sending SIGKILL"));
    }

    @Test
    void aGrandchildIsTerminatedWithTheChild() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("sleep 60 & echo $!; wait", out);
      long grandchild = grandchild(out);
      assertThat(running(grandchild)).isTrue();

      child.close();

      assertThat(child.isAlive()).isFalse();
      awaitDead(grandchild);
      assertThat(logText()).contains("sending SIGTERM");
      out.awaitClosed(); // the grandchild held stdout open too; it is gone now
    }

    @Test
    void aGrandchildThatIgnoresSigtermIsKilledWithTheChild() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("trap '' TERM; sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.05; done' & wait; wait", out);
      long grandchild = grandchild(out);

      child.close();

      assertThat(child.isAlive()).isFalse();
      awaitDead(grandchild);
      assertThat(logText()).contains("sending SIGKILL");
    }

    @Test
    void aGrandchildThatIgnoresSigtermIsKilledEvenWhenTheChildObeysIt() throws Exception {
      Recorder out = new Recorder();
      // the child dies on SIGTERM; its child ignores it and would outlive it
      ChildProcess child = sh("sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.05; done' & wait", out);
      long grandchild = grandchild(out);

      child.close();

      assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(128 + 15);
      awaitDead(grandchild);
      assertThat(logText()).contains("sending SIGTERM").contains("sending SIGKILL");
      out.awaitClosed();
    }

    @Test
    void aGrandchildIsTerminatedEvenWhenTheChildItselfExitsOnStdinEof() throws Exception {
      Recorder out = new Recorder();
      // the grandchild does not share stdout, so only close() can end it
      ChildProcess child = sh("sleep 60 </dev/null >/dev/null 2>&1 & echo $!; exec cat", out);
      long grandchild = grandchild(out);

      child.close();

      assertThat(child.isAlive()).isFalse();
      awaitDead(grandchild);
    }

    @Test
    void closeFromTwoThreadsAtOnceReturnsInBothOnceTheChildIsDead() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", out);
      out.awaitLine(0);
      CountDownLatch go = new CountDownLatch(1);
      List<CompletableFuture<Boolean>> closers = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        CompletableFuture<Boolean> aliveAfterClose = new CompletableFuture<>();
        Thread.ofPlatform().name("closer-" + i).start(() -> {
          try {
            go.await();
            child.close();
            aliveAfterClose.complete(child.isAlive());
          } catch (Throwable t) {
            aliveAfterClose.completeExceptionally(t);
          }
        });
        closers.add(aliveAfterClose);
      }

      go.countDown();

      for (CompletableFuture<Boolean> closer : closers) {
        assertThat(closer.get(WAIT.toSeconds(), TimeUnit.SECONDS)).as("alive when close() returned").isFalse();
      }
      // the ladder ran once
      assertThat(logText().split("sending SIGKILL", -1)).hasSize(2);
    }

    @Test
    void closeAfterTheChildExitedReturnsAtOnce() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("exit 0", 1024, PATIENT, out);
      child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS);

      long began = System.nanoTime();
      child.close();

      assertThat(Duration.ofNanos(System.nanoTime() - began)).isLessThan(PATIENT.afterStdinClosed());
      assertThat(logText()).doesNotContain("SIGTERM");
    }

    @Test
    void anInterruptedCloseKillsTheChildAndKeepsTheInterrupt() throws Exception {
      Recorder out = new Recorder();
      ChildProcess child = sh("trap '' TERM; echo ready; while :; do sleep 0.05; done", 1024, PATIENT, out);
      out.awaitLine(0);
      CompletableFuture<Boolean> interruptedAfter = new CompletableFuture<>();
      AtomicBoolean entered = new AtomicBoolean();
      Thread closer = Thread.ofPlatform().name("closer").start(() -> {
        entered.set(true);
        child.close();
        interruptedAfter.complete(Thread.currentThread().isInterrupted());
      });
      Await.until("closer to start", WAIT, entered::get);
      Await.until("closer to wait in the ladder", WAIT, () -> closer.getState() == Thread.State.TIMED_WAITING
          || closer.getState() == Thread.State.WAITING);

      closer.interrupt();

      assertThat(interruptedAfter.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();
      Await.until("child to die", WAIT, () -> !child.isAlive());
      assertThat(child.exited().get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(128 + 9);
      child.close(); // a later close does not wait for a ladder that is over
    }
  }

  // ---------------------------------------------------------------- ChildSpec

  @Nested
  class Spec {

    @Test
    void anEmptyArgvIsRejected() {
      assertThatThrownBy(() -> new ChildSpec(List.of())).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("command");
      assertThatThrownBy(() -> new ChildSpec(List.of(), Map.of(), null)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void theListsAreCopiedAndImmutable() {
      List<String> argv = new ArrayList<>(List.of("node", "server.js"));
      Map<String, String> env = new HashMap<>(Map.of("A", "1"));
      ChildSpec spec = new ChildSpec(argv, env, Path.of("/tmp"));

      argv.add("--extra");
      env.put("B", "2");

      assertThat(spec.argv()).containsExactly("node", "server.js");
      assertThat(spec.extraEnv()).containsExactly(Map.entry("A", "1"));
      assertThatThrownBy(() -> spec.argv().add("x")).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> spec.extraEnv().put("C", "3")).isInstanceOf(UnsupportedOperationException.class);
      assertThat(spec.workingDirectory()).isEqualTo(Path.of("/tmp"));
    }

    @Test
    void theShortConstructorHasNoExtraEnvironmentAndTheInheritedDirectory() {
      ChildSpec spec = new ChildSpec(List.of("cat"));

      assertThat(spec.extraEnv()).isEmpty();
      assertThat(spec.workingDirectory()).isNull();
    }

    @Test
    void nullsAreRejected() {
      assertThatThrownBy(() -> new ChildSpec(null)).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> new ChildSpec(java.util.Arrays.asList("a", null))).isInstanceOf(NullPointerException.class);
      assertThatThrownBy(() -> new ChildSpec(List.of("a"), null, null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void describeJoinsTheArgvWithSpaces() {
      assertThat(new ChildSpec(List.of("npx", "-y", "@scope/server")).describe()).isEqualTo("npx -y @scope/server");
      assertThat(new ChildSpec(List.of("cat")).describe()).isEqualTo("cat");
    }

    @Test
    void specsWithTheSameContentAreEqual() {
      assertThat(new ChildSpec(new ArrayList<>(List.of("a", "b")))).isEqualTo(new ChildSpec(List.of("a", "b")));
    }
  }
}
