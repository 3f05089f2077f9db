package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.http.ByteBudget;
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
 * reaper, and shutdown.
 *
 * <p>Session ids are 128 random bits from a CSPRNG, hex-encoded (visible ASCII, as the spec
 * requires). A session whose child died stays listed until a request learns of it (503) or the
 * reaper's next pass, then it is gone (404). Children are closed on threads of their own so a
 * wedged child never stalls a request or the reaper; shutdown waits for all of them, bounded by
 * the ladder.
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
  private volatile boolean shuttingDown;

  public Sessions(ServeConfig config, Log log) {
    this.config = config;
    this.log = log;
    this.slots = new Semaphore(config.maxSessions());
    this.startFailures = new RepeatedFailures(log::error, log, () -> System.nanoTime() / 1_000_000);
    this.reaper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("session-reaper").factory());
    long period = reapPeriod(config.sessionIdleTtl()).toMillis();
    reaper.scheduleWithFixedDelay(this::reap, period, period, TimeUnit.MILLISECONDS);
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

  public boolean full() {
    return slots.availablePermits() == 0;
  }

  /** A new session with a freshly spawned child, or null when the cap is reached or shutting down. */
  Session create() throws IOException {
    return create(false, null);
  }

  /** A new Streamable HTTP session for this initialize (its capabilities known before the child starts). */
  Session create(dev.mcpstdio.jsonrpc.JsonRpcMessage.Request initialize) throws IOException {
    return create(false, initialize);
  }

  /**
   * A new session; {@code oneStream} for the legacy HTTP+SSE transport, where every message from
   * the child travels on the session's one event stream. A child that cannot be started is logged
   * here, as {@link RepeatedFailures} (one line, the first of its message; repeats counted in at
   * most one line per interval), and the caller answers its client.
   */
  Session create(boolean oneStream, dev.mcpstdio.jsonrpc.JsonRpcMessage.Request initialize) throws IOException {
    if (shuttingDown || !slots.tryAcquire()) {
      return null;
    }
    byte[] raw = new byte[16];
    RANDOM.nextBytes(raw);
    String id = HexFormat.of().formatHex(raw);
    ChildLog childLog = new ChildLog(log.tagged("session " + Session.shortId(id)), config.launch().stderrLimit());
    Session session = new Session(id, childLog, oneStream, queuedBytes, config.ladder().afterStdinClosed(),
        config.backendTimeout());
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
      if (initialize != null) {
        session.elicitations.clientCapabilities(initialize);
      }
      session.attach(ChildProcess.start(launched.child().with(credentials.env()), config.maxMessageSize(),
          childLog, config.ladder(), session), launched.workspace());
    } catch (IOException | RuntimeException e) {
      startFailures.failed("could not start " + config.child().argv().getFirst() + ": " + e.getMessage());
      slots.release();
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
    byId.put(id, session);
    if (shuttingDown) { // shutdown swept the map between the check above and the put
      end(session, "the gateway is shutting down");
      return null;
    }
    return session;
  }

  /** How long a child's reply-channel GET waits for a callback it has not announced yet. */
  static final Duration CALLBACK_ANNOUNCE_GRACE = Duration.ofSeconds(5);

  CallbackEvents callbackEvents() {
    return callbackEvents;
  }

  private synchronized dev.mcpstdio.host.CallbackChannel channel() throws IOException {
    if (callbackChannel == null) {
      try {
        callbackChannel = new dev.mcpstdio.host.CallbackChannel();
      } catch (Exception e) {
        throw new IOException("cannot start the callback reply channel: " + e.getMessage(), e);
      }
    }
    return callbackChannel;
  }

  Session find(String id) {
    return id == null ? null : byId.get(id);
  }

  /** Ends a session (once) and closes its child in the background. */
  void end(Session session, String reason) {
    if (!byId.remove(session.id, session)) {
      return;
    }
    slots.release();
    session.end(reason);
    dev.mcpstdio.host.CallbackChannel c = callbackChannel;
    if (c != null) {
      c.unregister(session.publicId);
    }
    callbackEvents.sessionEnded(session.id);
    session.secrets.forget();
    closers.execute(() -> {
      session.closeChild();
      removeQuietly(session.workspace(), session);
    });
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
