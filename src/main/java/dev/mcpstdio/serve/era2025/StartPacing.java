package dev.mcpstdio.serve.era2025;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * How many warm children may be starting at once ({@link WarmSessions}): as many as there are
 * processors. Spawned all together, N children that each need a few tens of milliseconds of CPU
 * to start (Node: about 80) share the cores and are all ready late; paced, the first ones are ready
 * early, which is what the next client needs, and the whole fill takes no longer, since the cores
 * were the bound either way.
 *
 * <p>A child counts as starting from its spawn until its CPU time ({@link CpuClock}) has stood
 * still for {@link #SETTLE} (a stdio server that has started waits on its stdin), it ended, or
 * {@link #START_BOUND} passed (a server that keeps busy on its own); where the platform shows no
 * CPU time, it never counts. A child taken by a client meanwhile still counts: it uses the same
 * cores. The heuristic decides only when the next warm child is spawned, nothing else.
 *
 * <p>Not thread-safe: used under the pool's lock. Holds at most {@code concurrent} entries.
 */
final class StartPacing {

  /** A process's CPU time so far, in nanoseconds; negative when the platform does not tell. */
  interface CpuClock {
    long cpuNanos(Session session);
  }

  /** CPU time standing still this long means the child has started. */
  static final Duration SETTLE = Duration.ofMillis(50);

  /** A child still busy this long after its spawn no longer counts as starting. */
  static final Duration START_BOUND = Duration.ofSeconds(5);

  /** How often the warmer looks again while it waits for a start-up to end. */
  static final Duration POLL = Duration.ofMillis(20);

  /** The real clock: {@link ProcessHandle.Info#totalCpuDuration} (on Linux, {@code /proc/<pid>/stat}). */
  static final CpuClock PROCESS_CPU = s -> ProcessHandle.of(s.child().pid())
      .flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(-1L);

  private final int concurrent;
  private final CpuClock clock;
  private final List<Starting> starting = new ArrayList<>();

  /** One child starting: when it was spawned, its CPU time when last seen to change, and since when. */
  private static final class Starting {
    final Session session;
    final long spawnedNanos;
    long cpuNanos;
    long unchangedSinceNanos;

    Starting(Session session, long now, long cpuNanos) {
      this.session = session;
      this.spawnedNanos = now;
      this.cpuNanos = cpuNanos;
      this.unchangedSinceNanos = now;
    }
  }

  StartPacing(int concurrent, CpuClock clock) {
    this.concurrent = Math.max(1, concurrent);
    this.clock = clock;
  }

  /** {@code session}'s child was just spawned. */
  void spawned(Session session, long now) {
    long cpu = clock.cpuNanos(session);
    if (cpu >= 0) {
      starting.add(new Starting(session, now, cpu));
    }
  }

  /** Whether another child may be spawned now: fewer than {@code concurrent} are still starting. */
  boolean room(long now) {
    starting.removeIf(s -> started(s, now));
    return starting.size() < concurrent;
  }

  private boolean started(Starting s, long now) {
    if (now - s.spawnedNanos >= START_BOUND.toNanos() || !s.session.child().isAlive()) {
      return true;
    }
    long cpu = clock.cpuNanos(s.session);
    if (cpu < 0) {
      return true;
    }
    if (cpu != s.cpuNanos) {
      s.cpuNanos = cpu;
      s.unchangedSinceNanos = now;
      return false;
    }
    return now - s.unchangedSinceNanos >= SETTLE.toNanos();
  }
}
