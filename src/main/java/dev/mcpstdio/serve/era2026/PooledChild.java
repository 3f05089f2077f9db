package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.protocol.Cancellation;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * One pooled child of the 2026 era: a 2025-era stdio server, initialized once by the gateway and
 * then shared by every 2026-era request of its principal, each under an id of the gateway's own
 * ({@code mcp-stdio/serve/<n>}, so requests of different clients never collide on the child).
 *
 * <p>The child's stdout is routed here: an answer goes to the call waiting for its id; progress to
 * the call whose (remapped) progress token it names; a log message to the oldest call that asked
 * for log messages at that level; other notifications to the {@link Events} (the listen hub); the
 * child's own requests to the {@link Events} too (the reverse MRTR bridge, or a refusal). Each
 * message goes to one place; what nobody takes is dropped, the first time with a log line.
 */
final class PooledChild implements ChildProcess.Listener {

  /** What a pooled child hears that belongs to no call. */
  interface Events {
    /** A notification no call takes (a list change, a resource update, an unclaimed log message). */
    void notification(PooledChild child, JsonRpcMessage.Notification notification);

    /** The child asks its client something (elicitation, sampling, roots) during {@code during}, or null. */
    void request(PooledChild child, JsonRpcMessage.Request request, Call during);

    /** The child's stdout closed: it is dead. */
    default void died(PooledChild child) {}
  }

  /** One request of a 2026-era client in flight on this child, under the gateway's id. */
  static final class Call {
    final JsonRpcId childId;
    final JsonRpcId progressToken; // as the child knows it, or null
    final int logThreshold; // LogLevels severity; Integer.MAX_VALUE: no log messages
    final long sequence;
    final CompletableFuture<byte[]> answer = new CompletableFuture<>();
    private volatile Consumer<byte[]> related; // the reply's event stream, or null (JSON reply)
    /** The HTTP status of an answer the gateway made itself (0: the child's answer, status by its code). */
    volatile int gatewayStatus;
    /** What the request's client can be asked ({@code _meta} clientCapabilities); none until the request sets it. */
    volatile ClientAsks asks = new ClientAsks(false, false, false);
    /** A bridged call's questions from the child (the reverse MRTR bridge), or null: not bridged. */
    volatile ReverseBridge.Questions questions;
    /** A tools/call, resources/read or prompts/get: a request during which a child may ask its client (never a listing). */
    volatile boolean mayAsk;

    Call(JsonRpcId childId, JsonRpcId progressToken, int logThreshold, long sequence) {
      this.childId = childId;
      this.progressToken = progressToken;
      this.logThreshold = logThreshold;
      this.sequence = sequence;
    }

    /** Where this call's progress and log messages go from now on (null: nowhere). */
    void relatedTo(Consumer<byte[]> sink) {
      this.related = sink;
    }

    /** Answers the call with the gateway's own error (its status said) in place of the child's. */
    boolean answerWith(int status, byte[] error) {
      gatewayStatus = status;
      return answer.complete(error);
    }

    boolean relate(byte[] line) {
      Consumer<byte[]> sink = related;
      if (sink == null) {
        return false;
      }
      sink.accept(line);
      return true;
    }
  }

  private static final AtomicLong SEQUENCE = new AtomicLong();

