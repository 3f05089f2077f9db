package dev.mcpstdio.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The bytes of messages the relay holds at once: request lines from stdin (held until their
 * exchange ends, since a retry sends them again) and answers being collected from upstream (held
 * until they are on stdout). Past the limit nothing is dropped; reading simply waits. The stdin
 * reader waits before it takes the next request (the host's pipe fills: back-pressure on the host),
 * and an answer's reader stops asking the connection for more (TCP back-pressure on the server).
 *
 * <p>Progress is guaranteed: a request line is admitted whenever nothing else is held, and one
 * answer at a time (the <em>overdraft</em> holder) may go past the limit, so the answers that the
 * held requests wait for can always be read one by one. The overdraft is bounded by the reader's
 * own bound ({@code --max-message-size}), so the budget holds at most {@code limit} plus one
 * message plus the chunk each paused reader had in hand when it stopped.
 *
 * <p>Charges are made after the bytes arrived (a line or chunk is already in memory when its size
 * is known); what the budget controls is whether the next one is read.
 */
final class MessageBudget {

  /** A budget that never makes anyone wait (tools and tests that relay one message at a time). */
  static final MessageBudget UNBOUNDED = new MessageBudget(Long.MAX_VALUE);

  private final long limit;
  private long held; // guarded by this
  private Hold overdraft; // guarded by this; the one answer reading past the limit
  private final List<Hold> paused = new ArrayList<>(); // guarded by this

  MessageBudget(long limit) {
    this.limit = limit;
  }

  long limit() {
    return limit;
  }

  /** Bytes held now (for tests and the log). */
  synchronized long held() {
    return held;
  }

  /**
   * Holds a request line of {@code bytes}, waiting while the budget is full (and something else
   * is held, so that a line larger than the limit still goes once the relay is idle).
   *
   * @param patience how long to wait at most
   * @return the hold to release when the exchange ends, or null when the wait ran out
   */
  synchronized Hold holdRequest(long bytes, long patience, TimeUnit unit) throws InterruptedException {
    long deadline = System.nanoTime() + unit.toNanos(patience);
    while (held > 0 && held + bytes > limit) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return null;
      }
      TimeUnit.NANOSECONDS.timedWait(this, left);
    }
    Hold hold = new Hold();
    hold.charged = bytes;
    held += bytes;
    return hold;
  }

  /** Holds a request line of {@code bytes} when it fits now (as {@link #holdRequest} would without waiting), else null. */
  synchronized Hold tryHoldRequest(long bytes) {
    if (held > 0 && held + bytes > limit) {
      return null;
    }
    return holdNow(bytes);
  }

  /** Holds {@code bytes} without waiting: for messages that must not queue (notifications, answers to the server). */
  synchronized Hold holdNow(long bytes) {
    Hold hold = new Hold();
    hold.charged = bytes;
    held += bytes;
    return hold;
  }

  /** A hold of its own for a body's reader, charged chunk by chunk as it arrives. */
  Hold reader() {
    return new Hold();
  }

  /** The hold of the exchange running on this thread, if it is one of this budget's. */
  private static final ThreadLocal<Hold> EXCHANGE = new ThreadLocal<>();

  /**
   * Makes {@code hold} the one every body read on this thread (an exchange's thread: its answer,
   * pages, a re-initialization) is charged to, so that an answer's bytes stay charged until the
   * exchange ends and nothing refers to them any more.
   */
  static void bindToThisThread(Hold hold) {
    EXCHANGE.set(hold);
  }

  /** The bound exchange's hold when it is this budget's, else null. */
  Hold exchangeHold() {
    Hold hold = EXCHANGE.get();
    return hold != null && hold.budget() == this ? hold : null;
  }

  /** One holder's share of the budget. */
  final class Hold {
    private long charged; // guarded by the budget
    private Runnable resume; // guarded by the budget; set while paused
    private boolean released; // guarded by the budget

    /**
     * Charges {@code bytes} that just arrived. Returns true when the holder may read on; false
     * when it must stop asking for more until {@code resume} is run (on a thread of its own).
     */
    boolean charge(long bytes, Runnable resume) {
      synchronized (MessageBudget.this) {
        if (released) {
          return true; // a body that already ended: nothing to account
        }
        charged += bytes;
        held += bytes;
        if (held <= limit || overdraft == this) {
          return true;
        }
        if (overdraft == null) {
          overdraft = this;
          return true;
        }
        this.resume = resume;
        paused.add(this);
        return false;
      }
    }

    /**
     * Gives back {@code bytes} of what was charged and keeps the hold, but not the overdraft (an
     * event stream after a message it delivered that was not the exchange's answer: that message
     * is gone, the stream goes on). The overdraft belongs to one message at a time, so a long
     * exchange streaming progress never keeps it from the answers waiting behind it.
     */
    void giveBack(long bytes) {
      List<Runnable> wake;
      synchronized (MessageBudget.this) {
        long n = Math.min(bytes, charged);
        held -= n;
        charged -= n;
        if (overdraft == this) {
          overdraft = null; // the message it read past the limit is gone: the next one may
        }
        wake = wakeable();
      }
      wake.forEach(MessageBudget::start);
    }

    private MessageBudget budget() {
      return MessageBudget.this;
    }

    /** Gives everything back; the hold is done. Idempotent. */
    void release() {
      List<Runnable> wake;
      synchronized (MessageBudget.this) {
        if (released) {
          return;
        }
        released = true;
        held -= charged;
        charged = 0;
        if (overdraft == this) {
          overdraft = null;
        }
        paused.remove(this);
        resume = null;
        wake = wakeable();
      }
      wake.forEach(MessageBudget::start);
    }
  }

  /** Paused readers that may try again now (all of them: each charges and decides anew). */
  private List<Runnable> wakeable() {
    notifyAll(); // the stdin reader, if it waits
    if (paused.isEmpty() || (held > limit && overdraft != null)) {
      return List.of();
    }
    List<Runnable> wake = new ArrayList<>(paused.size());
    for (Hold h : paused) {
      wake.add(h.resume);
      h.resume = null;
    }
    paused.clear();
    return wake;
  }

  /**
   * A paused reader resumes on a thread of its own: asking a connection for more may deliver the
   * next chunk at once on the calling thread, which here is whoever gave bytes back.
   */
  private static void start(Runnable resume) {
    Thread.ofVirtual().name("mcp-stdio-resume").start(resume);
  }
}
