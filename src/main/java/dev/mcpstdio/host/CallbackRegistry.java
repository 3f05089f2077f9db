package dev.mcpstdio.host;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The callbacks of one session that wait for the host's decision (protocol v1,
 * docs/callbacks.md): announced from the child's stderr (or an awaitable POST), answered at most
 * once, given up at their deadline.
 *
 * <p>A child may ask for the answer before the host has read its announcement (the two travel on
 * different channels), so {@link #await} waits up to {@code announceGrace} for an id it has not
 * seen, and one that asks after the host decided still gets the decision. Bounded: at most
 * {@link #MAX_PENDING} callbacks wait at once; finished ones are remembered (at most four times as
 * many) so a late request gets its answer and a late reply is refused with the right reason.
 */
public final class CallbackRegistry {

  /** Callbacks waiting at once per session, at most; more are refused. */
  public static final int MAX_PENDING = 256;

  /** What became of a reply. */
  public enum ReplyResult {
    ACCEPTED,
    /** No such callback (never announced, or forgotten). */
    UNKNOWN,
    /** Already answered, or expired. */
    CLOSED
  }

  /** What a child waiting for an answer gets. */
  public sealed interface Answer {
    record Replied(String replyJson) implements Answer {}

    record TimedOut() implements Answer {}

    record Unknown() implements Answer {}
  }

  private final Duration timeout;
  private final Duration announceGrace;
  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final Map<String, Expected> expected = new ConcurrentHashMap<>(); // guarded by this

  /** Children waiting for an id not announced yet: one future, counted so the last to give up removes it. */
  private record Expected(CompletableFuture<Pending> announced, java.util.concurrent.atomic.AtomicInteger waiters) {}
  /** Finished callbacks, the most recent kept: the reply, or {@link #EXPIRED}; a child may ask after the host answered. */
  private final Map<String, String> finished = new java.util.LinkedHashMap<>() { // guarded by the registry
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > MAX_PENDING * 4;
    }
  };

  private static final String EXPIRED = "";

  private record Pending(Callback callback, CompletableFuture<String> reply, long deadlineNanos) {}

  private volatile java.util.function.Consumer<String> onFinished = id -> {};

  /** Told the id of each callback answered or given up (to withdraw questions still open elsewhere). */
  public void onFinished(java.util.function.Consumer<String> listener) {
    this.onFinished = listener;
  }

  public CallbackRegistry(Duration timeout, Duration announceGrace) {
    this.timeout = timeout;
    this.announceGrace = announceGrace;
  }

  /**
   * Records an announced callback; false when its id is already known (a repeated announcement is
   * ignored) or too many wait already. Notifications are never recorded: nobody answers them.
   */
  public synchronized boolean announce(Callback callback) {
    if (closed || callback.isNotification() || finished.containsKey(callback.id())) {
      return false;
    }
    if (pending.size() >= MAX_PENDING) {
      return false;
    }
    Pending fresh = new Pending(callback, new CompletableFuture<>(), System.nanoTime() + timeout.toNanos());
    if (pending.putIfAbsent(callback.id(), fresh) != null) {
      return false;
    }
    Expected waiter = expected.remove(callback.id());
    if (waiter != null) {
      waiter.announced().complete(fresh);
    }
    return true;
  }

  /** The callbacks waiting for a decision, oldest first by deadline. */
  public List<Callback> waiting() {
    List<Pending> all = new ArrayList<>(pending.values());
    all.sort((a, b) -> Long.compare(a.deadlineNanos(), b.deadlineNanos()));
    return all.stream().map(Pending::callback).toList();
  }

  /** The host's decision for callback {@code id}; only the first reply counts. */
  public ReplyResult reply(String id, String replyJson) {
    Pending p;
    synchronized (this) { // with expire(): one of them wins, and finished says which
      p = pending.remove(id);
      if (p == null) {
        return finished.containsKey(id) ? ReplyResult.CLOSED : ReplyResult.UNKNOWN;
      }
      finished.put(id, replyJson);
    }
    p.reply().complete(replyJson);
    onFinished.accept(id);
    return ReplyResult.ACCEPTED;
  }

  /** How many children wait for {@code id} to be announced (for tests: proves a waiter is parked). */
  synchronized int waitingForAnnouncement(String id) {
    Expected e = expected.get(id);
    return e == null ? 0 : e.waiters().get();
  }

  /**
   * Waits for the decision on callback {@code id}: first (up to the announce grace) for the
   * callback to be announced, then until its deadline.
   */
  public Answer await(String id) throws InterruptedException {
    Pending p;
    Expected waiting = null;
    synchronized (this) { // pending and finished are read together: never between the two
      if (closed) {
        return new Answer.TimedOut();
      }
      p = pending.get(id);
      if (p == null) {
        String done = finished.get(id);
        if (done != null) {
          return done.equals(EXPIRED) ? new Answer.TimedOut() : new Answer.Replied(done);
        }
        waiting = expected.computeIfAbsent(id,
            k -> new Expected(new CompletableFuture<>(), new java.util.concurrent.atomic.AtomicInteger()));
        waiting.waiters().incrementAndGet();
      }
    }
    if (p == null) {
      try {
        p = waiting.announced().get(announceGrace.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException | ExecutionException | java.util.concurrent.CancellationException e) {
        return new Answer.Unknown();
      } finally {
        synchronized (this) {
          if (waiting.waiters().decrementAndGet() == 0) {
            expected.remove(id, waiting);
          }
        }
      }
    }
    try {
      long left = p.deadlineNanos() - System.nanoTime();
      return new Answer.Replied(p.reply().get(Math.max(0, left), TimeUnit.NANOSECONDS));
    } catch (TimeoutException e) {
      expire(p);
      return new Answer.TimedOut();
    } catch (ExecutionException | java.util.concurrent.CancellationException e) {
      return new Answer.TimedOut(); // expired or the session ended
    }
  }

  /** Gives up callbacks past their deadline; returns them (the caller tells the child and client). */
  public List<Callback> expireOverdue() {
    long now = System.nanoTime();
    List<Callback> expired = new ArrayList<>();
    for (Pending p : pending.values()) {
      if (now - p.deadlineNanos() >= 0 && expire(p)) {
        expired.add(p.callback());
      }
    }
    return expired;
  }

  private volatile boolean closed;

  /** The session ended: every waiting callback is given up, and later ones are refused at once. */
  public void close() {
    closed = true;
    for (Pending p : pending.values()) {
      expire(p);
    }
    synchronized (this) {
      expected.values().forEach(e -> e.announced().cancel(false));
      expected.clear();
    }
  }

  private boolean expire(Pending p) {
    synchronized (this) {
      if (!pending.remove(p.callback().id(), p)) {
        return false; // answered or expired already
      }
      finished.put(p.callback().id(), EXPIRED);
    }
    p.reply().cancel(false);
    onFinished.accept(p.callback().id());
    return true;
  }


}
