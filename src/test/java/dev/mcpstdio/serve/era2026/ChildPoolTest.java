package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The 2026 era's pool of children with real (scripted {@code sh}) 2025-era children: sharing per
 * principal, exclusive holds growing the pool within the principal's cap, eviction only of idle
 * children at the total cap, a dead child replaced, idle children reaped.
 */
class ChildPoolTest {

  /** A 2025-era child: answers initialize, refuses everything else with -32601 (the probe included). */
  static final String CHILD = """
      while read -r line; do
        id=$(printf '%s' "$line" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p')
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"initialize"'*) printf 'init %s\\n' "$line" >&2; printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{},\\"serverInfo\\":{\\"name\\":\\"pooled\\",\\"version\\":\\"1\\"}}}" ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
        esac
      done
      """;

  private ChildPool pool;
  private final ByteArrayOutputStream logged = new ByteArrayOutputStream();

  private ChildPool pool(int perPrincipal, int total, Duration idleTtl) {
    ChildPool.Settings settings = new ChildPool.Settings(new ChildSpec(List.of("/bin/sh", "-c", CHILD)), 1 << 20,
        new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300)), ChildProcess.StderrLimit.DEFAULT,
        perPrincipal, total, idleTtl, Duration.ofSeconds(20));
    pool = new ChildPool(settings, new Log(logged, Log.Level.DEBUG, new Redactor()), Msgs.NO_EVENTS);
    return pool;
  }

  @AfterEach
  void close() throws Exception {
    if (pool != null) {
      pool.close();
    }
  }

  @Test
  void withUserEnvEachSignedInUsersChildIsToldItsUserAndNoProcessIsSpawnedAhead() throws Exception {
    String child = CHILD.replace("\\\"pooled\\\"", "\\\"pooled-${MCP_USER:-none}\\\"");
    assertThat(child).contains("pooled-${MCP_USER");
    ChildPool.Settings settings = new ChildPool.Settings(new ChildSpec(List.of("/bin/sh", "-c", child)), 1 << 20,
        new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300)), ChildProcess.StderrLimit.DEFAULT,
        4, 8, Duration.ZERO, Duration.ofSeconds(20), "MCP_USER");
    pool = new ChildPool(settings, new Log(logged, Log.Level.DEBUG, new Redactor()), Msgs.NO_EVENTS);
    PooledChild alice = pool.acquire("alice", ClientAsks.ALL, false);
    PooledChild everyone = pool.acquire(dev.mcpstdio.serve.http.Principals.STATIC_TOKEN, ClientAsks.ALL, false);
    assertThat(alice.initialized.join()).asString().contains("\"name\":\"pooled-alice\"");
    assertThat(everyone.initialized.join()).asString().contains("\"name\":\"pooled-none\"");
    PooledChild bob = pool.acquire("bob", ClientAsks.ALL, false);
    assertThat(bob.initialized.join()).asString().contains("\"name\":\"pooled-bob\"");
    assertThat(pool.size()).as("three children and no process ahead of need").isEqualTo(3);
    assertThat(logged.toString()).doesNotContain("ahead of need");
  }

  @Test
  void aPrincipalsCallsShareItsChildAndPrincipalsNeverShareOne() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    PooledChild a1 = p.acquire("alice", ClientAsks.ALL, false);
    PooledChild b = p.acquire("bob", ClientAsks.ALL, false);
    assertThat(b).isNotSameAs(a1);
    assertThat(b.principal).isEqualTo("bob");
    p.release(a1, false);
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).as("an idle child is shared, not grown past").isSameAs(a1);
    assertThat(p.size()).isEqualTo(2);
    assertThat(a1.initialized.join()).asString().contains("\"name\":\"pooled\"");
  }

  @Test
  void whenEveryChildOfAPrincipalIsBusyThePoolGrowsInTheBackgroundWithinTheCap() throws Exception {
    ChildPool p = pool(2, 8, Duration.ZERO);
    PooledChild first = p.acquire("alice", ClientAsks.ALL, false);
    PooledChild.Call working = first.open(dev.mcpstdio.jsonrpc.JsonRpcId.relayOwned("mcp-stdio/serve/1"), null, 0);
    PooledChild second = p.acquire("alice", ClientAsks.ALL, false); // first is busy: a spare starts, this call shares
    assertThat(second).isSameAs(first);
    Await.until("the spare child to be listed", Duration.ofSeconds(15), () -> p.size() == 2);
    java.util.concurrent.atomic.AtomicReference<PooledChild> spare = new java.util.concurrent.atomic.AtomicReference<>();
    Await.until("a call to get the spare once it is ready", Duration.ofSeconds(15), () -> {
      PooledChild got;
      try {
        got = p.acquire("alice", ClientAsks.ALL, false);
      } catch (ChildPool.Unavailable | InterruptedException e) {
        throw new AssertionError(e);
      }
      if (got != first) {
        spare.set(got);
        return true;
      }
      p.release(got, false);
      return false;
    });
    assertThat(spare.get().principal).isEqualTo("alice");
    spare.get().open(dev.mcpstdio.jsonrpc.JsonRpcId.relayOwned("mcp-stdio/serve/2"), null, 0);
    p.acquire("alice", ClientAsks.ALL, false); // both busy and at the cap of 2: shares, grows no more
    assertThat(p.size()).as("never past the principal's cap").isEqualTo(2);
    assertThat(working.answer.isDone()).isFalse();
  }

  @Test
  void aCallAlreadyAnsweredDoesNotMakeItsChildBusy() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    PooledChild first = p.acquire("alice", ClientAsks.ALL, false);
    PooledChild.Call answered = first.open(dev.mcpstdio.jsonrpc.JsonRpcId.relayOwned("mcp-stdio/serve/1"), null, 0);
    answered.answer.complete(new byte[0]); // its answer is being written; its client already sends the next request
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).isSameAs(first);
    first.open(dev.mcpstdio.jsonrpc.JsonRpcId.relayOwned("mcp-stdio/serve/2"), null, 0); // now it is working
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).isSameAs(first);
    Await.until("a spare to be listed for the busy child", Duration.ofSeconds(10), () -> p.size() == 2);
  }

  @Test
  void exclusiveHoldsGrowThePoolWithinThePrincipalsCapThenRefuse() throws Exception {
    ChildPool p = pool(2, 8, Duration.ZERO);
    PooledChild first = p.acquire("alice", ClientAsks.ALL, true);
    PooledChild second = p.acquire("alice", ClientAsks.ALL, true);
    assertThat(second).isNotSameAs(first);
    assertThatThrownBy(() -> p.acquire("alice", ClientAsks.ALL, true)).isInstanceOf(ChildPool.Unavailable.class)
        .hasMessageContaining("all 2 children of this principal are busy");
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).isIn(first, second); // a shared call still gets one
    p.release(first, true);
    assertThat(p.acquire("alice", ClientAsks.ALL, true)).isSameAs(first);
  }

  @Test
  void aParkedRoundOnAKeysLastFreeChildStartsOneSpareAndAnExclusiveAcquireAloneStartsNone() throws Exception {
    ChildPool p = pool(3, 8, Duration.ZERO);
    PooledChild first = p.acquire("alice", ClientAsks.ALL, true);
    assertThat(p.size()).as("a bridged call answered at once needs no spare").isEqualTo(1);
    p.parked(first);
    Await.until("the spare to be listed", Duration.ofSeconds(10), () -> p.size() == 2);
    p.parked(first); // a second round of the same call: the spare is free, so no third child
    PooledChild spare = p.acquire("alice", ClientAsks.ALL, true);
    assertThat(spare).isNotSameAs(first);
    assertThat(p.size()).isEqualTo(2);
    p.parked(spare);
    Await.until("a spare for the next call", Duration.ofSeconds(10), () -> p.size() == 3);
    PooledChild third = p.acquire("alice", ClientAsks.ALL, true);
    p.parked(third);
    assertThat(p.size()).as("never past the principal's cap").isEqualTo(3);
  }

  @Test
  void atTheTotalCapOnlyAnIdleChildIsEvictedAndNoneIsRefused() throws Exception {
    ChildPool p = pool(1, 2, Duration.ZERO);
    PooledChild alice = p.acquire("alice", ClientAsks.ALL, false);
    PooledChild bob = p.acquire("bob", ClientAsks.ALL, false);
    assertThatThrownBy(() -> p.acquire("carol", ClientAsks.ALL, false)).isInstanceOf(ChildPool.Unavailable.class)
        .hasMessageContaining("the pool is full (2 children, none idle)");
    p.release(alice, false); // alice's child is idle now: it makes room
    PooledChild carol = p.acquire("carol", ClientAsks.ALL, false);
    assertThat(carol).isNotSameAs(alice).isNotSameAs(bob);
    Await.until("the evicted child to exit", Duration.ofSeconds(10), () -> !alice.process().isAlive());
    assertThat(bob.process().isAlive()).as("the held child is never evicted").isTrue();
    assertThat(p.size()).isEqualTo(2);
  }

  private static final ClientAsks SAMPLING_ONLY = new ClientAsks(false, true, false);

  @Test
  void aChildIsKeyedByWhatItsClientCanBeAskedAndToldExactlyThat() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    PooledChild all = p.acquire("alice", ClientAsks.ALL, false);
    p.release(all, false);
    PooledChild sampling = p.acquire("alice", SAMPLING_ONLY, false);
    assertThat(sampling).as("an idle child told of other capabilities is not shared").isNotSameAs(all);
    assertThat(sampling.asks).isEqualTo(SAMPLING_ONLY);
    p.release(sampling, false);
    assertThat(p.acquire("alice", SAMPLING_ONLY, false)).isSameAs(sampling);
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).isSameAs(all);
    Await.until("both initialize lines on the child's stderr", Duration.ofSeconds(10), () -> initializeLines().size() == 2);
    assertThat(initializeLines()).anySatisfy(l -> assertThat(l).contains("\"capabilities\":{\"sampling\":{}},"))
        .anySatisfy(l -> assertThat(l).contains("\"capabilities\":{\"elicitation\":{},\"sampling\":{},\"roots\":{}},"));
  }

  @Test
  void atThePrincipalsCapAnIdleChildOfAnotherKeyMakesRoomAndABusyOneNever() throws Exception {
    ChildPool p = pool(1, 8, Duration.ZERO);
    PooledChild all = p.acquire("alice", ClientAsks.ALL, false);
    assertThatThrownBy(() -> p.acquire("alice", SAMPLING_ONLY, false)).isInstanceOf(ChildPool.Unavailable.class)
        .hasMessageContaining("all 1 children of this principal are busy");
    p.release(all, false);
    PooledChild sampling = p.acquire("alice", SAMPLING_ONLY, false);
    assertThat(sampling).isNotSameAs(all);
    Await.until("the other key's idle child to exit", Duration.ofSeconds(10), () -> !all.process().isAlive());
    assertThat(p.size()).as("the principal's cap holds over its keys").isEqualTo(1);
  }

  private java.util.List<String> initializeLines() {
    return logged.toString(java.nio.charset.StandardCharsets.UTF_8).lines().filter(l -> l.contains("init {")).toList();
  }

  /**
   * A child that, asked server/discover, writes its pid to {@code dir/pid}, waits for {@code
   * dir/gate}, then answers {@code answer} (its id spliced in after {@code "id":}).
   */
  private static String gatedProbeChild(java.nio.file.Path dir, String answerAfterId) {
    return """
        while read -r line; do
          id=$(printf '%s' "$line" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p')
          case "$line" in
            *'"method":"server/discover"'*) echo $$ > DIR/pid.tmp; mv DIR/pid.tmp DIR/pid
              while [ ! -f DIR/gate ]; do sleep 0.05; done
              printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,ANSWER}" ;;
            *) ;;
          esac
        done
        """.replace("DIR", dir.toString()).replace("ANSWER", answerAfterId);
  }

  private ChildPool pool(String script) {
    ChildPool.Settings settings = new ChildPool.Settings(new ChildSpec(List.of("/bin/sh", "-c", script)), 1 << 20,
        new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300)), ChildProcess.StderrLimit.DEFAULT,
        4, 8, Duration.ZERO, Duration.ofSeconds(20));
    pool = new ChildPool(settings, new Log(logged, Log.Level.DEBUG, new Redactor()), Msgs.NO_EVENTS);
    return pool;
  }

  /** The pool closes while its first child is being probed; the probe then answers {@code answer}: no process outlives the pool. */
  private void closeWhileProbing(String answerAfterId) throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("pool-probe");
    ChildPool p = pool(gatedProbeChild(dir, answerAfterId));
    java.util.concurrent.CompletableFuture<Object> acquired = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
      try {
        return p.acquire("alice", ClientAsks.ALL, false);
      } catch (Exception e) {
        return e;
      }
    });
    java.nio.file.Path pidFile = dir.resolve("pid");
    Await.until("the probe to reach the child", Duration.ofSeconds(10), () -> java.nio.file.Files.exists(pidFile));
    long pid = Long.parseLong(java.nio.file.Files.readString(pidFile).trim());
    p.close();
    java.nio.file.Files.createFile(dir.resolve("gate"));
    assertThat(acquired.get(30, java.util.concurrent.TimeUnit.SECONDS)).as("the acquire ends, refused")
        .isInstanceOf(ChildPool.Unavailable.class);
    Await.until("the probed child's process to be ended", Duration.ofSeconds(10),
        () -> ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true));
  }

  @Test
  void aChildProbedAsA2025EraServerWhileThePoolClosesIsEnded() throws Exception {
    closeWhileProbing("\\\"error\\\":{\\\"code\\\":-32601,\\\"message\\\":\\\"Method not found\\\"}");
  }

  @Test
  void aChildProbedAsA2026EraServerWhileThePoolClosesIsEnded() throws Exception {
    closeWhileProbing("\\\"result\\\":{\\\"supportedVersions\\\":[\\\"2026-07-28\\\"],\\\"capabilities\\\":{},"
        + "\\\"serverInfo\\\":{\\\"name\\\":\\\"p\\\",\\\"version\\\":\\\"1\\\"}}");
  }

  @Test
  void aDeadChildIsReplacedOnTheNextAcquire() throws Exception {
    ChildPool p = pool(1, 2, Duration.ZERO);
    PooledChild first = p.acquire("alice", ClientAsks.ALL, false);
    p.release(first, false);
    ProcessHandle.of(first.pid()).orElseThrow().destroyForcibly();
    Await.until("the child to be seen dead", Duration.ofSeconds(10), first::dead);
    PooledChild second = p.acquire("alice", ClientAsks.ALL, false);
    assertThat(second).isNotSameAs(first);
    assertThat(second.dead()).isFalse();
  }

  @Test
  void anIdleChildIsClosedAfterTheIdleTtlAndAHeldOneIsNot() throws Exception {
    ChildPool p = pool(1, 4, Duration.ofSeconds(1));
    PooledChild idle = p.acquire("alice", ClientAsks.ALL, false);
    PooledChild held = p.acquire("bob", ClientAsks.ALL, false);
    p.release(idle, false);
    Await.until("the idle child to be reaped", Duration.ofSeconds(15), () -> p.size() == 1);
    Await.until("its process to exit", Duration.ofSeconds(10), () -> !idle.process().isAlive());
    assertThat(held.process().isAlive()).isTrue();
  }

  /** The pid of the {@code n}th process the pool started ahead of need (1-based), once it is logged. */
  private long warmPid(int n) {
    java.util.regex.Pattern started = java.util.regex.Pattern.compile("\\(pid ([0-9]+)\\) ahead of need");
    Await.until("warm process " + n + " to be started", Duration.ofSeconds(15),
        () -> started.matcher(logged.toString(java.nio.charset.StandardCharsets.UTF_8)).results().count() >= n);
    return Long.parseLong(started.matcher(logged.toString(java.nio.charset.StandardCharsets.UTF_8)).results()
        .skip(n - 1).findFirst().orElseThrow().group(1));
  }

  @Test
  void aNewKeyTakesOverTheProcessStartedAheadOfNeedAndTheNextOneIsStarted() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    PooledChild all = p.acquire("alice", ClientAsks.ALL, false);
    long warm = warmPid(1);
    assertThat(warm).isNotEqualTo(all.pid());
    assertThat(p.size()).as("the warm process is not a listed child").isEqualTo(1);
    PooledChild sampling = p.acquire("bob", SAMPLING_ONLY, false);
    assertThat(sampling.pid()).as("the new key's child is the warm process").isEqualTo(warm);
    assertThat(sampling.principal).isEqualTo("bob");
    Await.until("its initialize on the child's stderr", Duration.ofSeconds(10), () -> initializeLines().size() == 2);
    assertThat(initializeLines().getLast()).contains("\"capabilities\":{\"sampling\":{}},");
    assertThat(warmPid(2)).as("the next one is started once the child is ready").isNotIn(warm, all.pid());
    assertThat(p.size()).isEqualTo(2);
  }

  @Test
  void aWarmProcessThatExitedIsDroppedAndTheNextKeyStartsAChildOfItsOwn() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    p.acquire("alice", ClientAsks.ALL, false);
    long warm = warmPid(1);
    ProcessHandle.of(warm).orElseThrow().destroyForcibly();
    Await.until("the warm process to exit", Duration.ofSeconds(10), () -> ProcessHandle.of(warm).map(h -> !h.isAlive()).orElse(true));
    Await.until("the pool to see its stdout close", Duration.ofSeconds(10), () -> {
      try {
        PooledChild other = p.acquire("bob", ClientAsks.ALL, false);
        assertThat(other.pid()).isNotEqualTo(warm);
        assertThat(other.dead()).isFalse();
        return true;
      } catch (ChildPool.Unavailable | InterruptedException e) {
        return false; // took over the warm process just as it died: the next acquire starts afresh
      }
    });
  }

  @Test
  void theWarmProcessNeverTakesTheLastPlaceAndEndsWithThePool() throws Exception {
    ChildPool p = pool(1, 3, Duration.ZERO);
    p.acquire("alice", ClientAsks.ALL, false);
    long warm = warmPid(1); // 2 of 3: the warm process leaves a place free
    PooledChild bob = p.acquire("bob", ClientAsks.ALL, false);
    assertThat(bob.pid()).isEqualTo(warm);
    PooledChild carol = p.acquire("carol", ClientAsks.ALL, false);
    assertThat(carol.pid()).isNotEqualTo(warm);
    assertThat(p.size()).isEqualTo(3);
    assertThat(p.warm()).as("at the cap, no process is started ahead of need").isFalse();
    p.close();
    Await.until("every child to exit", Duration.ofSeconds(10), () -> !bob.process().isAlive() && !carol.process().isAlive());
  }

  @Test
  void theWarmProcessIsEndedWhenThePoolCloses() throws Exception {
    ChildPool p = pool(4, 8, Duration.ZERO);
    p.acquire("alice", ClientAsks.ALL, false);
    long warm = warmPid(1);
    p.close();
    Await.until("the warm process to exit", Duration.ofSeconds(10), () -> ProcessHandle.of(warm).map(h -> !h.isAlive()).orElse(true));
  }

  /** A 2026-era child: answers server/discover (writing its pid to stderr), refuses everything else with -32601. */
  static final String CHILD_2026 = """
      while read -r line; do
        id=$(printf '%s' "$line" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p')
        case "$line" in
          *'"method":"server/discover"'*) printf 'discovered by %s\\n' "$$" >&2; printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"supportedVersions\\":[\\"2026-07-28\\"],\\"capabilities\\":{},\\"serverInfo\\":{\\"name\\":\\"p\\",\\"version\\":\\"1\\"}}}" ;;
          *'"method":"notifications/'*) ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
        esac
      done
      """;

  @Test
  void theCommandIsProbedBeforeTheFirstRequestIsKeyedAndA2026EraChildTakesOverTheProbedProcess() throws Exception {
    ChildPool p = pool(CHILD_2026);
    assertThat(p.era2026()).as("known before any child is acquired").isTrue();
    PooledChild first = p.acquire("alice", SAMPLING_ONLY, false);
    assertThat(first.asks).as("a 2026-era child's key ignores the caller's capabilities").isEqualTo(ClientAsks.ALL);
    p.release(first, false);
    assertThat(p.acquire("alice", ClientAsks.ALL, false)).isSameAs(first);
    Await.until("the child's stderr line on its discover", Duration.ofSeconds(10),
        () -> logged.toString(java.nio.charset.StandardCharsets.UTF_8).contains("discovered by " + first.pid()));
    String log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
    assertThat(log.split("discovered by ", -1)).as("one process, probed once: " + log).hasSize(2);
  }

  @Test
  void requestsThatComeWhileTheCommandIsProbedWaitForThatOneProbe() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("pool-probe");
    ChildPool p = pool(gatedProbeChild(dir, "\\\"error\\\":{\\\"code\\\":-32601,\\\"message\\\":\\\"Method not found\\\"}"));
    List<java.util.concurrent.CompletableFuture<Boolean>> asked = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      asked.add(java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try {
          return p.era2026();
        } catch (Exception e) {
          throw new java.util.concurrent.CompletionException(e);
        }
      }));
    }
    Await.until("the probe to reach the child", Duration.ofSeconds(10), () -> java.nio.file.Files.exists(dir.resolve("pid")));
    assertThat(asked).noneMatch(java.util.concurrent.CompletableFuture::isDone);
    java.nio.file.Files.createFile(dir.resolve("gate"));
    for (var a : asked) {
      assertThat(a.get(30, java.util.concurrent.TimeUnit.SECONDS)).isFalse();
    }
    assertThat(logged.toString(java.nio.charset.StandardCharsets.UTF_8).split("-era server \\(", -1)).as("probed once").hasSize(2);
  }

  @Test
  void anAcquireInterruptedWhileItsChildStartsGivesItsHoldBack() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("pool-gate");
    java.nio.file.Path gate = dir.resolve("gate");
    ChildPool p = pool(CHILD.replace("*'\"method\":\"initialize\"'*)", "*'\"method\":\"initialize\"'*) touch " + dir.resolve("asked")
        + "; while [ ! -f " + gate + " ]; do sleep 0.02; done;"));
    java.util.concurrent.atomic.AtomicReference<Throwable> ended = new java.util.concurrent.atomic.AtomicReference<>();
    Thread acquirer = Thread.ofVirtual().start(() -> {
      try {
        p.acquire("alice", ClientAsks.ALL, true);
      } catch (Throwable t) {
        ended.set(t);
      }
    });
    Await.until("the child to be asked initialize", Duration.ofSeconds(10), () -> java.nio.file.Files.exists(dir.resolve("asked")));
    acquirer.interrupt(); // the acquire waits for the handshake now
    acquirer.join(10_000);
    assertThat(ended.get()).isInstanceOf(InterruptedException.class);
    java.nio.file.Files.createFile(gate);
    PooledChild again = p.acquire("alice", ClientAsks.ALL, true);
    assertThat(p.size()).as("the interrupted acquire's child was free for the next exclusive one").isEqualTo(1);
    p.release(again, true);
    assertThat(again.idle()).as("the interrupted acquire held nothing").isTrue();
  }
}
