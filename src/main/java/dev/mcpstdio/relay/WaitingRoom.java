package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
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
 * reading: an answer to the server goes out at once, a cancel of a request still waiting here
 * withdraws that request (it is never sent, and as for any cancel nothing is written for it), and
 * anything else that follows a waiting request waits behind it, so that order is kept among them.
 *
 * <p>Bounded: at most {@code maxMessages} messages and {@code maxBytes} bytes wait (an empty room
 * always takes one message, however large, so progress never stops); past that the reader waits
 * for space, and the host's pipe fills: back-pressure, as before. One usher thread admits the
 * messages in order, each waiting for room at most the relay's patience, like the reader did.
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
    /** The request is being let in right now: the cancel must follow it upstream. */
    ON_ITS_WAY
  }

  /** One waiting message; its state changes under its own lock. */
  static final class Entry {
    private final JsonRpcMessage message;
    private final int bytes;
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

    /**
     * The usher has room for it: true when it may be sent, false when the host withdrew it first.
     * After true, a cancel can no longer withdraw it and follows it upstream instead.
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

    private synchronized boolean withdrawn() {
      return withdrawn;
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
   * A host's cancel of request {@code id}: withdraws it when it is still waiting. When it is being
   * let in right now, waits (bounded) until it is on its way, so the cancel does not overtake it.
   */
  Withdrawal withdraw(JsonRpcId id) throws InterruptedException {
    Entry found = null;
    synchronized (this) {
      for (Entry e : waiting) {
        if (e.message instanceof Request r && r.id().equals(id) && !e.withdrawn()) {
          found = e;
          break;
        }
      }
    }
    if (found == null) {
      return Withdrawal.NOT_HERE;
    }
    if (found.withdraw()) {
      return Withdrawal.WITHDRAWN; // the usher skips it (and frees its space) when it comes to it
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
   * any, is finished by the usher, which stops waiting for room at once.
   */
  List<JsonRpcMessage> close() {
    List<JsonRpcMessage> left = new ArrayList<>();
    Thread current = null;
    synchronized (this) {
      closed = true;
      Entry head = waiting.peekFirst();
      for (Entry e : waiting) {
        if (e.refuse()) {
          left.add(e.message);
          if (e == head) {
            current = usherThread; // it waits for room for a message answered now: stop that wait
          }
        }
      }
      waiting.removeIf(e -> e != head);
      bytes = head == null ? 0 : head.bytes;
      notifyAll();
    }
    if (current != null) {
      current.interrupt();
    }
    return left;
  }

  private void usherLoop() {
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
        // only a close interrupts, and only while the head waits for room: it is answered by the closer
      } finally {
        Thread.interrupted(); // an interrupt meant for this head must not reach the next
        head.dispatched();
        synchronized (this) {
          waiting.pollFirst();
          bytes -= head.bytes;
          notifyAll();
        }
      }
    }
  }
}
