package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The sessions whose children are spawned ahead of their clients ({@code serve --warm N}), so that
 * a client's {@code initialize} waits for an exchange, not for a process to start.
 *
 * <p>A warm session is a whole {@link Session} from its spawn on: its id, public id, log tag,
 * workspace, argv and callback credentials are chosen then ({@link Sessions#spawn}), and it is its
 * child's listener from the first byte, so nothing the child writes or does before its client
 * comes is lost (see {@link Session}). Its child is sent nothing: the client's own {@code
 * initialize} is the first line it reads. A new session takes the oldest warm one that is still
 * alive ({@link #take}); it then takes a slot and is listed, as a session spawned for its client is.
 *
 * <p>One thread of its own ({@code session-warmer}) does the rest, never a request's thread:
 *
 * <ul>
 *   <li>refills to {@code size}, one spawn at a time (a spawn takes milliseconds; the children's
 *       start-ups then run side by side), once clients pause: {@link #REFILL_LULL} without a take,
 *       or {@link #REFILL_DEFER} after the first take not yet refilled for, whichever comes first.
 *       A burst of clients is thus served from the pool and by spawns of their own, not slowed
 *       by a stampede of replacements starting on the same cores (a Node child's start costs
 *       about 80 ms of CPU, its session's initialize a few); with no take owed a refill (the
 *       first fill; a child that ended while the pool was full) the spawn starts at once; and
 *       never more children starting at once than there are processors ({@link StartPacing}), so
 *       the oldest, which the next client takes, is ready first;
 *   <li>drops a warm child that exited (or closed its stdout) before a client took it, and replaces
 *       it after a pause: one that lived less than {@link #MAX_PAUSE}, or a spawn that failed,
 *       doubles the pause from {@link #FIRST_PAUSE} up to {@link #MAX_PAUSE}, so a command that
 *       crashes at once costs a process every 30 s per warm place, not a spawn loop; the first
 *       such exit is logged at once, later ones in a line per 10 s ({@link RepeatedFailures}); a
 *       warm session taken alive ends the run;
 *   <li>closes a warm child unused for the session idle TTL ({@code --session-idle-ttl}; 0: never)
 *       and does not replace it until a client takes a warm session again or asks when none waits:
 *       a gateway nobody uses stops holding processes for nobody.
 * </ul>
 *
 * <p>Bounds: at most {@code size} warm sessions, counted apart from the {@code --max-sessions}
 * slots (a warm session takes a slot only with its client; a client turned away at the cap leaves
 * the warm ones waiting); a take waits at most {@link #SPAWN_WAIT} for a spawn in progress. Shutdown ({@link #close}) stops the thread and ends every warm session
 * the way a session ends: its child through the shutdown ladder, on the sessions' closers.
 *
 * <p>With {@code size} 0 nothing here runs: no thread, and {@link #take} is null at once.
 */
final class WarmSessions implements AutoCloseable {

  /** Makes a session with a freshly spawned child, neither listed nor holding a slot. */
  interface Spawner {
    Session spawn() throws IOException;
  }

  /** The pause before replacing a warm child after the first early exit (or failed spawn) of a run. */
  static final Duration FIRST_PAUSE = Duration.ofMillis(100);

  /** The longest pause; also how long a warm child must have lived for its exit not to count. */
  static final Duration MAX_PAUSE = Duration.ofSeconds(30);

  /** How long {@link #close} waits for a spawn in progress. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(10);

  /** The refill waits for a pause this long in the takes ... */
  static final Duration REFILL_LULL = Duration.ofMillis(50);

  /** ... but never longer than this after the first take it has not refilled for. */
  static final Duration REFILL_DEFER = Duration.ofSeconds(1);

  /** A take that finds none waiting while one is being spawned waits this long at most for it. */
  static final Duration SPAWN_WAIT = Duration.ofSeconds(1);

  private final int size;
  private final String command;
  private final Duration idleTtl;
  private final Spawner spawner;
  private final BiConsumer<Session, String> retire;
  private final Log log;
  private final RepeatedFailures earlyExits;
  /** The children still starting; guarded by this. */
  private final StartPacing pacing;
  /** The warm sessions, oldest first (the order they were spawned in); guarded by this. */
  private final ArrayDeque<Session> ready = new ArrayDeque<>();
  /** Refill while true: set by every {@link #take}, cleared when the idle TTL closes a warm child. */
  private boolean wanted = true; // guarded by this
  /** Early exits and failed spawns since a warm session was last taken alive; guarded by this. */
  private int failures;
  /** No spawn before this while {@link #failures} > 0 ({@link System#nanoTime}); guarded by this. */
  private long resumeNanos;
  private boolean closed; // guarded by this
  /** The warmer is spawning a session now; guarded by this. */
  private boolean spawning;
  /** When the last take was ({@link System#nanoTime}); guarded by this. */
  private long lastTakeNanos;
  /** When the first take the pool has not refilled for was; 0 while the pool is full; guarded by this. */
  private long owedSinceNanos;
  private Thread warmer;

  /**
   * @param size warm sessions at most ({@code --warm}); 0 for none
   * @param command the child's program, for the log
   * @param idleTtl how long a warm session may wait unused; zero: for ever
   * @param retire ends a session that is not listed (its child closed in the background)
   * @param pacing how many may be starting at once
   */
  WarmSessions(int size, String command, Duration idleTtl, Spawner spawner, BiConsumer<Session, String> retire,
      StartPacing pacing, Log log) {
    this.size = size;
    this.pacing = pacing;
    this.command = command;
    this.idleTtl = idleTtl;
    this.spawner = spawner;
    this.retire = retire;
    this.log = log;
    this.earlyExits = new RepeatedFailures(log::warn, log, () -> System.nanoTime() / 1_000_000);
  }

  /** Starts the thread that fills the pool; nothing with size 0. */
  synchronized void start() {
    if (size > 0 && warmer == null && !closed) {
      warmer = Thread.ofPlatform().daemon().name("session-warmer").start(this::run);
    }
  }

  /**
   * The oldest warm session whose child is still alive, taken out of the pool; null when none
   * waits (the caller spawns one). When none waits but one is being spawned, waits for that spawn
   * (milliseconds; at most {@link #SPAWN_WAIT}) rather than have the caller start a rival process.
   * The pool refills behind it.
   */
  Session take() throws InterruptedException {
    if (size == 0) {
      return null;
    }
    synchronized (this) {
      wanted = true;
      long now = System.nanoTime();
      lastTakeNanos = now;
      if (owedSinceNanos == 0) {
        owedSinceNanos = now;
      }
      Session taken = pollUsable();
      long deadline = now + SPAWN_WAIT.toNanos();
      for (long left; taken == null && spawning && !closed && (left = deadline - System.nanoTime()) > 0; ) {
        TimeUnit.NANOSECONDS.timedWait(this, left);
        taken = pollUsable();
      }
      if (taken != null && failures > 0) {
        failures = 0;
        earlyExits.succeeded("children started ahead of need live again");
      }
      notifyAll();
      return taken;
    }
  }

  /** Takes out the oldest warm session still alive, or null; a dead one stays for the warmer, which counts and replaces it. Holds the lock. */
  private Session pollUsable() {
    for (Iterator<Session> it = ready.iterator(); !closed && it.hasNext(); ) {
      Session s = it.next();
      if (usable(s)) {
        it.remove();
        return s;
      }
    }
    return null;
  }

  /** Warm sessions waiting now, the dead ones not yet dropped included (for tests). */
  synchronized int waiting() {
    return ready.size();
  }

  /** Whether the warmer thread runs (for tests). */
  synchronized boolean running() {
    return warmer != null && warmer.isAlive();
  }

  private static boolean usable(Session s) {
    return !s.dead() && s.child().isAlive();
  }

  /** How a warm child ended, for the log: its exit code when it is known. */
  private static String endedHow(Session s) {
    if (s.dead()) {
      return s.deathReason();
    }
    Integer code = s.child().exited().getNow(null);
    return code == null ? "the server closed its stdout" : "the server process exited with code " + code;
  }

  /** One warm session dropped, and why. */
  private record Dropped(Session session, String why) {}

  private void run() {
    try {
      while (true) {
        List<Dropped> dropped = new ArrayList<>();
        synchronized (this) {
          while (!closed && !prune(dropped, System.nanoTime()) && !due(System.nanoTime())) {
            waitForWork(System.nanoTime());
          }
          if (closed) {
            return; // close() ends what is left
          }
          spawning = dropped.isEmpty();
        }
        for (Dropped d : dropped) {
          retire.accept(d.session(), d.why());
        }
        if (dropped.isEmpty()) {
          spawnOne();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) { // a spawner or retire bug must not leave the pool silently empty
      log.error("session warmer stopped: " + e);
    }
  }

  /**
   * Takes out of the pool the warm sessions whose children died (noting each early exit) and those
   * unused for the idle TTL; true when it took any. Holds the lock.
   */
  private boolean prune(List<Dropped> dropped, long now) {
    for (Iterator<Session> it = ready.iterator(); it.hasNext(); ) {
      Session s = it.next();
      if (!usable(s)) {
        it.remove();
        long lived = now - s.bornNanos();
        if (lived < MAX_PAUSE.toNanos()) {
          long pause = failed(now);
          earlyExits.failed("a child started ahead of need (" + command + ") ended before a client took it (" + endedHow(s)
              + ", after " + TimeUnit.NANOSECONDS.toMillis(lived) + " ms); the next one starts in " + pause + " ms at the earliest");
        } else {
          s.log.info("the child started ahead of need ended after " + TimeUnit.NANOSECONDS.toSeconds(lived) + " s unused ("
              + endedHow(s) + "); replacing it");
        }
        dropped.add(new Dropped(s, "it ended before a client took it"));
      }
    }
    if (!idleTtl.isZero()) {
      while (!ready.isEmpty() && now - ready.peekFirst().bornNanos() >= idleTtl.toNanos()) {
        Session idle = ready.pollFirst();
        String unused = "unused for " + (idleTtl.toMillis() % 1000 == 0 ? idleTtl.toSeconds() + " s" : idleTtl.toMillis() + " ms");
        idle.log.info("closing the child started ahead of need: " + unused + " (the next client refills the pool)");
        dropped.add(new Dropped(idle, unused));
        wanted = false; // nobody came for it: the next client refills the pool
      }
    }
    return !dropped.isEmpty();
  }

  /** Notes an early exit or a failed spawn; returns the pause before the next spawn, in ms. Holds the lock. */
  private long failed(long now) {
    failures++;
    long pause = pauseAfter(failures).toMillis();
    resumeNanos = now + TimeUnit.MILLISECONDS.toNanos(pause);
    return pause;
  }

  /** The pause after {@code failures} early exits or failed spawns in a row: 100 ms doubling to 30 s. */
  static Duration pauseAfter(int failures) {
    int doublings = Math.min(Math.max(failures, 1) - 1, 20);
    return Duration.ofMillis(Math.min(FIRST_PAUSE.toMillis() << doublings, MAX_PAUSE.toMillis()));
  }

  /**
   * Whether a spawn is due now: a place is free, the pool is wanted, no pause after failures runs,
   * and the takes have paused ({@link #lull}). Holds the lock.
   */
  private boolean due(long now) {
    return wanted && ready.size() < size && (failures == 0 || now - resumeNanos >= 0) && lull(now) <= 0
        && pacing.room(now);
  }

  /**
   * How long until the takes count as paused, in nanoseconds; 0 or less when they are (or no take
   * is owed a refill: the first fill, the replacement of a child that ended). Holds the lock.
   */
  private long lull(long now) {
    if (owedSinceNanos == 0) {
      return 0;
    }
    return Math.min(lastTakeNanos + REFILL_LULL.toNanos(), owedSinceNanos + REFILL_DEFER.toNanos()) - now;
  }

  /**
   * Waits until something may have changed (a take, an exit, close) or the next thing due: the end
   * of a pause, the oldest warm session's idle TTL. Holds the lock.
   */
  private void waitForWork(long now) throws InterruptedException {
    long waitNanos = Long.MAX_VALUE;
    if (wanted && ready.size() < size) {
      long until = Math.max(failures > 0 ? resumeNanos - now : 0, lull(now));
      if (until > 0) {
        waitNanos = until;
      } else { // only the children still starting hold the spawn back: look again soon
        waitNanos = StartPacing.POLL.toNanos();
      }
    }
    if (!idleTtl.isZero() && !ready.isEmpty()) {
      waitNanos = Math.min(waitNanos, Math.max(1, ready.peekFirst().bornNanos() + idleTtl.toNanos() - now));
    }
    if (waitNanos == Long.MAX_VALUE) {
      wait();
    } else {
      TimeUnit.NANOSECONDS.timedWait(this, waitNanos);
    }
  }

  /** Spawns one warm session (outside the lock) and adds it, or counts the failure (logged by the spawner). */
  private void spawnOne() {
    Session s;
    try {
      s = spawner.spawn();
    } catch (IOException e) {
      synchronized (this) {
        spawning = false;
        failed(System.nanoTime());
        notifyAll(); // a take waiting for this spawn goes on without it
      }
      return;
    } catch (RuntimeException e) {
      synchronized (this) {
        spawning = false;
        notifyAll();
      }
      throw e;
    }
    int waitingNow;
    synchronized (this) {
      spawning = false;
      if (!closed) {
        pacing.spawned(s, System.nanoTime());
        ready.addLast(s);
        if (ready.size() == size) {
          owedSinceNanos = 0; // full: the next take starts a new debt
        }
      }
      waitingNow = closed ? -1 : ready.size();
      notifyAll(); // a take waiting for this spawn
    }
    if (waitingNow < 0) {
      retire.accept(s, "the gateway is shutting down");
      return;
    }
    s.log.debug("started " + command + " (pid " + s.child().pid() + ") ahead of need; " + waitingNow + " of " + size
        + " waiting for a client");
    s.child().exited().thenRun(this::wake); // an exit is noticed at once, not at the next take
  }

  /** Makes the warmer look again (an exit; the sessions' reaper, for a child that closed its stdout and lives on). */
  synchronized void wake() {
    notifyAll();
  }

  /**
   * Stops refilling, waits for a spawn in progress (at most {@link #CLOSE_WAIT}), and ends every
   * warm session; their children are closed with the ladder on the sessions' closers.
   */
  @Override
  public void close() throws InterruptedException {
    Thread t;
    synchronized (this) {
      closed = true;
      notifyAll();
      t = warmer;
    }
    if (t != null && !t.join(CLOSE_WAIT)) {
      log.warn("the session warmer is still spawning after " + CLOSE_WAIT.toSeconds() + " s; its child is ended when it is done");
    }
    List<Session> left;
    synchronized (this) {
      left = List.copyOf(ready);
      ready.clear();
    }
    for (Session s : left) {
      retire.accept(s, "the gateway is shutting down");
    }
  }
}
