package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** How many warm children may be starting at once, on a clock and CPU times the test sets. */
class StartPacingTest {

  private static final long MS = 1_000_000L;

  private final Log log = new Log(new ByteArrayOutputStream(), Log.Level.DEBUG, new Redactor());
  private final ByteBudget queued = new ByteBudget(1 << 20);
  private final Map<Session, Long> cpu = new HashMap<>();

  private Session session(FakeChild child) {
    Session s = new Session("0123456789abcdef0123456789abcdef", new ChildLog(log, ChildProcess.StderrLimit.DEFAULT), queued,
        Duration.ofSeconds(1), Duration.ofSeconds(5));
    s.attach(child, null);
    cpu.put(s, 0L);
    return s;
  }

  private StartPacing pacing(int concurrent) {
    return new StartPacing(concurrent, s -> cpu.getOrDefault(s, -1L));
  }

  @Test
  void asManyMayStartAtOnceAsAllowedAndAChildHasStartedOnceItsCpuTimeStandsStill() {
    StartPacing pacing = pacing(2);
    Session a = session(new FakeChild());
    Session b = session(new FakeChild());
    pacing.spawned(a, 0);
    assertThat(pacing.room(0)).isTrue();
    pacing.spawned(b, 0);
    assertThat(pacing.room(0)).isFalse();

    cpu.put(a, 10 * MS); // both busy starting
    cpu.put(b, 10 * MS);
    assertThat(pacing.room(20 * MS)).isFalse();
    cpu.put(b, 20 * MS); // a stands still from here
    assertThat(pacing.room(40 * MS)).isFalse();
    assertThat(pacing.room(20 * MS + StartPacing.SETTLE.toNanos() - 1)).isFalse();
    assertThat(pacing.room(20 * MS + StartPacing.SETTLE.toNanos())).isTrue(); // a has started
  }

  @Test
  void aChildThatEndsOrKeepsBusyPastTheBoundNoLongerCounts() {
    StartPacing pacing = pacing(1);
    FakeChild ending = new FakeChild();
    Session a = session(ending);
    pacing.spawned(a, 0);
    assertThat(pacing.room(10 * MS)).isFalse();
    ending.exit.complete(1);
    assertThat(pacing.room(10 * MS)).isTrue();

    Session busy = session(new FakeChild());
    pacing.spawned(busy, 0);
    for (long t = 10; t < StartPacing.START_BOUND.toMillis(); t += 10) {
      cpu.put(busy, t * MS);
      assertThat(pacing.room(t * MS)).isFalse();
    }
    assertThat(pacing.room(StartPacing.START_BOUND.toNanos())).isTrue();
  }

  @Test
  void withoutCpuTimesNothingCountsAsStarting() {
    StartPacing pacing = new StartPacing(1, s -> -1);
    pacing.spawned(session(new FakeChild()), 0);
    pacing.spawned(session(new FakeChild()), 0);
    assertThat(pacing.room(0)).isTrue();
  }

  @Test
  void theRealClockSeesThisProcessesOwnCpuTime() {
    FakeChild me = new FakeChild();
    me.pid = ProcessHandle.current().pid();
    assertThat(StartPacing.PROCESS_CPU.cpuNanos(session(me))).isPositive();
  }
}