  final String principal;
  /** What this child was told its client can be asked (its initialize's capabilities): part of its pool key. */
  final ClientAsks asks;
  final long serial;
  final ChildLog childLog;
  private final Events events;
  private final Map<JsonRpcId, Call> calls = new ConcurrentHashMap<>();
  private final AtomicInteger holds = new AtomicInteger();
  private final AtomicLong lastUsedNanos = new AtomicLong(System.nanoTime());
  /** The handshake's initialize, answered with the child's InitializeResult (its result object's bytes). */
  final CompletableFuture<byte[]> initialized = new CompletableFuture<>();
  /** Initialized, and its tools listed when it has any (so rung 2d knows them from the first call). */
  final CompletableFuture<Void> ready = new CompletableFuture<>();
  /**
   * How many listen streams want each resource URI's updates: the child is subscribed while above
   * 0 (the count's change and the child's subscribe or unsubscribe happen under this map's lock,
   * so the child sees them in the order of the counts).
   */
  final Map<String, Integer> subscriptions = new ConcurrentHashMap<>();
  /** A 2026-era child's subscription to each URI: the id of the listen the gateway opened for it; guarded by {@link #subscriptions}. */
  final Map<String, JsonRpcId> resourceListens = new HashMap<>();
  /** The annotations of its tools. */
  final ToolIndex tools = new ToolIndex();
  /**
   * The gateway's own requests in flight on one child, at most: its listens (a 2026-era child's one
   * for list changes and one per URI its streams listen for, at most {@link ListenHub#PER_CHILD}
   * streams of {@link ListenFilter#MAX_URIS} URIs), subscriptions and tool listings.
   */
  static final int MAX_OWN = 2048;

  /** The gateway's own requests to the child (its tools listing, listens, subscriptions), by id: what to do with each answer. */
  private final Map<JsonRpcId, Consumer<JsonRpcMessage.Response>> own = new ConcurrentHashMap<>();
  private final AtomicLong ownIds = new AtomicLong();
  private volatile JsonRpcId handshakeId;
  /** The warm process this child takes over at its start (set by the pool before, cleared by the start), or null. */
  volatile WarmProcess warmProcess;
  /** A 2026-era server (the probe said so): requests pass through untouched but for the ids. */
  volatile boolean era2026;
  private volatile ChildProcess process;
  private volatile boolean dead;
  private volatile String deathReason = "the server process exited";
  private volatile boolean warnedOfDrop;

  PooledChild(String principal, ClientAsks asks, long serial, ChildLog childLog, Events events) {
    initialized.whenComplete((result, failure) -> {
      if (failure != null) {
        ready.completeExceptionally(failure);
      }
    });
    this.principal = principal;
    this.asks = asks;
    this.serial = serial;
    this.childLog = childLog;
    this.events = events;
  }

  /**
   * Gives this child its process; false when the pool retired the child meanwhile (evicted, failed
   * or the gateway shutting down), and the caller must then close {@code child} itself. With
   * {@link #retire}, whichever comes second sees the other (both fields volatile), so a process
   * attached to a retired child is always closed by one of them.
   */
  boolean attach(ChildProcess child, JsonRpcId handshake) {
    this.handshakeId = handshake;
    this.process = child;
    return !retired;
  }

  private volatile boolean retired;

  /** The pool counted this child out: a process attached from now on is closed at once ({@link #attach}). */
  void retire() {
    retired = true;
  }

  boolean retired() {
    return retired;
  }

  ChildProcess process() {
    return process;
  }

  long pid() {
    ChildProcess p = process;
    return p == null ? -1 : p.pid();
  }

  boolean dead() {
    return dead || (process != null && !process.isAlive());
  }

  String deathReason() {
    return deathReason;
  }

  /** Held by a stream (listen) or a call being set up: never evicted while held. */
  void hold() {
    holds.incrementAndGet();
    lastUsedNanos.set(System.nanoTime());
  }

  void unhold() {
    holds.decrementAndGet();
    lastUsedNanos.set(System.nanoTime());
  }

  private final java.util.concurrent.atomic.AtomicBoolean exclusive = new java.util.concurrent.atomic.AtomicBoolean();

  /** Taken by a bridged call (at most one at a time: it may park the child on a question to its client). */
  void holdExclusively() {
    exclusive.set(true);
  }

  void releaseExclusively() {
    exclusive.set(false);
  }

  boolean exclusivelyHeld() {
    return exclusive.get();
  }

  /** Nothing in flight and nothing held: the child may be evicted or reaped. */
  boolean idle() {
    return holds.get() == 0 && calls.isEmpty();
  }

  int load() {
    return calls.size() + holds.get();
  }

