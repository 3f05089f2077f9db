package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonCanonical;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.serve.http.ByteBudget;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A session's client requests: those in flight by id (each an {@link Exchange} waiting for the
 * child's answer), and streams already answered that a client may still resume. It admits a new
 * request (or joins it to the same request in flight, or refuses it), finds the exchange a message
 * from the child belongs to (by id, by progress token, the oldest still streaming), and fails what
 * is in flight when the session can no longer answer.
 *
 * <p>Bounded: {@link #MAX_IN_FLIGHT} requests in flight, {@link #MAX_LINGERING} answered streams
 * kept for {@link #LINGER}. Thread-safe: HTTP threads admit and release, the child's stdout pump
 * looks up, the reaper prunes.
 */
final class ExchangeTable {

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

  /** An answered stream nobody received yet, and when it is given up. */
  private record Lingering(Exchange exchange, long expiresNanos) {}

  private final SessionLife life;
  private final ByteBudget queuedBytes;
  private final Duration backendTimeout;
  private final Map<JsonRpcId, Exchange> inFlight = new ConcurrentHashMap<>();
  private final Map<Long, Lingering> lingering = new ConcurrentHashMap<>(); // by exchange sequence
  private final AtomicLong sequence = new AtomicLong();

  /**
   * @param queuedBytes the gateway-wide allowance for messages waiting for slow clients
   * @param backendTimeout how long a request waits for the child's answer
   */
  ExchangeTable(SessionLife life, ByteBudget queuedBytes, Duration backendTimeout) {
    this.life = life;
    this.queuedBytes = queuedBytes;
    this.backendTimeout = backendTimeout;
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
        if (life.over()) {
          inFlight.remove(request.id(), fresh);
          return new Admission.Gone();
        }
        if (inFlight.size() > MAX_IN_FLIGHT) {
          inFlight.remove(request.id(), fresh);
          return new Admission.Full();
        }
        life.touch();
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
   *
   * <p>A stream that lingers is put among the lingering before it leaves the in-flight table, and
   * {@link #resumable} looks in that order the other way round, so a resuming client finds it at
   * every moment; removed first, a resume in between was refused (410) for a stream kept for it.
   */
  void release(Exchange exchange) {
    life.touch();
    if (exchange.streaming && !life.ended() && !exchange.wasDeliveredCleanly()
        && !(exchange.outcome().getNow(null) instanceof Exchange.Outcome.Cancelled)) {
      pruneLingering();
      if (lingering.size() >= MAX_LINGERING) {
        lingering.values().stream().min(Comparator.comparingLong(Lingering::expiresNanos))
            .ifPresent(oldest -> forget(oldest.exchange()));
      }
      lingering.put(exchange.sequence, new Lingering(exchange, System.nanoTime() + LINGER.toNanos()));
      inFlight.remove(exchange.id, exchange);
      if (life.ended()) { // the session ended meanwhile and its forgetAll may have missed it
        forget(exchange);
      }
    } else {
      inFlight.remove(exchange.id, exchange);
      if (exchange.streaming) {
        exchange.discard();
      }
    }
  }

  /**
   * A stream to resume: in flight, or answered and lingering; null when unknown or given up. In
   * flight is looked at first (see {@link #release} for why the order matters).
   */
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

  /** Gives up every lingering stream (the session ended). */
  void forgetAll() {
    lingering.values().forEach(l -> forget(l.exchange()));
  }

  /** The exchange waiting for the answer to {@code id}; null when none is. */
  Exchange waiting(JsonRpcId id) {
    return id == null ? null : inFlight.get(id);
  }

  /** The exchange whose request carried progress token {@code token} and still takes related messages. */
  Exchange byProgressToken(JsonRpcId token) {
    for (Exchange e : inFlight.values()) {
      if (token.equals(e.progressToken) && e.acceptsRelated()) {
        return e;
      }
    }
    return null;
  }

  /**
   * The oldest exchange whose stream is being written now: where a message that could belong to
   * any running request goes. Null when none is.
   */
  Exchange oldestStreaming() {
    return inFlight.values().stream()
        .filter(e -> e.acceptsRelated() && e.hasWriter())
        .min(Comparator.comparingLong(e -> e.sequence))
        .orElse(null);
  }

  boolean isEmpty() {
    return inFlight.isEmpty();
  }

  /** Fails every request in flight with 503 and {@code reason} (the session can no longer answer). */
  void failAll(String reason) {
    for (Exchange e : inFlight.values()) {
      e.complete(new Exchange.Outcome.Failed(503, reason));
    }
  }
}
