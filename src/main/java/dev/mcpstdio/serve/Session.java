package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonCanonical;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.stdio.Log;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One MCP session: one child process, the client requests in flight on it, and its GET stream.
 *
 * <p>The child's stdout pump calls {@link #route} for every line, in the order the child wrote
 * them. A response goes to the exchange waiting for its id. Progress goes to the exchange whose
 * request carried that progress token. Log messages and the child's own requests (sampling,
 * elicitation, roots) go to the oldest request still streaming, since the child sends them while
 * a request runs; other notifications belong to no request and go to the GET stream. What has no
 * stream to go to waits in a bounded backlog for the next GET stream. Every message goes to
 * exactly one place; nothing is broadcast.
 */
final class Session {

  /** Messages kept for a GET stream that is not open yet. */
  static final int BACKLOG = 1024;

  /** In-flight requests per session; past it a request is refused with 503. */
  static final int MAX_IN_FLIGHT = 1024;

  /** How a new request relates to those already in flight with the same id. */
  sealed interface Admission {
    record Admitted(Exchange exchange) implements Admission {}

    /** The same request again: wait for the same answer. */
    record Joined(Exchange exchange) implements Admission {}

    /** A different request under an id that is still in flight. */
    record Conflict(String existingMethod) implements Admission {}

    record Full() implements Admission {}
  }

  final String id;
  final Log log;
  private final Map<JsonRpcId, Exchange> inFlight = new ConcurrentHashMap<>();
  private final ArrayDeque<byte[]> backlog = new ArrayDeque<>();
  private final AtomicLong sequence = new AtomicLong();
  private final AtomicLong lastActivityNanos = new AtomicLong(System.nanoTime());
  private volatile ChildProcess child;
  private volatile SessionStream stream;
  private volatile boolean dead;
  private volatile String deathReason;
  private volatile String protocolVersion;
  private volatile boolean ended;

  Session(String id, Log log) {
    this.id = id;
    this.log = log;
  }

  void attach(ChildProcess process) {
    this.child = process;
  }

  ChildProcess child() {
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
    SessionStream s = stream;
    return inFlight.isEmpty() && (s == null || s.ended());
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

  String protocolVersion() {
    return protocolVersion;
  }

  void protocolVersion(String version) {
    this.protocolVersion = version;
  }

  /** Writes one message to the child; false when the child can no longer take it. */
  boolean send(byte[] json) {
    touch();
    ChildProcess c = child;
    return c != null && !dead && c.send(json);
  }

  Admission admit(JsonRpcMessage.Request request, boolean streaming) {
    JsonRpcId token = Json.id(request.bytes(), Json.field(request.bytes(), Json.field(request.bytes(),
        request.params(), "_meta"), "progressToken"));
    Exchange fresh = new Exchange(request, token, streaming, sequence.incrementAndGet());
    while (true) {
      Exchange existing = inFlight.putIfAbsent(request.id(), fresh);
      if (existing == null) {
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

  /** Forgets an exchange (answered, timed out or abandoned). */
  void release(Exchange exchange) {
    inFlight.remove(exchange.id, exchange);
    touch();
  }

  /**
   * Opens the GET stream, handing it whatever waited in the backlog.
   *
   * @return null when a GET stream is already open (one per session)
   */
  SessionStream openStream() {
    synchronized (backlog) {
      SessionStream current = stream;
      if (current != null && !current.ended()) {
        return null;
      }
      SessionStream fresh = new SessionStream();
      while (!backlog.isEmpty() && fresh.offer(backlog.peekFirst())) {
        backlog.pollFirst();
      }
      stream = fresh;
      touch();
      if (dead || ended) {
        fresh.end();
      }
      return fresh;
    }
  }

  void closeStream(SessionStream s) {
    s.end();
    touch();
  }

  /** Routes one line of the child's stdout. Runs on the child's stdout pump. */
  void route(byte[] line) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parse(line);
    } catch (MalformedMessageException e) {
      log.warn("the server wrote a line that is not JSON (" + line.length + " bytes, " + e.getMessage()
          + "); dropped");
      return;
    }
    switch (message) {
      case JsonRpcMessage.Response r -> {
        Exchange waiting = r.id() == null ? null : inFlight.get(r.id());
        if (waiting == null || !waiting.complete(new Exchange.Outcome.Answered(line))) {
          log.info("the server answered id " + r.id() + ", which no request is waiting for; dropped");
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/progress") -> {
        JsonRpcId token = Json.id(line, Json.field(line, n.params(), "progressToken"));
        Exchange owner = token == null ? null : byProgressToken(token);
        if (owner == null || !relate(owner, line)) {
          toStream(line, n.method());
        }
      }
      case JsonRpcMessage.Notification n when n.method().equals("notifications/message") -> relateOrStream(line, n.method());
      case JsonRpcMessage.Notification n -> toStream(line, n.method());
      case JsonRpcMessage.Request r -> relateOrStream(line, r.method());
      case JsonRpcMessage.Batch b -> log.warn("the server wrote a batch; batches are not relayed, dropped");
      case JsonRpcMessage.Invalid i -> log.warn("the server wrote an invalid message (" + i.reason() + "); dropped");
    }
  }

  private void relateOrStream(byte[] line, String method) {
    Exchange running = inFlight.values().stream()
        .filter(Exchange::acceptsRelated)
        .min(Comparator.comparingLong(e -> e.sequence))
        .orElse(null);
    if (running == null || !relate(running, line)) {
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

  private boolean relate(Exchange exchange, byte[] line) {
    if (exchange.relate(line)) {
      return true;
    }
    log.warn("request " + exchange.id + " has " + Exchange.MAX_QUEUED + " messages waiting for its client; "
        + "sending the next one to the session stream");
    return false;
  }

  private void toStream(byte[] line, String method) {
    synchronized (backlog) {
      SessionStream s = stream;
      if (s != null && !s.ended()) {
        if (!s.offer(line)) {
          log.warn("the session stream's client is not reading; dropped " + method);
        }
        return;
      }
      if (backlog.size() >= BACKLOG) {
        backlog.pollFirst();
        log.warn("no session stream open and " + BACKLOG + " messages waiting; dropped the oldest");
      }
      backlog.addLast(line);
    }
  }

  /** The child's stdout ended: fail everything in flight and end the stream. */
  void childGone(String reason) {
    if (ended) {
      return;
    }
    deathReason = reason;
    dead = true;
    failAll(503, reason);
  }

  /** Ends the session for good: nothing new is accepted; the caller then closes the child. */
  void end(String reason) {
    ended = true;
    failAll(503, reason);
  }

  private void failAll(int status, String reason) {
    for (Exchange e : inFlight.values()) {
      e.complete(new Exchange.Outcome.Failed(status, reason));
    }
    synchronized (backlog) {
      SessionStream s = stream;
      if (s != null) {
        s.end();
      }
    }
  }

  /** Closes the child with the shutdown ladder (blocking). */
  void closeChild() {
    ChildProcess c = child;
    if (c != null) {
      c.close();
    }
  }

  /** Tells the child to stop working on a request the client will no longer wait for. */
  void cancel(JsonRpcId requestId, String reason) {
    send(("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":"
        + requestId.json() + ",\"reason\":" + Json.quote(reason) + "}}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }
}
