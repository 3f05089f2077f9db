package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.process.Child;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.protocol.Cancellation;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One MCP session of the 2025 era (or of HTTP+SSE, 2024-11-05): one child, the client requests in
 * flight on it, and its GET stream. A small coordinator of its parts, each with one job:
 *
 * <ul>
 *   <li>{@link ExchangeTable}: the requests in flight and the answered streams kept for resuming;
 *   <li>{@link SessionGetStream}: the GET stream and the backlog waiting for it;
 *   <li>{@link ChildOutputRouter}: where each line of the child's stdout goes (the routing rules);
 *   <li>{@link SessionCallbacks}: the callback side channel on the child's stderr;
 *   <li>{@link SessionLife}: whether it is dead or ended, and when it was last used.
 * </ul>
 *
 * <p>It is the child's {@link ChildProcess.Listener} and hands each line to the part it is for;
 * it keeps the session's lifecycle: a child whose stdout closed leaves it dead (every request in
 * flight fails with 503 and the exit reason), {@link #end} ends it for good, {@link #closeChild}
 * runs the child's shutdown ladder. The child is a {@link Child}, so the routing can be driven
 * without spawning a process.
 *
 * <p>A session exists from its child's spawn on, and is that child's listener from the first byte:
 * its id, public id, log tag, workspace and callback credentials are chosen before the child
 * starts. Its client arrives at once ({@link #clientArrived}, right after the spawn) or later, when
 * the child was spawned ahead of need ({@link WarmSessions}); either way what the child writes
 * before its client's {@code initialize} meets the rules and bounds it would meet later (a
 * notification waits in the GET stream's bounded backlog, an answer no request waits for is
 * dropped and logged, a callback waits in the registry, an exit leaves the session dead), so
 * nothing is lost in between and nothing needs replaying.
 */
public final class Session implements ChildProcess.Listener {

  final String id;
  /** What the child and its files are told of this session: random, never the id (a capability). */
  final String publicId = HexFormat.of().formatHex(randomBytes());
  final Log log;
  /**
   * The child's log budget: its stderr, and the lines this session logs about what the child does
   * at will (a callback, a stray, broken or over-size stdout line, a message no client takes), so
   * that no way of writing buys the child more log than {@code --child-stderr-rate}.
   */
  final ChildLog childLog;
  /**
   * HTTP+SSE (2024-11-05): every message from the child, answers included, goes to the one stream.
   * Set by {@link #clientArrived}, before the session is listed where requests find it.
   */
  volatile boolean oneStream;
  /**
   * The principal that opened the session ({@link dev.mcpstdio.serve.http.Principals}): no other
   * principal finds it. Set by {@link #clientArrived}, before the session is listed.
   */
  volatile String owner;
  /** The secrets of this session the log must never show (channel token, handed-off credentials). */
  final SessionSecrets secrets;
  final CallbackElicitations elicitations;
  private final Duration exitWait;
  private final SessionLife life = new SessionLife();
  private final ExchangeTable exchanges;
  private final SessionGetStream getStream;
  private final ChildOutputRouter router;
  private final SessionCallbacks callbacks;
  private volatile Child child;
  private volatile SessionWorkspace workspace;
  /** When the session was made, its child spawned right after ({@link System#nanoTime}). */
  private final long bornNanos = System.nanoTime();
  /** How long its child waited for the client, when it was spawned ahead of need; -1 otherwise. */
  private volatile long waitedNanos = -1;

  /**
   * @param queuedBytes the gateway-wide allowance for messages waiting for slow clients
   * @param exitWait how long to wait for the child's exit code once its stdout has closed
   * @param backendTimeout how long a request waits for the child's answer
   */
  Session(String id, ChildLog childLog, ByteBudget queuedBytes, Duration exitWait, Duration backendTimeout) {
    this.id = id;
    this.childLog = childLog;
    this.log = childLog.log();
    this.secrets = new SessionSecrets(log.redactor());
    this.exitWait = exitWait;
    this.exchanges = new ExchangeTable(life, queuedBytes, backendTimeout);
    this.getStream = new SessionGetStream(life, childLog, queuedBytes);
    this.router = new ChildOutputRouter(exchanges, getStream, childLog);
    this.callbacks = new SessionCallbacks(id, life, childLog, router, getStream);
    this.elicitations = callbacks.elicitations;
  }

  void attach(Child process, SessionWorkspace sessionWorkspace) {
    this.child = process;
    this.workspace = sessionWorkspace;
  }

  SessionWorkspace workspace() {
    return workspace;
  }

  /**
   * The session's client: who it is ({@code owner}, the principal the gate let through), which
   * transport it came by ({@code oneStream}: HTTP+SSE, 2024-11-05) and, on Streamable HTTP, its
   * {@code initialize} (what it can be asked). Called once, before the session is listed and before
   * anything is sent to its child; its idle time counts from here.
   */
  void clientArrived(String owner, boolean oneStream, JsonRpcMessage.Request initialize) {
    this.owner = java.util.Objects.requireNonNull(owner, "owner");
    this.oneStream = oneStream;
    router.oneStream(oneStream);
    if (initialize != null) {
      elicitations.clientCapabilities(initialize);
    }
    life.touch();
  }

  /** Its child was spawned ahead of need and waited this long for the client now arriving. */
  void takenWarm() {
    waitedNanos = System.nanoTime() - bornNanos;
  }

  /** For the log line of the session's start: how long its child waited for it, when it was warm. */
  String warmNote() {
    long waited = waitedNanos;
    return waited < 0 ? "" : ", " + waited / 1_000_000 + " ms ahead of need";
  }

  /** When the session was made ({@link System#nanoTime}). */
  long bornNanos() {
    return bornNanos;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[16];
    new SecureRandom().nextBytes(b);
    return b;
  }

  void callbacks(CallbackRegistry registry, CallbackEvents events) {
    callbacks.attach(registry, events);
  }

  CallbackRegistry callbackRegistry() {
    return callbacks.registry();
  }

  Child child() {
    return child;
  }

  /** The GET stream and its backlog. */
  SessionGetStream getStream() {
    return getStream;
  }

  /** A short form of the id for logs: enough to tell sessions apart, not enough to use one. */
  public static String shortId(String id) {
    return id.substring(0, Math.min(8, id.length()));
  }

  void touch() {
    life.touch();
  }

  long idleNanos() {
    return life.idleNanos();
  }

  /** True when nothing is in flight and no stream is open: the session may be reaped when idle. */
  boolean quiet() {
    return exchanges.isEmpty() && getStream.closed();
  }

  boolean dead() {
    return life.dead();
  }

  String deathReason() {
    return life.deathReason();
  }

  boolean ended() {
    return life.ended();
  }

  /** Queues one message for the child; false when the session or the child can no longer take it. */
  boolean send(byte[] json) {
    life.touch();
    Child c = child;
    return c != null && !life.over() && c.send(json);
  }

  ExchangeTable.Admission admit(JsonRpcMessage.Request request, boolean streaming) {
    return exchanges.admit(request, streaming);
  }

  /** See {@link ExchangeTable#release}. */
  void release(Exchange exchange) {
    exchanges.release(exchange);
  }

  /** A stream to resume: in flight, or answered and lingering; null when unknown or given up. */
  Exchange resumable(long sequence) {
    return exchanges.resumable(sequence);
  }

  /** Done with a lingering stream: given up. */
  void forget(Exchange exchange) {
    exchanges.forget(exchange);
  }

  /** Gives up lingering streams whose time is over. */
  void pruneLingering() {
    exchanges.pruneLingering();
  }

  /** The client cancelled request {@code requestId}: its exchange ends now, without an answer. */
  void cancelledByClient(JsonRpcId requestId) {
    Exchange e = exchanges.waiting(requestId);
    if (e != null && e.complete(new Exchange.Outcome.Cancelled())) {
      log.debug("request " + requestId + " cancelled by the client");
    }
  }

  /** See {@link SessionGetStream#serve}. */
  void serveStream(EventStream events, long keepAliveMillis, SessionGetStream.StreamOpening opening)
      throws IOException, InterruptedException {
    getStream.serve(events, keepAliveMillis, opening);
  }

  @Override
  public void onLine(byte[] line) {
    router.onLine(line);
  }

  @Override
  public void onOversizedLine(long length, byte[] head) {
    router.onOversizedLine(length, head);
  }

  @Override
  public boolean onStderrLine(byte[] line) {
    return callbacks.onStderrLine(line);
  }

  /** See {@link SessionCallbacks#onCallback}. */
  void onCallback(Callback callback) {
    callbacks.onCallback(callback);
  }

  /** See {@link SessionCallbacks#signedIn}. */
  int signedIn(String slug) {
    return callbacks.signedIn(slug);
  }

  /** The child's stdout closed: the session is dead, and every request in flight fails with why. */
  @Override
  public void onStdoutClosed() {
    String reason = "the server process exited";
    Child c = child;
    if (c != null && !life.ended()) {
      try {
        reason = "the server process exited with code " + c.exited().get(exitWait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        reason = "the server closed its stdout";
      }
      log.warn(reason);
    }
    life.die(reason);
    failAll(reason);
  }

  /** Ends the session for good: nothing new is accepted; the caller then closes the child. */
  void end(String reason) {
    life.end(); // before forgetting: a release that lingers after this sees it and forgets too
    callbacks.close();
    exchanges.forgetAll();
    getStream.dropBacklog();
    failAll(reason);
  }

  private void failAll(String reason) {
    exchanges.failAll(reason);
    getStream.end();
  }

  /**
   * Closes the child with the shutdown ladder (blocking), then reports what its log budget dropped
   * and has not reported yet (its stderr may still be open: a descendant can hold it).
   */
  void closeChild() {
    Child c = child;
    if (c != null) {
      c.close();
    }
    childLog.flush();
  }

  /** Tells the child to stop working on a request the client will no longer wait for; never waits. */
  void cancel(JsonRpcId requestId, String reason) {
    Child c = child;
    if (c != null && !life.over()) {
      c.trySend(Cancellation.notification(requestId.json(), reason));
    }
  }
}
