package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Requests read from stdin while the relay has no room for them (its message budget or its
 * requests in flight are at their bound), waiting in the host's order to be admitted.
 *
 * <p>Without it the stdin reader itself would wait, and everything the host wrote after the
 * request would wait with it: the host's answers to the server's requests (which the calls in
 * flight may need before they can end and make room) and its cancels. With it the reader goes on
 * reading: answers to the server go out at once, a cancel of a request still waiting here
 * withdraws that request (it is never sent, and as for any cancel nothing is written for it), and
 * anything else that follows a waiting request waits behind it, so that order is kept among them.
 *
 * <p>Bounded: at most {@code maxMessages} messages and {@code maxBytes} bytes wait (a larger
 * message never enters: see {@link #fits}); past that the reader waits for space, and the host's
 * pipe fills: back-pressure, as before. A withdrawn request leaves at once and frees its space.
 * One usher thread admits the messages in order; each request waits for room at most the relay's
 * patience, counted from when it entered.
 */
final class WaitingRoom {

  /** Lets one waiting message in: waits for room (bounded), then dispatches or answers it. */
  @FunctionalInterface
  interface Usher {
    void admit(Entry entry) throws InterruptedException;
  }

  /** What a cancel found. */
  enum Withdrawal {
    /** No request with that id waits here. */
    NOT_HERE,
    /** The request was waiting: it is withdrawn and will never be sent. */
    WITHDRAWN,
    /** The request is being let in right now: the cancel must follow it upstream (it waited for that). */
    ON_ITS_WAY,
    /** The request is a member of a batch that waits here: the cancel must wait behind the batch. */
    IN_A_WAITING_BATCH
  }

  /** One waiting message; its state changes under its own lock. */
  static final class Entry {
    private final JsonRpcMessage message;
    private final int bytes;
    private final long entered = System.nanoTime();
    private final CompletableFuture<Void> dispatched = new CompletableFuture<>();
    private boolean started; // guarded by this
    private boolean withdrawn; // guarded by this: the host cancelled it
    private boolean refused; // guarded by this: the relay is stopping, and the closer answers it

    Entry(JsonRpcMessage message, int bytes) {
      this.message = message;
      this.bytes = bytes;
    }

    JsonRpcMessage message() {
      return message;
    }

    int bytes() {
      return bytes;
    }

    /** When it entered the room ({@link System#nanoTime}): its patience runs from then. */
    long entered() {
      return entered;
    }

    /** True while nothing decided its fate yet: the usher may still wait for room for it. */
    synchronized boolean pending() {
      return !started && !withdrawn && !refused;
    }

    /**
     * The usher has room for it (or gives up waiting): true when it is the usher's to send or
     * answer, false when the host withdrew it or the closer answers it. After true, a cancel can
     * no longer withdraw it and follows it upstream instead.
     */
    synchronized boolean start() {
      if (withdrawn || refused) {
        return false;
      }
      started = true;
      return true;
    }

    /** The request was sent (or answered here): a cancel that must follow it may go now. */
    void dispatched() {
      dispatched.complete(null);
    }

    private synchronized boolean isStarted() {
      return started;
    }

    private synchronized boolean withdraw() {
      if (started || refused) {
        return false;
      }
      withdrawn = true;
      return true;
    }

    private synchronized boolean refuse() {
      if (started || withdrawn) {
        return false;
      }
      refused = true;
      return true;
    }

    private boolean isRequest(JsonRpcId id) {
      return message instanceof Request r && r.id().equals(id);
    }

    private boolean hasMember(JsonRpcId id) {
      return message instanceof Batch b && b.members().stream().anyMatch(m -> m instanceof Request r && r.id().equals(id));
    }
  }

  private final int maxMessages;
  private final long maxBytes;
  private final Usher usher;
  private final Duration followBound;
  private final Deque<Entry> waiting = new ArrayDeque<>(); // guarded by this; head is being let in
  private long bytes; // guarded by this
  private Thread usherThread; // guarded by this; null when none runs
  private boolean closed; // guarded by this

  /**
   * @param followBound how long a cancel waits for the request it follows to be handed to its
   *     connection (as {@link DispatchOrder} bounds it)
   */
  WaitingRoom(int maxMessages, long maxBytes, Duration followBound, Usher usher) {
    this.maxMessages = Math.max(1, maxMessages);
    this.maxBytes = maxBytes;
    this.followBound = followBound;
    this.usher = usher;
  }

  /** True when nothing waits: only then may the reader let a message in itself. */
  synchronized boolean isEmpty() {
    return waiting.isEmpty();
  }

  /** True when a message of {@code size} bytes may wait here at all (larger ones wait on the reader). */
  boolean fits(int size) {
    return size <= maxBytes;
  }

  /**
   * Puts {@code message} (of at most {@code maxBytes}: see {@link #fits}) at the back, waiting
   * while the room is full.
   *
   * @return false when the room was closed (the relay is stopping): the caller answers it
   */
  synchronized boolean enter(JsonRpcMessage message, int size) throws InterruptedException {
    while (!closed && (waiting.size() >= maxMessages || bytes + size > maxBytes)) {
      wait();
    }
    if (closed) {
      return false;
    }
    waiting.addLast(new Entry(message, size));
    bytes += size;
    if (usherThread == null) {
      usherThread = Thread.ofPlatform().daemon().name("mcp-stdio-usher").start(this::usherLoop);
    }
    return true;
  }

  /**
   * A host's cancel of request {@code id}. A single request still waiting is withdrawn (and leaves
   * at once, or, when the usher is waiting for room for it, as soon as the usher looks again); one
   * being let in right now is waited for (bounded) until it is on its way, so the cancel does not
   * overtake it.
   */
  Withdrawal withdraw(JsonRpcId id) throws InterruptedException {
    Entry found = null;
    synchronized (this) {
      Entry head = waiting.peekFirst();
      for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
        Entry e = it.next();
        if (e.isRequest(id) && e.withdraw()) {
          if (e != head) { // the usher owns the head: it leaves when the usher sees it withdrawn
            it.remove();
            bytes -= e.bytes;
            e.dispatched();
            notifyAll();
          }
          return Withdrawal.WITHDRAWN;
        }
        if (e.isRequest(id) && e.isStarted()) {
          found = e;
          break;
        }
        if (e.hasMember(id)) {
          if (!e.isStarted()) {
            return Withdrawal.IN_A_WAITING_BATCH;
          }
          found = e;
          break;
        }
      }
    }
    if (found == null) {
      return Withdrawal.NOT_HERE;
    }
    try {
      found.dispatched.get(followBound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException ignored) {
      // best effort once an attempt stalls, as DispatchOrder
    }
    return Withdrawal.ON_ITS_WAY;
  }

  /** Waits until everything that waited has been let in (or answered, once the room closed). */
  synchronized void awaitEmpty() throws InterruptedException {
    while (!waiting.isEmpty()) {
      wait();
    }
  }

  /**
   * The relay is stopping: nothing more is let in. Returns every message that was still waiting
   * (not withdrawn, not yet let in), for the caller to answer; the one being let in right now, if
   * any, is finished by the usher, which stops waiting for room for a refused one when it looks again.
   */
  List<JsonRpcMessage> close() {
    List<JsonRpcMessage> left = new ArrayList<>();
    synchronized (this) {
      closed = true;
      Entry head = waiting.peekFirst();
      for (Iterator<Entry> it = waiting.iterator(); it.hasNext(); ) {
        Entry e = it.next();
        if (e.refuse()) {
          left.add(e.message);
        }
        if (e != head) {
          it.remove();
          bytes -= e.bytes;
          e.dispatched();
        }
      }
      notifyAll();
    }
    return left;
  }

  private void usherLoop() {
    try {
      while (true) {
        Entry head;
        synchronized (this) {
          head = waiting.peekFirst();
          if (head == null) {
            usherThread = null;
            return;
          }
        }
        try {
          usher.admit(head); // skips it at start() when it was withdrawn or refused meanwhile
        } catch (InterruptedException e) {
          // nobody interrupts the usher but the JVM's end: the head was answered or is the closer's
        } finally {
          Thread.interrupted();
          head.dispatched();
          synchronized (this) {
            if (waiting.peekFirst() == head) {
              waiting.pollFirst();
              bytes -= head.bytes;
            }
            notifyAll();
          }
        }
      }
    } finally {
      synchronized (this) {
        if (usherThread == Thread.currentThread()) {
          usherThread = null; // died (the relay then fails as a whole: Relay.threadDied)
        }
      }
    }
  }
}
