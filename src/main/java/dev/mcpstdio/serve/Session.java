package dev.mcpstdio.serve;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.host.CallbackParser;
import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonCanonical;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.PartialMessage;
import dev.mcpstdio.process.Child;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MCP session: one child process, the client requests in flight on it, and its GET stream.
 *
 * <p>The child's stdout pump calls {@link #onLine} for every line, in the order the child wrote
 * them. A response goes to the exchange waiting for its id. Progress goes to the exchange whose
 * request carried that progress token. Log messages and the child's own requests (sampling,
 * elicitation, roots) go to the oldest request still streaming, since the child sends them while
 * a request runs; other notifications belong to no request and go to the GET stream. What has no
 * stream to go to waits in a bounded backlog for the next GET stream, and what a departed client
 * left unread goes back there. Every message goes to exactly one place; nothing is broadcast.
 *
 * <p>The GET stream and the backlog change only under {@link #streamLock}. The ended flag is a
 * volatile set once, outside the lock, by {@link #end}, which only then takes the lock to drain the
 * backlog: a section under the lock that reads the flag as false and adds to the backlog therefore
 * runs before that drain, and one that runs after it reads true, so nothing is left behind.
 */
final class Session implements ChildProcess.Listener {

  /** Messages kept for a GET stream that is not open yet. */
  static final int BACKLOG = 1024;

  /** In-flight requests per session; past it a request is refused with 503. */
  static final int MAX_IN_FLIGHT = 1024;

  /** Streams whose client left before the answer, kept for a resuming client: how many, how long. */
  static final int MAX_LINGERING = 64;

  static final Duration LINGER = Duration.ofSeconds(60);

  /** How a new request relates to those already in flight with the same id. */
  sealed interface Admission {
    record Admitted(Exchange exchange) implements Admission {}

    /** The same request again: wait for the same answer. */
    record Joined(Exchange exchange) implements Admission {}

    /** A different request under an id that is still in flight. */
    record Conflict(String existingMethod) implements Admission {}

    record Full() implements Admission {}

    /** The session ended (or its child died) while the request was on its way in. */
    record Gone() implements Admission {}
  }

  final String id;
  /** What the child and its files are told of this session: random, never the id (a capability). */
  final String publicId = java.util.HexFormat.of().formatHex(randomBytes());
  final Log log;
  /**
   * The child's log budget: its stderr, and the lines this session logs about what the child does
   * at will (a callback, a stray, broken or over-size stdout line, a message no client takes), so
   * that no way of writing buys the child more log than {@code --child-stderr-rate}.
   */
  final ChildLog childLog;
  /** Legacy HTTP+SSE (2024-11-05): every message from the child, answers included, goes to the one stream. */
  final boolean oneStream;
  private final ByteBudget queuedBytes;
  private final Duration exitWait;
  private final Duration backendTimeout;
  private final Map<Long, Lingering> lingering = new ConcurrentHashMap<>(); // by exchange sequence

  /** An answered stream nobody received yet, and when it is given up. */
  private record Lingering(Exchange exchange, long expiresNanos) {}
  private final Map<JsonRpcId, Exchange> inFlight = new ConcurrentHashMap<>();
  private final Object streamLock = new Object();
  private final ArrayDeque<byte[]> backlog = new ArrayDeque<>(); // guarded by streamLock
  private SessionStream stream; // guarded by streamLock
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong lastActivityNanos = new AtomicLong(System.nanoTime());
  private volatile Child child;
  private volatile SessionWorkspace workspace;
  private volatile CallbackRegistry callbackRegistry;
  private volatile CallbackEvents callbackEvents;
  final CallbackElicitations elicitations = new CallbackElicitations();
  private volatile boolean dead;
  private volatile String deathReason;
  private volatile boolean ended;

  /**
   * @param queuedBytes the gateway-wide allowance for messages waiting for slow clients
   * @param exitWait how long to wait for the child's exit code once its stdout has closed
   * @param backendTimeout how long a request waits for the child's answer
   */
  Session(String id, ChildLog childLog, boolean oneStream, ByteBudget queuedBytes, Duration exitWait,
      Duration backendTimeout) {
    this.id = id;
    this.childLog = childLog;
    this.log = childLog.log();
    this.secrets = new SessionSecrets(log.redactor());
    this.oneStream = oneStream;
    this.queuedBytes = queuedBytes;
    this.exitWait = exitWait;
    this.backendTimeout = backendTimeout;
  }

  void attach(Child process, SessionWorkspace sessionWorkspace) {
    this.child = process;
    this.workspace = sessionWorkspace;
  }

  SessionWorkspace workspace() {
    return workspace;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[16];
    new java.security.SecureRandom().nextBytes(b);
    return b;
  }

  /** The secrets of this session the log must never show (channel token, handed-off credentials). */
  final SessionSecrets secrets;

  void callbacks(CallbackRegistry registry, CallbackEvents events) {
    this.callbackRegistry = registry;
    this.callbackEvents = events;
    registry.onFinished(callbackId -> {
      byte[] withdrawal = elicitations.withdraw(callbackId);
      if (withdrawal != null) {
        toStream(withdrawal, "notifications/cancelled"); // the client's dialog for it is moot now
      }
    });
  }

  CallbackRegistry callbackRegistry() {
    return callbackRegistry;
  }

  Child child() {
    return child;
  }

  /** A short form of the id for logs: enough to tell sessions apart, not enough to use one. */
  static String shortId(String id) {
    return id.substring(0, Math.min(8, id.length()));
  }

  void touch() {
    lastActivityNanos.set(System.nanoTime());
  }

  long idleNanos() {
    return System.nanoTime() - lastActivityNanos.get();
  }

  /** True when nothing is in flight and no stream is open: the session may be reaped when idle. */
  boolean quiet() {
    synchronized (streamLock) {
      return inFlight.isEmpty() && (stream == null || stream.ended());
    }
  }

  boolean dead() {
    return dead;
  }

  String deathReason() {
    return deathReason;
  }

  boolean ended() {
    return ended;
  }

  /** Queues one message for the child; false when the session or the child can no longer take it. */
  boolean send(byte[] json) {
    touch();
    Child c = child;
    return c != null && !dead && !ended && c.send(json);
  }

  Admission admit(JsonRpcMessage.Request request, boolean streaming) {
    JsonRpcId token = Json.id(request.bytes(), Json.field(request.bytes(), Json.field(request.bytes(),
        request.params(), "_meta"), "progressToken"));
    Exchange fresh = new Exchange(request, token, streaming, sequence.incrementAndGet(), queuedBytes,
        System.nanoTime() + backendTimeout.toNanos());
    while (true) {
      Exchange existing = inFlight.putIfAbsent(request.id(), fresh);
      if (existing == null) {
        // Checked after the insert: either failAll sees this exchange, or this sees the flag.
        if (ended || dead) {
          inFlight.remove(request.id(), fresh);
          return new Admission.Gone();
        }
        if (inFlight.size() > MAX_IN_FLIGHT) {
          inFlight.remove(request.id(), fresh);
          return new Admission.Full();
        }
        touch();
        return new Admission.Admitted(fresh);
      }
      if (existing.outcome().isDone()) {
        inFlight.remove(request.id(), existing); // answered a moment ago; the id is free again
        continue;
      }
      return JsonCanonical.same(existing.request.bytes(), request.bytes())
          ? new Admission.Joined(existing)
          : new Admission.Conflict(existing.request.method());
    }
  }

  /**
   * The request's own HTTP exchange is over. A streamed one stays resumable for {@link #LINGER}
   * (at most {@link #MAX_LINGERING} per session, oldest given up): its client may not have
   * received the end, even when the gateway wrote it (into a connection that was already dead).
   */
  void release(Exchange exchange) {
    inFlight.remove(exchange.id, exchange);
    touch();
    if (exchange.streaming && !ended && !exchange.wasDeliveredCleanly()
        && !(exchange.outcome().getNow(null) instanceof Exchange.Outcome.Cancelled)) {
      pruneLingering();
      if (lingering.size() >= MAX_LINGERING) {
        lingering.values().stream().min(Comparator.comparingLong(Lingering::expiresNanos))
            .ifPresent(oldest -> forget(oldest.exchange()));
      }
      lingering.put(exchange.sequence, new Lingering(exchange, System.nanoTime() + LINGER.toNanos()));
      if (ended) { // end() ran meanwhile and may have missed it
        forget(exchange);
      }
    } else if (exchange.streaming) {
      exchange.discard();
    }
  }

  /** A stream to resume: in flight, or answered and lingering; null when unknown or given up. */
  Exchange resumable(long sequence) {
    pruneLingering();
    for (Exchange e : inFlight.values()) {
      if (e.sequence == sequence) {
        return e;
      }
    }
    Lingering l = lingering.get(sequence);
    return l == null ? null : l.exchange();
  }

  /** Done with a lingering stream: given up. */
  void forget(Exchange exchange) {
    if (lingering.remove(exchange.sequence) != null) {
      exchange.discard();
    }
  }

  /** Gives up lingering streams whose time is over. */
  void pruneLingering() {
    long now = System.nanoTime();
    for (Lingering l : lingering.values()) {
      if (now - l.expiresNanos() > 0) {
        forget(l.exchange());
      }
    }
  }

  /** The client cancelled request {@code requestId}: its exchange ends now, without an answer. */
  void cancelledByClient(JsonRpcId requestId) {
    Exchange e = requestId == null ? null : inFlight.get(requestId);
    if (e != null && e.complete(new Exchange.Outcome.Cancelled())) {
      log.debug("request " + requestId + " cancelled by the client");
    }
  }

  /**
   * Opens the GET stream, handing it whatever waited in the backlog. The newest stream wins: one
   * still open (perhaps over a connection that died silently) is ended and its unwritten messages
   * move to the new one, so a client that reconnects is never locked out.
   */
  private SessionStream openStream() {
    synchronized (streamLock) {
      SessionStream fresh = new SessionStream(queuedBytes);
      if (stream != null && !stream.ended()) {
        stream.end();
        backlogFirst(stream.drain());
        log.info("a new session stream replaces the open one");
      }
      while (!backlog.isEmpty() && fresh.offer(backlog.peekFirst())) {
        queuedBytes.giveBack(backlog.pollFirst().length); // now counted by the stream
      }
      stream = fresh;
      touch();
      if (dead || ended) {
        fresh.end();
      }
      return fresh;
    }
  }

  /** What a GET stream writes first, once its response is open (the legacy transport's endpoint event). */
  interface StreamOpening {
    void open(EventStream events) throws IOException;
  }

  /**
   * Serves the GET stream on {@code events}: takes over the session stream before the client sees a
   * byte (so the newest request wins), runs {@code opening}, then writes messages as they come, with a
   * keep-alive, which also counts as activity, after each quiet {@code keepAliveMillis}. Returns
   * when the stream ends; an IOException means the client left. Either way the unwritten messages,
   * one whose write failed first, go back to the backlog.
   */
  void serveStream(EventStream events, long keepAliveMillis, StreamOpening opening)
      throws IOException, InterruptedException {
    SessionStream stream = openStream();
    byte[] unsent = null;
    try {
      opening.open(events);
      while (true) {
        byte[] message = stream.next(keepAliveMillis);
        if (message != null) {
          unsent = message;
          events.message(message);
          unsent = null;
        } else if (stream.ended()) {
          break;
        } else {
          events.keepAlive();
          touch();
        }
      }
      events.close();
    } finally {
      closeStream(stream, unsent);
    }
  }

  /**
   * The GET stream's writer is done (its client left, or the session ended). Unwritten messages,
   * {@code unsent} first, go back to the backlog for the next stream.
   */
  private void closeStream(SessionStream s, byte[] unsent) {
    synchronized (streamLock) {
      s.end();
      List<byte[]> rest = new java.util.ArrayList<>(s.drain());
      if (unsent != null) {
        rest.addFirst(unsent);
      }
      if (!ended) {
        backlogFirst(rest);
      }
    }
    touch();
  }

  /** Puts messages back at the head of the backlog, oldest first, within its bounds. */
  private void backlogFirst(List<byte[]> messages) {
    for (int i = messages.size() - 1; i >= 0; i--) {
      byte[] m = messages.get(i);
      if (backlog.size() >= BACKLOG || !queuedBytes.tryTake(m.length)) {
        childLog.warn("the session backlog is full; dropped a message a departed client did not read");
        continue;
      }
      backlog.addFirst(m);
    }
  }

  @Override
  public void onLine(byte[] line) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parse(line);
    } catch (MalformedMessageException e) {
      childLog.warn("the server wrote a line that is not JSON (" + line.length + " bytes, " + e.getMessage()
          + "); dropped");
      return;
    }
    if (oneStream) {
      if (message instanceof JsonRpcMessage.Response) {
        answerToStream(line); // an answer is never dropped: its client would wait for ever
      } else {
        toStream(line, "a message");
      }
      return;
    }
    switch (message) {
      case JsonRpcMessage.Response r -> {
        Exchange waiting = r.id() == null ? null : inFlight.get(r.id());
        if (waiting == null || !waiting.complete(new Exchange.Outcome.Answered(line))) {
          childLog.info("the server answered id " + Log.visible(String.valueOf(r.id())) + ", which no request is waiting for; dropped");
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/progress") -> {
        JsonRpcId token = Json.id(line, Json.field(line, n.params(), "progressToken"));
        Exchange owner = token == null ? null : byProgressToken(token);
        if (owner == null || !owner.relate(line)) { // not taken: the session stream gets it
          toStream(line, n.method());
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/message") -> relateOrStream(line, n.method());
      case JsonRpcMessage.Notification n -> toStream(line, n.method());
      case JsonRpcMessage.Request r -> relateOrStream(line, r.method());
      case JsonRpcMessage.Batch b -> childLog.warn("the server wrote a batch; batches are not relayed, dropped");
      case JsonRpcMessage.Invalid i -> childLog.warn("the server wrote an invalid message (" + Log.visible(i.reason()) + "); dropped");
    }
  }

  /**
   * Structured callbacks on the child's stderr (docs/callbacks.md) are recognised here: a valid
   * one is logged as one structured line; a broken one is logged as text (within the child's
   * stderr budget), the first with a warning that says why, later ones with a debug line: a child
   * printing broken callbacks in a loop must not flood the log past its budget.
   */
  @Override
  public boolean onStderrLine(byte[] line) {
    return switch (CALLBACKS.parse(line)) {
      case CallbackParser.Parsed.Plain plain -> false;
      case CallbackParser.Parsed.Rejected rejected -> {
        String why = "a " + CallbackParser.PREFIX + " line is not a valid callback (" + Log.visible(rejected.reason())
            + "); logged as text";
        if (warnedOfBrokenCallback) {
          log.debug(why);
        } else {
          warnedOfBrokenCallback = true;
          log.warn(why + "; later ones are logged at debug level");
        }
        yield false;
      }
      case CallbackParser.Parsed.Valid valid -> {
        onCallback(valid.callback());
        yield true;
      }
    };
  }

  /**
   * A callback from the child, by stderr or by the reply channel's POST: logged (within the child's
   * log budget: a child sending callbacks in a loop costs the log no more than its stderr may),
   * registered for its answer, shown on this session's events API and, when the client elicits,
   * asked of the client.
   */
  void onCallback(Callback callback) {
    childLog.info("callback " + Log.visible(callback.type()) + " (id " + callback.id() + ")");
    CallbackRegistry registry = callbackRegistry;
    if (registry == null || ended) {
      return;
    }
    if (!callback.isNotification() && !registry.announce(callback)) {
      childLog.warn("callback " + callback.id() + " not taken (a repeated id, or too many waiting)");
      return;
    }
    callbackEvents.publish(id, callback);
    byte[] ask = elicitations.request(callback);
    if (ask != null) {
      relateOrStream(ask, "elicitation/create"); // to the client, like the child's own requests
    }
  }

  /**
   * The host handed off {@code slug}'s credential (the file is written): the client is told that
   * the URL-mode sign-ins to that source it was asked for have finished (whether or not it has
   * answered them yet: they are not withdrawn as well), and callbacks waiting for a sign-in to that
   * source are answered {@code accept}.
   *
   * @return how many waiting callbacks were answered
   */
  int signedIn(String slug) {
    List<byte[]> finished = elicitations.signedIn(slug); // before answering: no withdrawal for these
    int answered = 0;
    CallbackRegistry registry = callbackRegistry;
    for (Callback c : registry == null ? List.<Callback>of() : registry.waiting()) {
      if (Callback.AUTH_REQUIRED.equals(c.type()) && slug.equals(c.string("sourceSlug"))
          && registry.reply(c.id(), "{\"action\":\"accept\"}") == CallbackRegistry.ReplyResult.ACCEPTED) {
        answered++;
      }
    }
    for (byte[] complete : finished) {
      toStream(complete, "notifications/elicitation/complete");
    }
    return answered;
  }

  private static final CallbackParser CALLBACKS = new CallbackParser(ChildProcess.STDERR_LINE_BYTES);

  /** Written by the stderr pump only. */
  private boolean warnedOfBrokenCallback;

  /**
   * A stdout line over {@code --max-message-size}. When its first bytes show the id of a response
   * (no method), the request waiting for that id fails now, rather than at the backend timeout;
   * a one-stream session gets the error on its stream in the answer's place.
   */
  @Override
  public void onOversizedLine(long length, byte[] head) {
    JsonRpcId answered = PartialMessage.responseId(head);
    String why = "the server's answer is " + length + " bytes, over --max-message-size; dropped";
    if (answered == null) {
      childLog.warn("the server wrote a " + length + "-byte line, over --max-message-size; dropped");
    } else if (oneStream) {
      childLog.warn("id " + Log.visible(answered.json()) + ": " + why);
      answerToStream(JsonRpcErrors.error(answered, ErrorCodes.UPSTREAM_ERROR, why));
    } else {
      Exchange waiting = inFlight.get(answered);
      if (waiting != null && waiting.complete(new Exchange.Outcome.Failed(502, why))) {
        childLog.warn(Log.visible(waiting.request.method()) + " (id " + Log.visible(answered.json()) + "): " + why);
      } else {
        childLog.warn("the server wrote a " + length + "-byte answer to id " + Log.visible(answered.json())
            + ", which no request is waiting for, over --max-message-size; dropped");
      }
    }
  }

  @Override
  public void onStdoutClosed() {
    String reason = "the server process exited";
    Child c = child;
    if (c != null && !ended) {
      try {
        reason = "the server process exited with code " + c.exited().get(exitWait.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        reason = "the server closed its stdout";
      }
      log.warn(reason);
    }
    deathReason = reason;
    dead = true;
    failAll(reason);
  }

  private void relateOrStream(byte[] line, String method) {
    Exchange running = inFlight.values().stream()
        .filter(e -> e.acceptsRelated() && e.hasWriter())
        .min(Comparator.comparingLong(e -> e.sequence))
        .orElse(null);
    if (running == null || !running.relate(line)) {
      toStream(line, method);
    }
  }

  private Exchange byProgressToken(JsonRpcId token) {
    for (Exchange e : inFlight.values()) {
      if (token.equals(e.progressToken) && e.acceptsRelated()) {
        return e;
      }
    }
    return null;
  }

  private void toStream(byte[] line, String what) {
    synchronized (streamLock) {
      if (stream != null && !stream.ended()) {
        if (!stream.offer(line)) {
          childLog.warn("the session stream's client is not reading; dropped " + what);
        }
        return;
      }
      if (ended) {
        return;
      }
      if (backlog.size() >= BACKLOG) {
        queuedBytes.giveBack(backlog.pollFirst().length);
        childLog.warn("no session stream open and " + BACKLOG + " messages waiting; dropped the oldest");
      }
      if (!queuedBytes.tryTake(line.length)) {
        childLog.warn("messages waiting for clients use the whole allowance (" + queuedBytes.limit() + " bytes); dropped "
            + what);
        return;
      }
      backlog.addLast(line);
    }
  }

  /**
   * Legacy one-stream sessions: an answer goes on the stream past the queue's bounds (it takes its
   * bytes anyway), since dropping it would leave its request unanswered for good.
   */
  private void answerToStream(byte[] line) {
    synchronized (streamLock) {
      if (stream != null && !stream.ended()) {
        stream.force(line);
      } else if (!ended) {
        queuedBytes.take(line.length); // counted like any backlog entry, given back when it moves on
        backlog.addLast(line);
      }
    }
  }

  /** Ends the session for good: nothing new is accepted; the caller then closes the child. */
  void end(String reason) {
    ended = true; // before forgetting: a release that lingers after this sees it and forgets too
    CallbackRegistry registry = callbackRegistry;
    if (registry != null) {
      registry.close(); // children still waiting are told: no decision
    }
    lingering.values().forEach(l -> forget(l.exchange()));
    synchronized (streamLock) {
      for (byte[] m : backlog) {
        queuedBytes.giveBack(m.length);
      }
      backlog.clear();
    }
    failAll(reason);
  }

  private void failAll(String reason) {
    for (Exchange e : inFlight.values()) {
      e.complete(new Exchange.Outcome.Failed(503, reason));
    }
    synchronized (streamLock) {
      if (stream != null) {
        stream.end();
      }
    }
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
    if (c != null && !dead && !ended) {
      c.trySend(("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
          + requestId.json() + ",\"reason\":" + Json.quote(reason) + "}}").getBytes(StandardCharsets.UTF_8));
    }
  }
}