  /**
   * Calls the child is still working on (not yet answered): what makes it busy. Unlike {@link
   * #load}, a call already answered but not yet closed (its answer still being written to its
   * client, who may already be sending its next request) does not count.
   */
  int working() {
    int n = 0;
    for (Call c : calls.values()) {
      if (!c.answer.isDone()) {
        n++;
      }
    }
    return n;
  }

  long idleNanos() {
    return System.nanoTime() - lastUsedNanos.get();
  }

  /** Registers a call before its request is written (so a fast answer finds it). */
  Call open(JsonRpcId childId, JsonRpcId progressToken, int logThreshold) {
    Call call = new Call(childId, progressToken, logThreshold, SEQUENCE.incrementAndGet());
    calls.put(childId, call);
    lastUsedNanos.set(System.nanoTime());
    if (dead) {
      call.answer.complete(null);
    }
    return call;
  }

  void close(Call call) {
    calls.remove(call.childId, call);
    lastUsedNanos.set(System.nanoTime());
  }

  boolean send(byte[] json) {
    ChildProcess p = process;
    return p != null && !dead && p.send(json);
  }

  /** Writes without waiting for room (a cancel, an error to the child): false when it could not. */
  boolean trySend(byte[] json) {
    ChildProcess p = process;
    return p != null && !dead && p.trySend(json);
  }

  /** Tells the child its request {@code childId} is cancelled (the client closed its stream). */
  void cancel(JsonRpcId childId, String reason) {
    trySend(Cancellation.notification(childId.json(), reason));
  }

  /**
   * Sends a request of the gateway's own ({@code params} a JSON object or null) under an id in its
   * namespace; {@code onAnswer} gets the child's response (on the stdout pump: it must not block).
   */
  boolean request(String method, String params, Consumer<JsonRpcMessage.Response> onAnswer) {
    return requestOwn(method, params, onAnswer) != null;
  }

  /** {@link #request}, returning the request's id (null when it could not be sent), so that it can be {@linkplain #cancelOwn cancelled}. */
  JsonRpcId requestOwn(String method, String params, Consumer<JsonRpcMessage.Response> onAnswer) {
    JsonRpcId id = JsonRpcId.relayOwned("mcp-stdio/serve/own/" + serial + "-" + ownIds.incrementAndGet());
    synchronized (own) { // the check and the insert together: never past the bound
      if (own.size() >= MAX_OWN) {
        childLog.warn("the server leaves " + MAX_OWN + " of the gateway's own requests unanswered; " + Log.visible(method)
            + " not sent");
        return null;
      }
      own.put(id, onAnswer);
    }
    boolean sent = send(("{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"method\":" + Json.quote(method)
        + (params == null ? "" : ",\"params\":" + params) + "}").getBytes(StandardCharsets.UTF_8));
    if (!sent) {
      own.remove(id);
      return null;
    }
    return id;
  }

  /** Cancels a request of the gateway's own (a listen it opened): the child is told, and its answer, if any, is dropped. */
  void cancelOwn(JsonRpcId id, String reason) {
    if (own.remove(id) != null) {
      cancel(id, reason);
    }
  }

  /** Answers a request of the child's with an error. */
  void refuse(JsonRpcId requestId, int code, String message) {
    trySend(JsonRpcErrors.error(requestId, code, message));
  }

