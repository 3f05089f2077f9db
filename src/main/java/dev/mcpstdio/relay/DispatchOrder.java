package dev.mcpstdio.relay;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Keeps POSTs in the host's order where order carries meaning, without serialising requests.
 *
 * <p>Requests are independent of one another (a server may run them in any order anyway), so
 * they go out as fast as they come. A notification or a response often refers to what came
 * before it ({@code notifications/cancelled} names an earlier request; an answer follows the
 * question), so it leaves only after every earlier POST has been handed to its connection. The
 * wait is bounded: once an attempt stalls, order is best effort.
 */
final class DispatchOrder {

  /** Bound on the number of handovers tracked; past it, all are waited for before the next. */
  private static final int MAX_TRACKED = 4096;

  private final List<CompletableFuture<Void>> pending = new ArrayList<>(); // guarded by this
  private final Duration bound;

  DispatchOrder(Duration bound) {
    this.bound = bound;
  }

  /** Called by the dispatcher (the stdin reader, or the waiting room's usher) for every dispatched call. */
  void dispatched(CompletableFuture<Void> handover) throws InterruptedException {
    boolean full;
    synchronized (this) {
      pending.removeIf(CompletableFuture::isDone);
      full = pending.size() >= MAX_TRACKED;
    }
    if (full) {
      awaitAll();
    }
    synchronized (this) {
      pending.add(handover);
    }
  }

  /** Waits until every earlier call's body is on its way, up to the bound. */
  void awaitAll() throws InterruptedException {
    List<CompletableFuture<Void>> earlier;
    synchronized (this) {
      pending.removeIf(CompletableFuture::isDone);
      if (pending.isEmpty()) {
        return;
      }
      earlier = List.copyOf(pending);
    }
    try {
      CompletableFuture.allOf(earlier.toArray(CompletableFuture[]::new))
          .get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException ignored) {
      // best effort once an attempt stalls
    }
    synchronized (this) {
      pending.removeAll(earlier); // waited for (or given up on); later ones stay
    }
  }
}
