package dev.mcpstdio.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Each child leads a process group of its own, so that close ends descendants that left its line
 * of descent (a double fork), and carries a cookie in its environment, so that close also ends
 * descendants that left its group and session (setsid); the watchdog ends both when the gateway is
 * SIGKILLed. Linux with util-linux setsid only: elsewhere the platform gives no group
 * (docs/reference.md).
 */
class ChildContainmentTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ChildProcess.Ladder SHORT = new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300));

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Log log = new Log(logBytes, Log.Level.DEBUG, new Redactor());
  private final List<ChildProcess> started = new ArrayList<>();
  private final List<Long> strays = new ArrayList<>();
  private Process probe;

  @BeforeEach
  void linuxWithSetsid() {
    assumeTrue(ProcessGroups.available(), "no process groups for children on this platform");
  }

  @AfterEach
  void killEverythingStarted() {
    if (probe != null) {
      probe.destroyForcibly();
    }
    for (long pid : strays) {
      ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
    }
    for (ChildProcess child : started) {
      ProcessHandle.of(child.pid()).ifPresent(ProcessHandle::destroyForcibly);
      child.close();
    }
  }

  private ChildProcess sh(String script, ChildProcessTest.Recorder out) throws IOException {
    ChildProcess child = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", script)), 1 << 20, log, SHORT, out);
    started.add(child);
    return child;
  }

  private long stray(String pid) {
    long p = Long.parseLong(pid.trim());
    strays.add(p);
    return p;
  }

  private static long processGroup(long pid) throws IOException {
    String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
    return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
  }

  /** The grandchild's pid, once it leads a session (and group) of its own, away from the child's. */
  private long escaped(String pid) {
    long p = stray(pid);
    Await.until("process " + p + " to lead a session of its own", WAIT, () -> {
      try {
        return processGroup(p) == p;
      } catch (IOException e) {
        throw new AssertionError("process " + p + " is gone", e);
      }
    });
    return p;
  }

  /**
   * A grandchild that calls setsid and whose parent exits at once: out of the child's group,
   * session and line of descent. setsid(1) does not fork (a background job of a non-interactive
   * shell leads no group), so {@code $!} is the grandchild itself.
   */
  private static String escapee(String sigterm) {
    return "( setsid sh -c '" + sigterm + "exec sleep 600' </dev/null >/dev/null 2>&1 & echo $! )";
  }

  private static void awaitDead(long pid) {
    Await.until("process " + pid + " to be gone", WAIT, () -> !ChildProcessTest.running(pid));
  }

  @Test
  void aChildLeadsAProcessGroupOfItsOwnAndItsArgvIsStillItsOwn() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    ChildProcess child = sh("echo \"$0|$1\"; exec cat", out);

    assertThat(out.awaitLine(0)).isEqualTo("/bin/sh|");
    assertThat(processGroup(child.pid())).isEqualTo(child.pid());
    assertThat(processGroup(child.pid())).isNotEqualTo(processGroup(ProcessHandle.current().pid()));
    assertThat(ProcessHandle.of(child.pid()).orElseThrow().info().command().orElse(""))
        .as("setsid exec'd the program itself: no wrapper process stays").doesNotEndWith("setsid");
  }

  @Test
  void aDoubleForkedGrandchildIsEndedWhenTheChildIsClosed() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    // the middle shell exits at once: the grandchild is re-parented and no longer a descendant
    sh("sh -c 'sleep 600 </dev/null >/dev/null 2>&1 & echo $!'; exec cat", out);
    long grandchild = stray(out.awaitLine(0));
    Await.until("the grandchild to leave the child's line of descent", WAIT,
        () -> ProcessHandle.of(grandchild).flatMap(ProcessHandle::parent).map(p -> p.pid() != started.getFirst().pid())
            .orElse(true));

    started.getFirst().close();

    awaitDead(grandchild);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("'s descendants still running").contains("SIGTERM");
  }

  @Test
  void aDoubleForkedGrandchildThatIgnoresSigtermIsKilled() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    sh("sh -c '(trap \"\" TERM; exec sleep 600) </dev/null >/dev/null 2>&1 & echo $!'; exec cat", out);
    long grandchild = stray(out.awaitLine(0));

    started.getFirst().close();

    awaitDead(grandchild);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("sending SIGKILL");
  }

  @Test
  void aGrandchildThatStartedASessionOfItsOwnIsEndedWhenTheChildIsClosed() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    sh(escapee("") + "; exec cat", out);
    long grandchild = escaped(out.awaitLine(0));

    started.getFirst().close(); // the child exits on stdin EOF at once: only its cookie finds the grandchild

    awaitDead(grandchild);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("'s descendants still running").contains("SIGTERM");
  }

  @Test
  void aGrandchildInASessionOfItsOwnThatIgnoresSigtermIsKilled() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    sh(escapee("trap \"\" TERM; ") + "; exec cat", out);
    long grandchild = escaped(out.awaitLine(0));

    started.getFirst().close();

    awaitDead(grandchild);
    assertThat(logBytes.toString(StandardCharsets.UTF_8)).contains("sending SIGKILL");
  }

  @Test
  void closingAChildLeavesAnotherChildsEscapedGrandchildAlone() throws Exception {
    ChildProcessTest.Recorder outA = new ChildProcessTest.Recorder();
    ChildProcessTest.Recorder outB = new ChildProcessTest.Recorder();
    ChildProcess a = sh(escapee("") + "; exec cat", outA);
    ChildProcess b = sh(escapee("") + "; exec cat", outB);
    long ofA = escaped(outA.awaitLine(0));
    long ofB = escaped(outB.awaitLine(0));

    a.close();

    awaitDead(ofA);
    assertThat(ChildProcessTest.running(ofB)).as("the other child's grandchild").isTrue();
    b.close();
    awaitDead(ofB);
  }

  /**
   * Each child: ignores SIGTERM and stdin EOF, with a grandchild, a double-forked one, a stubborn
   * one, and one that left the child's session (setsid) and also ignores SIGTERM.
   */
  private static final String HOSTILE = "trap '' TERM; echo $$;"
      + " sleep 600 </dev/null >/dev/null 2>&1 & echo $!;"
      + " sh -c 'sleep 600 </dev/null >/dev/null 2>&1 & echo $!';"
      + " sh -c 'trap \"\" TERM; while :; do sleep 1; done' </dev/null >/dev/null 2>&1 & echo $!;"
      + " " + escapee("") + ";"
      + " echo done; exec 0</dev/null; while :; do sleep 1; done";

  /**
   * Starts a gateway JVM ({@link ContainmentProbe}) with {@code children} children running
   * {@code script}, and returns the processes it reported (each child's "line <pid>").
   */
  private List<Long> startProbe(int children, String script) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    probe = new ProcessBuilder(java, "-Xlog:disable", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"), ContainmentProbe.class.getName(), Integer.toString(children), script)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    BufferedReader lines = new BufferedReader(new InputStreamReader(probe.getInputStream(), StandardCharsets.UTF_8));
    List<Long> tree = new ArrayList<>();
    CompletableFuture<Void> ready = CompletableFuture.runAsync(() -> {
      try {
        for (String line; (line = lines.readLine()) != null && !line.equals("ready"); ) {
          if (line.matches("line \\d+")) {
            tree.add(stray(line.substring(5)));
          }
        }
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    ready.get(WAIT.toSeconds(), TimeUnit.SECONDS);
    return tree;
  }

  @Test
  void nothingOutlivesAGatewayKilledWithSigkill() throws Exception {
    List<Long> tree = startProbe(3, HOSTILE);
    assertThat(tree).hasSize(3 * 5);
    assertThat(tree).allMatch(ChildProcessTest::running);

    probe.destroyForcibly(); // SIGKILL: no shutdown hook, no ladder in the gateway
    probe.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);

    for (long pid : tree) {
      awaitDead(pid); // the watchdog's ladder: 2 s after EOF, SIGTERM; 2 s later, SIGKILL
    }
  }

  @Test
  void aGroupMemberWithoutTheCookieIsEndedWhenTheChildHasAlreadyExited() throws Exception {
    ChildProcessTest.Recorder out = new ChildProcessTest.Recorder();
    // the grandchild stays in the child's group but clears its environment (no cookie); the child exits
    ChildProcess child = sh("env -i /bin/sh -c 'exec sleep 600' </dev/null >/dev/null 2>&1 & echo $!; exit 0", out);
    long grandchild = stray(out.awaitLine(0));
    Await.until("the child to exit", WAIT, () -> !ChildProcessTest.running(child.pid()));
    assertThat(processGroup(grandchild)).isEqualTo(child.pid());

    child.close();

    awaitDead(grandchild);
  }

  @Test
  void aGatewayKilledWithSigkillEndsAChildWhoseOwnEnvironmentHasNoCookie() throws Exception {
    // the child execs with a cleared environment: its group leader no longer carries the cookie
    String script = "echo $$; echo done; exec env -i /bin/sh -c 'trap \"\" TERM; exec 0</dev/null; while :; do sleep 1; done'";
    List<Long> tree = startProbe(1, script);
    assertThat(tree).hasSize(1);
    long leader = tree.getFirst();
    Await.until("the child to exec with a cleared environment", WAIT, () -> {
      try {
        return !Files.readString(Path.of("/proc/" + leader + "/environ")).contains("MCP_STDIO_PROCESS_TREE");
      } catch (IOException e) {
        return false;
      }
    });

    probe.destroyForcibly(); // SIGKILL: only the watchdog is left to end the child
    probe.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS);

    awaitDead(leader);
  }
}
