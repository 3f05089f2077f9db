package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The children that serve 2026-era requests, keyed by the authenticated principal: one principal's
 * requests never reach another's child (with no authentication, or one static token, everyone is
 * one principal). A 2025-era child is keyed by the principal and by what the request's client can
 * be asked ({@link ClientAsks}), and is initialized declaring exactly that, since such a child
 * learns its client's capabilities once; a 2026-era child gets each caller's capabilities with
 * every request, so its key ignores them.
 *
 * <p>Bounds: at most {@link Settings#perPrincipal} children per principal (over all its keys; at
 * that cap an idle child of another of its keys is closed to make room) and {@link
 * Settings#total} in all. The requests of one key share its children (ids are the gateway's own, so
 * they multiplex), the least loaded ready one first; the pool grows for a key (within both caps,
 * one spawn at a time, in the background while the call shares a busy child) when every one of its
 * children is working on a call ({@link PooledChild#working}), since a 2025-era child may serve one
 * request at a time, and at once when the key has none, or when every one is taken {@linkplain
 * #acquire exclusively}. The command's era is probed once, before the first request is keyed
 * ({@link #era2026}); for a 2025-era command one process waits started ahead of need ({@link
 * WarmProcess}, in the total cap but never its last place) for the next new child to take over. At the total
 * cap the idlest evictable child of any principal makes room; a child is evictable only when
 * nothing is in flight on it and nothing holds it (a listen stream, a parked MRTR round), so
 * eviction never cuts a call or a stream. When nothing can be evicted the request gets 503. When
 * a bridged call parks a key's last child not held exclusively ({@link #parked}), a spare is
 * started (within both caps), so that the key's next call finds a child ready.
 *
 * <p>The reaper removes dead children (their processes reaped) and, with an idle TTL, children
 * idle longer than it; a dead child met on {@link #acquire} is removed and replaced. Spawns and
 * handshakes run outside the pool's lock; children are closed on threads of their own, so a wedged
 * child never stalls a request or the reaper.
 */
public final class ChildPool implements AutoCloseable {

  /**
   * @param child what to spawn
   * @param maxLineBytes the longest stdout line a child may write ({@code --max-message-size})
   * @param perPrincipal children per principal at most
   * @param total children in all at most
   * @param idleTtl an idle child is closed after this long; zero: never
   * @param handshakeTimeout how long a fresh child may take to answer initialize
   * @param userEnv the environment variable a signed-in user's children are given its name in
   *     ({@code --user-env}), or null; with it no warm process is kept (its user is not known when it
   *     starts), and the command's probe process serves no user's child: it is closed instead
   */
  public record Settings(ChildSpec child, long maxLineBytes, ChildProcess.Ladder ladder, ChildProcess.StderrLimit stderrLimit,
      int perPrincipal, int total, Duration idleTtl, Duration handshakeTimeout, String userEnv,
      dev.mcpstdio.process.ChildCensus census) {
    public Settings {
      if (perPrincipal < 1 || total < 1) {
        throw new IllegalArgumentException("pool caps must be at least 1");
      }
    }

    public Settings(ChildSpec child, long maxLineBytes, ChildProcess.Ladder ladder, ChildProcess.StderrLimit stderrLimit,
        int perPrincipal, int total, Duration idleTtl, Duration handshakeTimeout, String userEnv) {
      this(child, maxLineBytes, ladder, stderrLimit, perPrincipal, total, idleTtl, handshakeTimeout, userEnv,
          new dev.mcpstdio.process.ChildCensus());
    }

    public Settings(ChildSpec child, long maxLineBytes, ChildProcess.Ladder ladder, ChildProcess.StderrLimit stderrLimit,
        int perPrincipal, int total, Duration idleTtl, Duration handshakeTimeout) {
      this(child, maxLineBytes, ladder, stderrLimit, perPrincipal, total, idleTtl, handshakeTimeout, null);
    }

    /** What {@code principal}'s children are spawned with: the command, and its user's name under {@link #userEnv}. */
    ChildSpec childOf(String principal) {
      return userEnv == null || principal == null || !dev.mcpstdio.serve.http.Principals.isUser(principal) ? child
          : child.with(java.util.Map.of(userEnv, principal));
    }
  }

  /** No child could be had: the caps are reached and nothing can be evicted, or the child failed to start. */
  public static final class Unavailable extends Exception {
    /** The caps are reached and every child is taken (not a failure to start). */
    final boolean atCap;

    Unavailable(String message) {
      this(message, false);
    }

    Unavailable(String message, boolean atCap) {
      super(message, null, false, false);
      this.atCap = atCap;
    }
  }

  private final Settings settings;
  private final Log log;
  private final PooledChild.Events events;
  /** A principal's children for one set of client capabilities (a 2026-era child's key holds {@link ClientAsks#ALL}). */
  record Key(String principal, ClientAsks asks) {
    static Key of(PooledChild child) {
      return new Key(child.principal, child.asks);
    }
  }

  private final Map<Key, List<PooledChild>> byKey = new HashMap<>(); // guarded by this
  private int count; // children listed or being spawned, and the warm process (or its spawn), guarded by this
  /** The process spawned ahead for the next child ({@link WarmProcess}), or null; guarded by this. */
  private WarmProcess warm;
  private boolean warming; // the warm process is being spawned, guarded by this
  private final AtomicLong serials = new AtomicLong();
  private final ExecutorService closers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("pool-close-", 0).factory());
  private final ScheduledExecutorService reaper;
  private final ChildStarter starter;
  private volatile boolean closed;
  /**
   * Whether the command's children are 2026-era servers: completed by the one probe of the
   * command ({@link #era2026}), null until a request asks; guarded by this.
   */
  private CompletableFuture<Boolean> era;
  /** The probe's verdict once known (the command is the same for every child of the pool). */
  private volatile Boolean era2026Children;

  ChildPool(Settings settings, Log log, PooledChild.Events events) {
    this.settings = settings;
    this.log = log;
    this.events = events;
    this.starter = new ChildStarter(settings, log, this::closeInBackground, this::warmUp);
    this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("pool-reaper").factory());
    long period = reapPeriod(settings.idleTtl()).toMillis();
    reaper.scheduleWithFixedDelay(this::reap, period, period, TimeUnit.MILLISECONDS);
  }

  /** Half the idle TTL, between one second and one minute; a minute without a TTL. */
  static Duration reapPeriod(Duration ttl) {
    return ttl.isZero() ? Duration.ofMinutes(1) : Duration.ofMillis(Math.max(1000, Math.min(60_000, ttl.toMillis() / 2)));
  }

  /**
   * A ready child of {@code principal} initialized for {@code asks} (what the request's client can
   * be asked; ignored once the children are known to be 2026-era servers, which get each caller's
   * capabilities with every request), held for the caller (who must {@link #release} it). With
   * {@code exclusive}, one no other exclusive user holds (a bridged call, which may park the child
   * on a question to its client), spawning one within the principal's cap if need be.
   */
  PooledChild acquire(String principal, ClientAsks asks, boolean exclusive) throws Unavailable, InterruptedException {
    boolean children2026 = era2026();
    Key key = new Key(principal, children2026 ? ClientAsks.ALL : asks);
    for (int attempt = 0; attempt < 3; attempt++) {
      PooledChild child;
      PooledChild spare = null; // one more child, started in the background (see below)
      boolean fresh = false;
      synchronized (this) {
        if (closed) {
          throw new Unavailable("the gateway is shutting down");
        }
        List<PooledChild> mine = byKey.computeIfAbsent(key, k -> new ArrayList<>());
        mine.removeIf(c -> c.dead() && retire(c, "dead"));
        child = mine.stream()
            .filter(c -> !exclusive || !c.exclusivelyHeld())
            .min(Comparator.comparing((PooledChild c) -> !c.ready.isDone()).thenComparingInt(PooledChild::load))
            .orElse(null);
        if (!exclusive && child != null && childrenOf(principal) < settings.perPrincipal()
            && mine.stream().allMatch(c -> c.ready.isDone() && c.working() > 0) && room()) {
          // every child of the key is busy: one more starts in the background, for the calls after
          // this one (a 2025-era child may serve one request at a time); this call shares
          spare = newChild(key, mine);
        }
        if (child == null) { // none yet, or (exclusive) every one taken
          // at the principal's cap, an idle child of another of its keys makes room
          if (childrenOf(principal) >= settings.perPrincipal() && !evictOne(principal)) {
            throw new Unavailable("all " + settings.perPrincipal() + " children of this principal are busy (a call"
                + " that may ask its client holds a child of its own); retry once one completes", true);
          }
          if (!room() && !evictOne(null)) {
            throw new Unavailable("the pool is full (" + settings.total() + " children, none idle)", true);
          }
          child = newChild(key, mine);
          fresh = true;
        }
        child.hold();
        if (exclusive) {
          child.holdExclusively();
        }
      }
      if (spare != null) {
        startInBackground(spare);
      }
      boolean ready;
      try {
        if (fresh) {
          starter.start(child, children2026);
        }
        ready = await(child);
      } catch (InterruptedException | RuntimeException e) {
        release(child, exclusive); // what was held above is given back whatever happens
        if (fresh) { // its start goes on; watched in the background, so a failed one is not left listed
          PooledChild started = child;
          Thread.ofVirtual().name("pool-spawn-", child.serial).start(() -> awaitOrRetire(started));
        }
        throw e;
      }
      if (ready) {
        if (!child.retired()) {
          return child;
        }
        release(child, exclusive); // retired while it started: the gateway is closing
        throw new Unavailable("the gateway is shutting down");
      }
      release(child, exclusive);
      synchronized (this) {
        List<PooledChild> mine = byKey.get(key);
        if (mine != null && mine.remove(child)) {
          retire(child, "failed to start");
        }
      }
      if (fresh) {
        throw new Unavailable("the server could not be started: " + child.deathReason());
      }
    }
    throw new Unavailable("the server keeps failing");
  }

  /**
   * A new child for {@code key}, listed in {@code mine} and counted (its process not yet started,
   * or the warm process, which it takes over). Holds the lock.
   */
  private PooledChild newChild(Key key, List<PooledChild> mine) {
    WarmProcess ahead = room() && warm != null ? warm : null;
    warm = null;
    PooledChild child;
    if (ahead != null) { // counted already
      child = new PooledChild(key.principal(), key.asks(), ahead.serial(), ahead.childLog(), events);
      child.warmProcess = ahead;
    } else {
      long serial = serials.incrementAndGet();
      child = new PooledChild(key.principal(), key.asks(), serial,
          new ChildLog(log.tagged("pool child " + serial), settings.stderrLimit()), events);
      count++;
    }
    mine.add(child);
    return child;
  }

  /**
   * Room for one more child within the total cap: fewer than that many, or a warm process to take
   * over (a warm process that ended meanwhile is dropped first). Holds the lock.
   */
  private boolean room() {
    if (warm != null && !warm.usable()) {
      dropWarm("it exited before it was needed");
    }
    return count < settings.total() || warm != null;
  }

  /** Closes the warm process and counts it out. Holds the lock. */
  private void dropWarm(String why) {
    WarmProcess w = warm;
    warm = null;
    count--;
    w.childLog().info("pool: closing the warm process (" + why + ")");
    closeInBackground(() -> {
      w.process().close();
      w.childLog().flush();
    });
  }

  /**
   * Makes sure a warm process waits for the next child once the command is known to start
   * 2025-era servers: spawns one in the background when there is none, none is being spawned, and
   * the total cap leaves room for it and one more (the warm one counts in the cap, and never takes
   * the last place: a request that comes while it is being spawned can still start a child of its
   * own). Called when the probe found the command to start 2025-era servers (the first warm
   * process then starts beside the first child: a client's second key, e.g. its first call that
   * declares elicitation, tends to follow its first within a second), and whenever a 2025-era
   * child became ready (later spawns do not compete with the start of a child a request waits for).
   */
  private void warmUp() {
    warmUp(0);
  }

  /** {@link #warmUp}, with {@code coming} children about to be counted that the warm one must leave room for. */
  private void warmUp(int coming) {
    long serial;
    synchronized (this) {
      if (closed || warming || warm != null || !Boolean.FALSE.equals(era2026Children) || settings.userEnv() != null
          || count + coming + 1 >= settings.total()) {
        return;
      }
      warming = true;
      count++;
      serial = serials.incrementAndGet();
    }
    Thread.ofVirtual().name("pool-warm-", serial).start(() -> spawnWarm(serial));
  }

  private void spawnWarm(long serial) {
    WarmProcess spawned = null;
    try {
      spawned = starter.spawnAhead(serial);
    } catch (IOException | RuntimeException e) {
      log.warn("pool: could not start a process ahead of need: " + e.getMessage());
    }
    synchronized (this) {
      warming = false;
      notifyAll(); // a request waiting at the cap (awaitRelease) may take the warm process, or its place
      if (spawned != null && !closed) {
        warm = spawned;
        return;
      }
      count--;
    }
    if (spawned != null) { // the gateway closed meanwhile
      closeInBackground(spawned.process()::close);
    }
  }

  /**
   * Whether the command's children are 2026-era servers. The first caller starts the probe of the
   * command ({@link ChildStarter#probe}, on a thread of the pool's own, so that an interrupted
   * request fails no other; on a process counted in the total cap while it lives; a 2026-era one
   * is kept for the first child to take over), and callers meanwhile wait for that probe (at most
   * {@link #PROBE_WAIT}), so even the first requests are keyed, and bridged or passed through, by
   * what the command is. A probe that could not spawn the command is tried again by the next
   * request.
   */
  boolean era2026() throws Unavailable, InterruptedException {
    CompletableFuture<Boolean> known;
    long serial = 0;
    synchronized (this) {
      if (closed) {
        throw new Unavailable("the gateway is shutting down");
      }
      if (era == null) {
        era = new CompletableFuture<>();
        serial = serials.incrementAndGet();
        count++;
        warming = true;
      }
      known = era;
    }
    if (serial != 0) {
      long probeSerial = serial;
      Thread.ofVirtual().name("pool-probe-", serial).start(() -> probe(probeSerial, known));
    }
    try {
      return known.get(PROBE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new Unavailable("the server could not be started: " + e.getCause());
    } catch (TimeoutException e) {
      throw new Unavailable("the server's start and its server/discover probe took longer than " + PROBE_WAIT.toSeconds() + " s");
    }
  }

  /** How long a request waits for the command's probe: its timeout and time for the spawn. */
  static final Duration PROBE_WAIT = ChildStarter.PROBE_TIMEOUT.plusSeconds(10);

  /** Runs the command's probe and completes {@code known}, whatever happens (the pool's books restored when it failed). */
  private void probe(long serial, CompletableFuture<Boolean> known) {
    ChildStarter.Probed probed = null;
    Throwable failure = null;
    try {
      probed = starter.probe(serial);
    } catch (Throwable e) { // an Error too: the waiters must not wait for ever
      failure = e;
    }
    if (probed == null) {
      synchronized (this) {
        warming = false;
        count--;
        era = null;
      }
      known.completeExceptionally(failure);
      log.error("pool: could not start " + settings.child().argv().getFirst() + ": " + failure);
      return;
    }
    WarmProcess late = null;
    synchronized (this) {
      warming = false;
      era2026Children = probed.era2026();
      if (probed.kept() != null && !closed) {
        warm = probed.kept();
      } else {
        count--;
        late = probed.kept();
      }
    }
    if (late != null) { // the gateway closed meanwhile
      closeInBackground(late.process()::close);
    }
    known.complete(probed.era2026());
    if (!probed.era2026()) {
      warmUp(1); // the first warm process starts beside the first child (not yet counted): the next key may come soon
    }
  }

  /** The children of {@code principal} listed or being spawned, over all its keys. Holds the lock. */
  private int childrenOf(String principal) {
    int n = 0;
    for (Map.Entry<Key, List<PooledChild>> e : byKey.entrySet()) {
      if (e.getKey().principal().equals(principal)) {
        n += e.getValue().size();
      }
    }
    return n;
  }

  /**
   * The reverse MRTR bridge parked {@code child} (held exclusively) on a round of questions to its
   * client, which may take until the round expires: when that leaves its key no child free, a
   * spare starts in the background (within both caps), so that the key's next call does not wait
   * for a spawn and a handshake. Not at {@link #acquire}: a bridged call that is answered at once
   * needs no spare, and a spare spawned beside a fresh child would slow both on a small machine.
   */
  void parked(PooledChild child) {
    PooledChild spare = null;
    synchronized (this) {
      Key key = Key.of(child);
      List<PooledChild> mine = byKey.get(key);
      if (!closed && mine != null && mine.contains(child) && childrenOf(child.principal) < settings.perPrincipal()
          && room() && mine.stream().allMatch(PooledChild::exclusivelyHeld)) {
        spare = newChild(key, mine);
      }
    }
    if (spare != null) {
      startInBackground(spare);
    }
  }

  /** Starts a listed child's process on a thread of its own; whoever acquires it before it is ready waits as for any fresh child. */
  private void startInBackground(PooledChild spare) {
    Thread.ofVirtual().name("pool-spawn-", spare.serial).start(() -> startSpare(spare));
  }

  /** Starts a child the pool grew by while its principal's children were busy; removes it when it fails. */
  private void startSpare(PooledChild spare) {
    starter.start(spare, Boolean.TRUE.equals(era2026Children));
    awaitOrRetire(spare);
  }

  /** Waits for a listed child's start (at most the handshake timeout); removes and retires it when it fails. */
  private void awaitOrRetire(PooledChild child) {
    try {
      if (await(child)) {
        return;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    synchronized (this) {
      List<PooledChild> mine = byKey.get(Key.of(child));
      if (mine != null && mine.remove(child)) {
        retire(child, "failed to start");
      }
    }
  }

  /** Gives back what {@link #acquire} held. */
  void release(PooledChild child, boolean exclusive) {
    if (exclusive) {
      child.releaseExclusively();
    }
    child.unhold();
    synchronized (this) {
      notifyAll(); // wakes the callers waiting at a cap (awaitRelease)
    }
  }

  /**
   * Waits until some child is released or {@code deadlineNanos} ({@link System#nanoTime}) passes:
   * a caller refused at a cap waits here before trying again, since most held children are freed
   * within milliseconds. False once the deadline has passed (the caller is then refused).
   */
  boolean awaitRelease(long deadlineNanos) throws InterruptedException {
    synchronized (this) {
      long left = deadlineNanos - System.nanoTime();
      if (left <= 0 || closed) {
        return false;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
      return true;
    }
  }

  /** Waits for the child's handshake; false when it failed or took too long. */
  private boolean await(PooledChild child) throws InterruptedException {
    try {
      child.ready.get(settings.handshakeTimeout().toMillis(), TimeUnit.MILLISECONDS);
      return true;
    } catch (ExecutionException e) {
      child.childLog.warn("initialize failed: " + e.getCause().getMessage());
      return false;
    } catch (TimeoutException e) {
      child.childLog.warn("no answer to initialize (or to the gateway's tools/list) within "
          + settings.handshakeTimeout().toSeconds() + " s");
      return false;
    }
  }

  /**
   * Evicts the idlest evictable child of {@code principal} (of any principal when null); false when
   * there is none. Holds the lock.
   */
  private boolean evictOne(String principal) {
    PooledChild idlest = null;
    Key at = null;
    for (Map.Entry<Key, List<PooledChild>> e : byKey.entrySet()) {
      if (principal != null && !e.getKey().principal().equals(principal)) {
        continue;
      }
      for (PooledChild c : e.getValue()) {
        if (c.idle() && c.ready.isDone() && (idlest == null || c.idleNanos() > idlest.idleNanos())) {
          idlest = c;
          at = e.getKey();
        }
      }
    }
    if (idlest == null) {
      return false;
    }
    byKey.get(at).remove(idlest);
    retire(idlest, "evicted to make room");
    return true;
  }

  /** Counts a listed child out and closes it in the background. Holds the lock. */
  private boolean retire(PooledChild child, String why) {
    count--;
    child.retire(); // a process still being spawned for it is closed when it is attached
    child.childLog.info("pool: closing child (" + why + ")");
    closeInBackground(() -> {
      ChildProcess p = child.process();
      if (p != null) {
        p.close();
      }
      child.childLog.flush();
    });
    return true;
  }

  /** Runs a close on the closers, or on a thread of its own once they are shut down (a spawn that ends after {@link #close}). */
  private void closeInBackground(Runnable close) {
    try {
      closers.execute(close);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      Thread.ofVirtual().name("pool-close-late").start(close);
    }
  }

  private void reap() {
    try {
      Duration ttl = settings.idleTtl();
      synchronized (this) {
        for (List<PooledChild> list : byKey.values()) {
          list.removeIf(c -> (c.dead() && c.initialized.isDone() && retire(c, "dead"))
              || (!ttl.isZero() && c.idle() && c.ready.isDone() && c.idleNanos() > ttl.toNanos()
                  && retire(c, "idle for " + ttl.toSeconds() + " s")));
        }
        byKey.values().removeIf(List::isEmpty);
        if (warm != null && !warm.usable()) {
          dropWarm("it exited");
        } else if (warm != null && !ttl.isZero() && System.nanoTime() - warm.bornNanos() > ttl.toNanos()) {
          dropWarm("unused for " + ttl.toSeconds() + " s");
        }
      }
    } catch (RuntimeException e) { // an escaped exception would cancel every later pass
      log.error("pool reaper: " + e);
    }
  }

  /** Children listed now, not counting the warm process, its spawn or the probe's process (for tests and readiness). */
  synchronized int size() {
    return count - (warm != null || warming ? 1 : 0);
  }

  /** True while a warm process waits, or is being spawned, or the command is being probed (for tests). */
  synchronized boolean warm() {
    return warm != null || warming;
  }

  /** Closes every child and waits until each is reaped, at most the ladder's length and a bit. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      closed = true;
      for (List<PooledChild> list : byKey.values()) {
        list.forEach(c -> retire(c, "the gateway is shutting down"));
      }
      byKey.clear();
      if (warm != null) {
        dropWarm("the gateway is shutting down");
      }
    }
    starter.close(); // processes still being started (a probe, a spawn) end too
    reaper.shutdownNow();
    closers.shutdown();
    Duration ladder = settings.ladder().afterStdinClosed().plus(settings.ladder().afterTerm()).multipliedBy(2);
    if (!closers.awaitTermination(ladder.toMillis() + 2000, TimeUnit.MILLISECONDS)) {
      log.error("pool: some children could not be ended in time");
    }
  }
}
