package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The live sessions: creation under the {@code --max-sessions} cap, look-up by id, ending, the idle
 * reaper, and shutdown; and, with {@code --warm N}, the sessions whose children wait spawned for
 * their clients ({@link WarmSessions}), which a new session takes before it spawns one.
 *
 * <p>Session ids are 128 random bits from a CSPRNG, hex-encoded (visible ASCII, as the spec
 * requires). A session whose child died stays listed until a request learns of it (503) or the
 * reaper's next pass, then it is gone (404). Children are closed on threads of their own so a
 * wedged child never stalls a request or the reaper; shutdown waits for all of them, bounded by
 * the ladder.
 *
 * <p>A session is made, its id chosen and its child spawned, in one place ({@link #spawn}), whether
 * its client is there already or the session waits warm for one; a slot is taken, and the
 * session listed, only when its client arrives ({@link #create}). Warm sessions are extra
 * processes beside the slots: at most {@code maxSessions + warm} session children at once.
 */
public final class Sessions {

  /** Messages from all children waiting for slow clients, in bytes at most. */
  static final long QUEUED_BYTES = 128L << 20;

  private static final SecureRandom RANDOM = new SecureRandom();

  private final ServeConfig config;
  private final Log log;
  private final Map<String, Session> byId = new ConcurrentHashMap<>();
  private final Semaphore slots;
  private final ByteBudget queuedBytes = new ByteBudget(QUEUED_BYTES);
  private final ExecutorService closers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("close-", 0).factory());
  private final ScheduledExecutorService reaper;
  private final CallbackEvents callbackEvents = new CallbackEvents(queuedBytes);
  /** Failed child starts: a client can cause one per initialize while the process is out of fds. */
  private final RepeatedFailures startFailures;
  private dev.mcpstdio.host.CallbackChannel callbackChannel; // started with the first session, guarded by this
  /** Sessions spawned ahead of their clients; inert without {@code --warm}. */
  private final WarmSessions warm;
  private volatile boolean shuttingDown;
  /** The gateway's children: each session's is counted from its spawn (warm ones too) until it exits. */
  private final dev.mcpstdio.process.ChildCensus census;
  /** Sessions a client opened (listed), by transport: Streamable HTTP, HTTP+SSE (2024-11-05). */
  private final java.util.concurrent.atomic.LongAdder openedStreamable = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder openedHttpSse = new java.util.concurrent.atomic.LongAdder();

  public Sessions(ServeConfig config, Log log) {
    this(config, log, new dev.mcpstdio.process.ChildCensus());
  }

  public Sessions(ServeConfig config, Log log, dev.mcpstdio.process.ChildCensus census) {
    this.config = config;
    this.log = log;
    this.census = census;
    this.slots = new Semaphore(config.maxSessions());
    this.startFailures = new RepeatedFailures(log::error, log, () -> System.nanoTime() / 1_000_000);
    this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("session-reaper").factory());
    long period = reapPeriod(config.sessionIdleTtl()).toMillis();
    reaper.scheduleWithFixedDelay(this::reap, period, period, TimeUnit.MILLISECONDS);
    this.warm = new WarmSessions(config.warm(), config.child().argv().getFirst(), config.sessionIdleTtl(), () -> spawn(null),
        this::retire, new StartPacing(Runtime.getRuntime().availableProcessors(), StartPacing.PROCESS_CPU), log);
  }

  /** Starts spawning the warm sessions' children (with {@code --warm}), once the gateway listens. */
  public void start() {
    warm.start();
  }

  /** Half the idle TTL, between one second and one minute; a minute without a TTL. */
  static Duration reapPeriod(Duration ttl) {
    if (ttl.isZero()) {
      return Duration.ofMinutes(1);
    }
    long half = Math.max(1000, Math.min(60_000, ttl.toMillis() / 2));
    return Duration.ofMillis(half);
  }

  int size() {
    return byId.size();
  }

  /** Sessions open now (listed, whichever transport). */
  public int open() {
    return byId.size();
  }

  /** Sessions opened since the start, of the HTTP+SSE (2024-11-05) transport when {@code httpSse}, else of Streamable HTTP. */
  public long opened(boolean httpSse) {
    return (httpSse ? openedHttpSse : openedStreamable).sum();
  }

  public boolean full() {
    return slots.availablePermits() == 0;
  }

  /**
   * A new Streamable HTTP session of {@code owner} for this initialize (its capabilities known
   * before its child is sent anything), or null when the cap is reached or the gateway is shutting
   * down.
   */
  Session create(String owner, dev.mcpstdio.jsonrpc.JsonRpcMessage.Request initialize) throws IOException, InterruptedException {
    return create(owner, false, initialize);
  }

  /**
   * A new session of {@code owner}; {@code oneStream} for the legacy HTTP+SSE transport, where
   * every message from the child travels on the session's one event stream. A signed-in user at
   * {@code --max-sessions-per-owner} first loses its least recently used session. Its child is a
   * warm one when one waits (with {@code --warm}), else it is spawned now. A child that cannot be
   * started is logged in {@link #spawn}, and the caller answers its client.
   */
  Session create(String owner, boolean oneStream, dev.mcpstdio.jsonrpc.JsonRpcMessage.Request initialize)
      throws IOException, InterruptedException {
    makeRoomFor(owner, null); // first, so that the user's own old session can free the slot this one needs
    if (shuttingDown || !slots.tryAcquire()) {
      return null;
    }
    Session session;
    try {
      session = warm.take();
    } catch (InterruptedException e) {
      slots.release();
      throw e;
    }
    if (session != null) {
      session.takenWarm();
      session.clientArrived(owner, oneStream, initialize);
    } else {
      try {
        session = spawn(new Arrival(owner, oneStream, initialize));
      } catch (IOException e) {
        slots.release();
        throw e;
      }
    }
    byId.put(session.id, session);
    (oneStream ? openedHttpSse : openedStreamable).increment();
    if (shuttingDown) { // shutdown swept the map between the check above and the put
      end(session, "the gateway is shutting down");
      return null;
    }
    makeRoomFor(owner, session); // again: the user's other initializes may have been listed meanwhile
    return session;
  }

  /** A client arriving for a session: {@link Session#clientArrived}'s arguments. */
  private record Arrival(String owner, boolean oneStream, dev.mcpstdio.jsonrpc.JsonRpcMessage.Request initialize) {}

  /**
   * With {@code --max-sessions-per-owner N}, ends the least recently used sessions of a signed-in
   * user until it has fewer than N besides {@code listed} (its new session, once listed; null
   * before), so that its new session fits, even when several of its initializes run at once: a user who opens session after
   * session (a client that loses its session id, say) holds at most N children and slots, and never
   * crowds out the other users. The gateway's own principals (open, static token) stand for
   * everyone, so no per-owner bound applies to them.
   */
  private void makeRoomFor(String owner, Session listed) {
    int cap = config.owners().maxSessionsPerOwner();
    if (cap == 0 || !Principals.isUser(owner)) {
      return;
    }
    // before the new session is listed, leave room for it; after, keep it and end the others past the bound
    List<Session> owned = new java.util.ArrayList<>(byId.values().stream().filter(s -> owner.equals(s.owner) && s != listed).toList());
    owned.sort(java.util.Comparator.comparingLong(Session::idleNanos).reversed()); // the least recently used first
    for (int i = 0; owned.size() - i >= cap; i++) {
      Session oldest = owned.get(i);
      oldest.log.info("its owner opened a session past --max-sessions-per-owner " + cap + "; ending this one, used least recently");
      end(oldest, "the owner's session limit was reached");
    }
  }

  /**
   * A session with a freshly spawned child, neither listed nor holding a slot: its id and public
   * id, its log, workspace, argv and callback credentials are chosen here, before the child starts.
   * {@code arrival} is its client when it is there already (told before the spawn), null for a
   * session spawned ahead of need. A child that cannot be started is logged here, as {@link
   * RepeatedFailures} (one line, the first of its message; repeats counted in at most one line per
   * interval).
   */
  private Session spawn(Arrival arrival) throws IOException {
    byte[] raw = new byte[16];
    RANDOM.nextBytes(raw);
    String id = HexFormat.of().formatHex(raw);
    ChildLog childLog = new ChildLog(log.tagged("session " + Session.shortId(id)), config.launch().stderrLimit());
    Session session = new Session(id, childLog, queuedBytes, config.ladder().afterStdinClosed(), config.backendTimeout());
    if (arrival != null) {
      session.clientArrived(arrival.owner(), arrival.oneStream(), arrival.initialize());
    }
    SessionWorkspace.Launched launched = null;
    dev.mcpstdio.host.CallbackChannel.Credentials credentials = null;
    try {
      // What the child sees of its session is a public id: the session id itself is the client's
      // capability, and argv, folder names and the channel's URL are visible to others.
      launched = SessionWorkspace.prepare(config.launch(), config.child(), session.publicId);
      dev.mcpstdio.host.CallbackRegistry registry =
          new dev.mcpstdio.host.CallbackRegistry(config.launch().callbackTimeout(), CALLBACK_ANNOUNCE_GRACE);
      credentials = channel().register(session.publicId, registry, session::onCallback);
      session.secrets.add(credentials.token());
      session.callbacks(registry, callbackEvents);
      java.util.Map<String, String> userEnv = arrival == null ? java.util.Map.of() : config.owners().envFor(arrival.owner());
      ChildProcess child = ChildProcess.start(launched.child().with(credentials.env()).with(userEnv), config.maxMessageSize(),
          childLog, config.ladder(), session);
      census.track(child);
      session.attach(child, launched.workspace());
    } catch (IOException | RuntimeException e) {
      startFailures.failed("could not start " + config.child().argv().getFirst() + ": " + e.getMessage());
      if (launched != null) {
        removeQuietly(launched.workspace(), session);
      }
      if (credentials != null) {
        callbackChannel.unregister(session.publicId);
      }
      session.secrets.forget();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    startFailures.succeeded("started a child again");
    return session;
  }

  /** How long a child's reply-channel GET waits for a callback it has not announced yet. */
  static final Duration CALLBACK_ANNOUNCE_GRACE = Duration.ofSeconds(5);

  CallbackEvents callbackEvents() {
    return callbackEvents;
  }

  private synchronized dev.mcpstdio.host.CallbackChannel channel() throws IOException {
    if (callbackChannel == null) {
      if (shuttingDown) { // a late spawn (a slow warm child's, say) starts no server that nothing would close
        throw new IOException("the gateway is shutting down");
      }
      try {
        callbackChannel = new dev.mcpstdio.host.CallbackChannel();
      } catch (Exception e) {
        throw new IOException("cannot start the callback reply channel: " + e.getMessage(), e);
      }
    }
    return callbackChannel;
  }

  /**
   * The session {@code id} if {@code principal} owns it, else null: to any other principal a session
   * is indistinguishable from one that never existed (the same 404), so that ids cannot be probed.
   */
  Session find(String id, String principal) {
    Session session = id == null ? null : byId.get(id);
    return session != null && principal.equals(session.owner) ? session : null;
  }

  /** Ends a session (once) and closes its child in the background. */
  void end(Session session, String reason) {
    if (!byId.remove(session.id, session)) {
      return;
    }
    slots.release();
    retire(session, reason);
  }

  /**
   * Ends a session that is not listed (any more): one {@link #end} took out of the map, or a warm
   * one that no client took. Its callbacks, secrets and watchers go, and its child is closed and
   * its workspace removed in the background.
   */
  private void retire(Session session, String reason) {
    session.end(reason);
    dev.mcpstdio.host.CallbackChannel c = callbackChannel;
    if (c != null) {
      c.unregister(session.publicId);
    }
    callbackEvents.sessionEnded(session.id);
    session.secrets.forget();
    Runnable close = () -> {
      session.closeChild();
      removeQuietly(session.workspace(), session);
    };
    try {
      closers.execute(close);
    } catch (java.util.concurrent.RejectedExecutionException e) { // shutdown is past its wait: a late spawn
      Thread.ofVirtual().name("close-late").start(close);
    }
  }

  private static void removeQuietly(SessionWorkspace workspace, Session session) {
    if (workspace == null) {
      return;
    }
    try {
      workspace.remove();
    } catch (IOException e) {
      session.log.warn("could not remove the session's workspace: " + e.getMessage());
    }
  }

  private void reap() {
    try {
      warm.wake(); // a warm child that closed its stdout but lives on gives no exit to wake it
      Duration ttl = config.sessionIdleTtl();
      for (Session s : byId.values()) {
        s.pruneLingering();
        if (s.dead()) {
          end(s, "the server process exited");
        } else if (!ttl.isZero() && s.quiet() && s.idleNanos() > ttl.toNanos()) {
          s.log.info("idle for " + ttl.toSeconds() + " s; ending the session");
          end(s, "session expired");
        }
      }
    } catch (RuntimeException e) { // an escaped exception would cancel every later pass
      log.error("session reaper: " + e);
    }
  }

  /** Ends every session and waits until every child is reaped, at most the ladder's length and a bit. */
  public void shutdown() throws InterruptedException {
    shuttingDown = true;
    callbackEvents.close();
    reaper.shutdownNow();
    reaper.awaitTermination(5, TimeUnit.SECONDS);
    warm.close(); // its children go to the closers too, before they stop taking work
    for (Session s : List.copyOf(byId.values())) {
      end(s, "the gateway is shutting down");
    }
    synchronized (this) {
      if (callbackChannel != null) {
        try {
          callbackChannel.close();
        } catch (Exception e) {
          log.warn("callback channel: " + e.getMessage());
        }
      }
    }
    closers.shutdown();
    Duration ladder = config.ladder().afterStdinClosed().plus(config.ladder().afterTerm()).multipliedBy(2);
    if (!closers.awaitTermination(ladder.toMillis() + 2000, TimeUnit.MILLISECONDS)) {
      log.error("some children could not be ended in time");
    }
  }
}