  @Override
  public void onLine(byte[] line) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parse(line);
    } catch (MalformedMessageException e) {
      childLog.warn("the server wrote a line that is not JSON (" + line.length + " bytes); dropped");
      return;
    }
    switch (message) {
      case JsonRpcMessage.Response r -> answered(r, line);
      case JsonRpcMessage.Notification n when n.method().equals("notifications/progress") -> {
        JsonRpcId token = Json.id(line, Json.field(line, n.params(), "progressToken"));
        Call owner = token == null ? null : byToken(token);
        if (owner == null || !owner.relate(line)) {
          dropped("progress for a token no call has");
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/message") -> {
        int severity = LogLevels.severity(Json.string(line, Json.field(line, n.params(), "level")));
        Call taker = calls.values().stream()
            .filter(c -> severity >= c.logThreshold)
            .min(Comparator.comparingLong(c -> c.sequence))
            .orElse(null);
        if (taker == null || !taker.relate(line)) {
          events.notification(this, n);
        }
      }
      case JsonRpcMessage.Notification n -> events.notification(this, n);
      case JsonRpcMessage.Request r -> events.request(this, r, asker());
      case JsonRpcMessage.Batch b -> childLog.warn("the server wrote a batch; dropped");
      case JsonRpcMessage.Invalid i -> childLog.warn("the server wrote an invalid message (" + Log.visible(i.reason()) + "); dropped");
    }
  }

  private void answered(JsonRpcMessage.Response r, byte[] line) {
    if (r.id() != null && r.id().equals(handshakeId)) {
      if (r.isError() || r.result() == null) {
        initialized.completeExceptionally(new IllegalStateException("the server refused initialize: "
            + Log.visible(new String(line, StandardCharsets.UTF_8))));
      } else {
        JsonSpan result = r.result();
        byte[] bytes = new byte[result.end() - result.start()];
        System.arraycopy(line, result.start(), bytes, 0, bytes.length);
        initialized.complete(bytes);
      }
      return;
    }
    Consumer<JsonRpcMessage.Response> mine = r.id() == null ? null : own.remove(r.id());
    if (mine != null) {
      mine.accept(r);
      return;
    }
    Call waiting = r.id() == null ? null : calls.get(r.id());
    if (waiting == null || !waiting.answer.complete(line)) {
      dropped("an answer to id " + Log.visible(String.valueOf(r.id())) + ", which no request is waiting for");
    }
  }

  /**
   * The call a question of the child's belongs to: its bridged call when it has one (at most one,
   * the pool's exclusive hold), since only a bridged call can ask its client; else the one call in
   * flight that may ask (a tools/call, resources/read or prompts/get still waiting for its
   * answer: a listing never asks); else null (none, or several sharing the child, which a
   * 2025-era child's question does not tell apart). A 2026-era child's questions are never a call's.
   */
  private Call asker() {
    if (era2026) {
      return null;
    }
    Call only = null;
    for (Call c : calls.values()) {
      if (c.questions != null) {
        return c;
      }
      if (c.mayAsk && !c.answer.isDone()) {
        if (only != null) {
          return null;
        }
        only = c;
      }
    }
    return only;
  }

  private Call byToken(JsonRpcId token) {
    for (Call c : calls.values()) {
      if (token.equals(c.progressToken)) {
        return c;
      }
    }
    return null;
  }

  private void dropped(String what) {
    if (!warnedOfDrop) {
      warnedOfDrop = true;
      childLog.info("the server sent " + what + "; dropped (later drops are not logged)");
    }
  }

  @Override
  public void onOversizedLine(long length, byte[] head) {
    JsonRpcId answered = dev.mcpstdio.jsonrpc.PartialMessage.responseId(head);
    Call waiting = answered == null ? null : calls.get(answered);
    String why = "the server's answer is " + length + " bytes, over --max-message-size";
    childLog.warn("the server wrote a " + length + "-byte line, over --max-message-size; dropped");
    if (waiting != null) {
      waiting.answer.complete(JsonRpcErrors.error(answered, ErrorCodes.INTERNAL_ERROR, why));
    }
  }

  @Override
  public void onStdoutClosed() {
    dead = true;
    ChildProcess p = process;
    if (p != null) {
      try {
        deathReason = "the server process exited with code " + p.exited().get(2, java.util.concurrent.TimeUnit.SECONDS);
      } catch (Exception e) {
        deathReason = "the server closed its stdout";
      }
    }
    initialized.completeExceptionally(new IllegalStateException(deathReason));
    ready.completeExceptionally(new IllegalStateException(deathReason));
    for (Call c : calls.values()) {
      c.answer.complete(null); // null: no answer, the child is gone
    }
    events.died(this);
  }
}
