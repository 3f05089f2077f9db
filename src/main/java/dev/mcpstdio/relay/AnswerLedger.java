package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.stdio.EmitGate;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keeps the promise that every host request gets exactly one answer.
 *
 * <p>A request is <em>open</em> from dispatch until its answer passes the gate: the server's
 * response, or an error the relay writes itself. Whatever answers first closes it; a later answer
 * for the same id is held back. Cancelled ids are remembered for {@link #CANCEL_TTL} so that a late
 * response to a cancelled request can be dropped (the cancel filter), and ids the relay already
 * answered are remembered as long so that a straggling upstream response cannot become a second
 * answer. An id the host reuses for a new request is forgotten from both.
 *
 * <p>Bounds: at most {@link #capacity()} open requests (dispatch waits for a slot; the relay sizes
 * it from its heap, see {@link InFlightBounds}), and at most {@link #MAX_REMEMBERED} cancelled and
 * as many answered ids, each for 60 s.
 */
final class AnswerLedger implements EmitGate.Filter {

  static final int MAX_REMEMBERED = 4096;
  static final Duration CANCEL_TTL = Duration.ofSeconds(60);

  private final Set<JsonRpcId> open = ConcurrentHashMap.newKeySet();
  private final Map<JsonRpcId, CompletableFuture<Void>> closing = new ConcurrentHashMap<>(); // waiters
  private final int capacity;
  private final Semaphore slots;
  /**
   * Ids the host reused while the cancelled request before them may still be answered under them
   * (see {@link ReusedIds}): the value is {@link #PENDING}, or the one answer to let through.
   */
  private final Map<JsonRpcId, Object> reused = new ConcurrentHashMap<>();
  private static final Object PENDING = new Object();
  private final Set<JsonRpcId> batched = ConcurrentHashMap.newKeySet(); // open ids sent in a host batch
  private final ExpiringIds cancelled;
  private final ExpiringIds answered;
  private final boolean cancelFilter;

  private final RelayCounts counts;

  AnswerLedger(boolean cancelFilter, LongSupplier clock) {
    this(cancelFilter, clock, InFlightBounds.MAX_OPEN, new RelayCounts());
  }

  /**
   * @param capacity open requests at most
   * @param counts where the requests opened, their answers and the host's cancels are counted
   */
  AnswerLedger(boolean cancelFilter, LongSupplier clock, int capacity, RelayCounts counts) {
    this.counts = counts;
    this.capacity = capacity;
    this.slots = new Semaphore(capacity);
    this.cancelFilter = cancelFilter;
    this.cancelled = new ExpiringIds(CANCEL_TTL, MAX_REMEMBERED, clock);
    this.answered = new ExpiringIds(CANCEL_TTL, MAX_REMEMBERED, clock);
  }

  /** Where this ledger counts (and the relay's other parts with it). */
  RelayCounts counts() {
    return counts;
  }

  /** Result of trying to open a request. */
  enum Opening {
    OPENED,
    DUPLICATE,
    BUSY
  }

  /**
   * Opens a request for {@code id}, waiting up to {@code wait} for a free slot. A reused id
   * supersedes an earlier cancel of the same id.
   */
  Opening open(JsonRpcId id, Duration wait) throws InterruptedException {
    return open(id, wait, false);
  }

  /**
   * @param inBatch the request is a member of a host batch (only such answers may reach the host
   *     as a batch)
   */
  Opening open(JsonRpcId id, Duration wait, boolean inBatch) throws InterruptedException {
    if (!slots.tryAcquire(wait.toNanos(), TimeUnit.NANOSECONDS)) {
      return Opening.BUSY;
    }
    if (!open.add(id)) {
      slots.release();
      return Opening.DUPLICATE;
    }
    if (inBatch) {
      batched.add(id);
    }
    if (isCancelled(id) && !inBatch) {
      // the cancelled request's late answer may still come under this id; the new request goes
      // under an alias (ReusedIds aliases single requests only)
      reused.put(id, PENDING);
    }
    cancelled.remove(id);
    answered.remove(id);
    counts.requests.increment();
    return Opening.OPENED;
  }

  /** Open requests at most. */
  int capacity() {
    return capacity;
  }

  /** True when {@code requests} more could be opened now without waiting. */
  boolean hasRoomFor(int requests) {
    return slots.availablePermits() >= requests;
  }

  /**
   * Waits up to {@code wait} until {@code requests} could be opened, without opening them. The relay's
   * one dispatcher at a time (the stdin reader, or the waiting room's usher while anything waits)
   * is the only one that opens requests, so the slot found is still free when it opens it.
   */
  boolean awaitRoom(int requests, Duration wait) throws InterruptedException {
    if (!slots.tryAcquire(requests, wait.toNanos(), TimeUnit.NANOSECONDS)) {
      return false;
    }
    slots.release(requests);
    return true;
  }

  /**
   * The host sent a new request under {@code id} while the request it cancelled under that id is
   * still open (its exchange has not ended). The id stays open, now for the new request, whose
   * answer will come under an alias ({@link ReusedIds}); whatever the server sends under the bare
   * id is the cancelled request's and is held back.
   *
   * @return false when {@code id} is not open for a cancelled request (the new one is a duplicate)
   */
  boolean supersede(JsonRpcId id) {
    if (!open.contains(id) || !isCancelled(id) || batched.contains(id)) {
      return false; // a batch's member answers for its batch: it is never taken over
    }
    reused.put(id, PENDING);
    cancelled.remove(id);
    return true;
  }

  /** True when {@code id} is open for a request that reused a recently cancelled id. */
  boolean isReused(JsonRpcId id) {
    return reused.containsKey(id);
  }

  /** The one answer that may close a reused id (the server's answer to its alias, rewritten). */
  void expect(Response answer) {
    reused.replace(answer.id(), PENDING, answer);
  }

  /** True when every response in {@code batch} answers a request the host sent in a batch. */
  boolean answersHostBatch(Batch batch) {
    for (JsonRpcMessage m : batch.members()) {
      if (m instanceof Response r && (r.id() == null || !batched.contains(r.id()))) {
        return false;
      }
    }
    return true;
  }

  boolean isOpen(JsonRpcId id) {
    return open.contains(id);
  }

  /**
   * Closes a cancelled request without an answer: the relay stopped its work because the host
   * cancelled it, and the host expects nothing more for it (the one deliberate silence).
   */
  void closeCancelled(JsonRpcId id) {
    if (isCancelled(id)) {
      close(id);
    }
  }

  /** The ids still awaiting an answer (a snapshot). */
  List<JsonRpcId> openIds() {
    return List.copyOf(open);
  }

  /** True when the host cancelled {@code id} within the last minute (nothing is consumed). */
  boolean isCancelled(JsonRpcId id) {
    return cancelFilter && cancelled.contains(id);
  }

  /** The host cancelled {@code id}; a late response to it will be dropped. */
  void cancel(JsonRpcId id) {
    counts.cancelled.increment();
    if (cancelFilter) {
      cancelled.add(id);
      CompletableFuture<Void> waiter = closing.remove(id); // a waiter decides what a cancel means
      if (waiter != null) {
        waiter.complete(null);
      }
    }
  }

  /**
   * Closes {@code id} for an answer the relay writes itself. Returns false when the request was
   * already answered, in which case the relay must stay silent.
   */
  boolean closeForOwnAnswer(JsonRpcId id) {
    if (!close(id)) {
      return false;
    }
    counts.relayErrors.increment();
    cancelled.remove(id);
    return true;
  }

  private boolean close(JsonRpcId id) {
    if (open.remove(id)) {
      reused.remove(id);
      batched.remove(id);
      slots.release();
      answered.add(id);
      CompletableFuture<Void> waiter = closing.remove(id);
      if (waiter != null) {
        waiter.complete(null);
      }
      return true;
    }
    return false;
  }

  /**
   * Waits until {@code id} is answered (or closed as cancelled), at most {@code wait}. For
   * transports whose answers arrive apart from the request's own exchange (HTTP+SSE, 2024-11-05).
   *
   * @return false when it is still open after {@code wait}, or was cancelled by the host meanwhile
   */
  boolean awaitClosed(JsonRpcId id, Duration wait) throws InterruptedException {
    CompletableFuture<Void> waiter = closing.computeIfAbsent(id, k -> new CompletableFuture<>());
    if (!open.contains(id)) { // closed before the waiter was in place
      closing.remove(id, waiter);
      return true;
    }
    try {
      waiter.get(wait.toNanos(), TimeUnit.NANOSECONDS);
      return !open.contains(id); // woken by an answer, or by the host's cancel
    } catch (java.util.concurrent.TimeoutException e) {
      closing.remove(id, waiter);
      return !open.contains(id);
    } catch (java.util.concurrent.ExecutionException e) {
      return !open.contains(id);
    }
  }

  @Override
  public EmitGate.Admission admit(JsonRpcMessage message) {
    if (message instanceof Response response) {
      String reason = dropReason(response);
      return reason == null ? EmitGate.Admission.pass(message) : EmitGate.Admission.drop(reason);
    }
    return message instanceof Batch batch
        ? admitBatch(batch)
        : EmitGate.Admission.pass(message); // notifications and server requests
  }

  /** Why this response must not reach the host, or null; an admitted answer closes its id. */
  private String dropReason(Response response) {
    JsonRpcId id = response.id();
    if (id == null) {
      return null; // an error about an unreadable message: never correlated, always passed
    }
    Object awaited = reused.get(id);
    if (awaited != null && awaited != response) {
      return "dropped a late response for cancelled id " + id + " (the host reused the id; the new request's answer comes apart)";
    }
    if (cancelFilter && cancelled.consume(id)) {
      close(id);
      return "dropped late response for cancelled id " + id;
    }
    if (close(id)) {
      (response.isError() ? counts.serverErrors : counts.results).increment();
      return null;
    }
    if (answered.contains(id)) {
      return "dropped a second response for id " + id + " (already answered)";
    }
    // Exactly one answer per request: an answer to nothing the host asked is not relayed (the
    // host would take it for the answer to a later request that reuses the id).
    return "dropped a response for id " + id + ", which no request in flight has";
  }

  /** A batch reply is judged member by member; held-back members are cut out of the array. */
  private EmitGate.Admission admitBatch(Batch batch) {
    List<JsonRpcMessage> kept = new ArrayList<>();
    List<String> reasons = new ArrayList<>();
    for (JsonRpcMessage member : batch.members()) {
      String reason = member instanceof Response r ? dropReason(r) : null;
      if (reason == null) {
        kept.add(member);
      } else {
        reasons.add(reason);
      }
    }
    if (reasons.isEmpty()) {
      return EmitGate.Admission.pass(batch);
    }
    String note = String.join("; ", reasons);
    return kept.isEmpty()
        ? EmitGate.Admission.drop(note)
        : new EmitGate.Admission(Rewrites.batchOf(kept), note);
  }
}
