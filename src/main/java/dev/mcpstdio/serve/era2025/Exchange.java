package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.serve.http.ByteBudget;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One client request in flight on a session: it waits for the child's response and, when its
 * client reads an event stream, collects the messages that belong with it (progress for its
 * token, and the requests and log messages the child sends while it runs).
 *
 * <p>The outcome is settled exactly once: the child's response, the client's own cancellation, or
 * the gateway's failure. Related messages are queued ahead of a final {@link Event.Done}, and none
 * is accepted once the outcome is settled (under this exchange's lock), so none lands behind the
 * answer.
 *
 * <p>A streamed exchange is resumable (SEP-1699): every event a writer takes is numbered and kept
 * in a replay log (bounded, its bytes counted in the gateway's allowance) before it is written,
 * with the id {@code <sequence>-<number>}. A client whose connection dropped reconnects with
 * {@code Last-Event-ID}; its writer takes over (the previous one, perhaps still writing into a
 * dead connection, is superseded and takes nothing more), replays what followed that id and
 * carries on. One writer polls at a time, and taking and numbering happen under this exchange's
 * lock with the writer's generation checked, so a takeover never loses or reorders an event.
 */
final class Exchange {

  /** At most this many related messages wait for a slow client; more go to the session stream. */
  static final int MAX_QUEUED = 4096;

  /** Events kept for replay to a resuming client, at most (older ones are given up first). */
  static final int REPLAY_EVENTS = 1024;

  /** What the client is eventually told. */
  sealed interface Outcome {
    /** The child answered (a result or the child's own JSON-RPC error). */
    record Answered(byte[] response) implements Outcome {}

    /** The client cancelled the request; the child will not answer it. */
    record Cancelled() implements Outcome {}

    /** The gateway could not get an answer: the HTTP status and the JSON-RPC error message. */
    record Failed(int status, String message) implements Outcome {}
  }

  /** What waits in the queue. */
  private sealed interface Event {
    record Related(byte[] message) implements Event {}

    record Done() implements Event {}
  }

  /** What a writer gets from {@link #take}. */
  sealed interface Step {
    /** Write this message with this event number; {@code last} when it is the answer. */
    record Send(byte[] message, long number, boolean last) implements Step {}

    /** The stream is over without an answer to write (the client cancelled the request). */
    record End() implements Step {}

    /** Another writer took the stream over: stop. */
    record Superseded() implements Step {}
  }

  /** A replayed event: its number and its message. */
  record Logged(long number, byte[] message) {}

  private static final Event DONE = new Event.Done();

  /** Put at the head of the queue by a takeover, so a writer waiting in {@link #take} notices at once. */
  private static final Event WAKE = new Event.Related(new byte[0]);

  final JsonRpcId id;
  final JsonRpcMessage.Request request;
  final JsonRpcId progressToken; // null when the request asked for no progress
  final boolean streaming;
  final long sequence;
  final long deadlineNanos; // when the gateway stops waiting for the child (System.nanoTime)
  private final ByteBudget budget;
  private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
  private final LinkedBlockingDeque<Event> events = new LinkedBlockingDeque<>();
  private final ReentrantLock taking = new ReentrantLock(); // one writer polls at a time: order is kept
  // guarded by this:
  private int queued; // related messages in events
  private int generation; // of the current writer; a takeover increments it
  private final ArrayDeque<byte[]> replay = new ArrayDeque<>();
  private long firstKept = 1; // number of the oldest event in replay
  private long nextNumber = 1;
  private boolean answerLogged;
  private boolean writerAttached; // a connection is writing the stream now
  private boolean discarded; // forgotten: nothing more is kept or written
  private boolean deliveredCleanly; // the answer was written and the stream ended without error

  Exchange(JsonRpcMessage.Request request, JsonRpcId progressToken, boolean streaming, long sequence, ByteBudget budget,
      long deadlineNanos) {
    this.id = request.id();
    this.request = request;
    this.progressToken = progressToken;
    this.streaming = streaming;
    this.sequence = sequence;
    this.budget = budget;
    this.deadlineNanos = deadlineNanos;
    this.writerAttached = streaming;
  }

  /** True while related messages can travel with this exchange (its stream, or a resumed one). */
  synchronized boolean acceptsRelated() {
    return streaming && !outcome.isDone() && !discarded;
  }

  /**
   * True while a connection is writing this exchange's stream. Messages that could belong to any
   * running request go only to such an exchange: one whose client left may never be resumed.
   */
  synchronized boolean hasWriter() {
    return writerAttached;
  }

  /** The writer of {@code writerGeneration} lost its connection. */
  synchronized void detach(int writerGeneration) {
    if (writerGeneration == generation) {
      writerAttached = false;
    }
  }

  /** The answer was written and the stream closed without error: nothing is left to resume. */
  synchronized void deliveredCleanly() {
    deliveredCleanly = true;
  }

  synchronized boolean wasDeliveredCleanly() {
    return deliveredCleanly;
  }

  /** Queues a related message; false when it cannot be (settled, queue or budget full). */
  synchronized boolean relate(byte[] message) {
    if (!streaming || outcome.isDone() || queued >= MAX_QUEUED) {
      return false;
    }
    while (!budget.tryTake(message.length)) {
      if (replay.isEmpty()) {
        return false;
      }
      forgetOldest(); // what is still to come matters more than what a resume might replay
    }
    queued++;
    events.add(new Event.Related(message));
    return true;
  }

  /** Settles the exchange; only the first call counts. */
  synchronized boolean complete(Outcome result) {
    if (outcome.complete(result)) {
      events.add(DONE);
      return true;
    }
    return false;
  }

  CompletableFuture<Outcome> outcome() {
    return outcome;
  }

  /** The id of event {@code number} of this exchange's stream (0 is the priming event). */
  String eventId(long number) {
    return sequence + "-" + number;
  }

  /**
   * The next step for the writer of {@code writerGeneration}, or null after {@code millis} without
   * one (time for a keep-alive).
   */
  Step take(long millis, int writerGeneration) throws InterruptedException {
    taking.lockInterruptibly();
    try {
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
      while (true) {
        Event event = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        synchronized (this) {
          if (writerGeneration != generation) {
            if (event != null && event != WAKE) {
              events.addFirst(event); // the new writer's, in its place
            }
            return new Step.Superseded();
          }
          if (discarded) {
            return new Step.End();
          }
          if (event == null || event == WAKE) {
            if (outcome.isDone() && events.isEmpty() && !answerLogged) {
              // settled, and its end was taken by a writer that then lost its client
              Outcome settled = outcome.join();
              if (settled instanceof Outcome.Cancelled) {
                return new Step.End();
              }
              byte[] answer = answer(settled);
              return new Step.Send(answer, log(answer, true), true);
            }
            if (event == WAKE && System.nanoTime() < deadline) {
              // A wake-up meant for a writer that has gone already (a resuming client's takeover
              // wakes the one it replaces): nothing for this writer, and no keep-alive due yet.
              continue;
            }
            return null;
          }
          if (event instanceof Event.Related related) {
            queued--;
            budget.giveBack(related.message().length);
            return new Step.Send(related.message(), log(related.message(), false), false);
          }
          Outcome settled = outcome.join();
          if (settled instanceof Outcome.Cancelled) {
            return new Step.End();
          }
          byte[] answer = answer(settled);
          return new Step.Send(answer, log(answer, true), true);
        }
      }
    } finally {
      taking.unlock();
    }
  }

  /** The JSON-RPC message that answers this request for {@code settled}. */
  byte[] answer(Outcome settled) {
    return switch (settled) {
      case Outcome.Answered a -> a.response();
      case Outcome.Failed f -> JsonRpcErrors.error(id, ErrorCodes.UPSTREAM_ERROR, f.message());
      case Outcome.Cancelled c -> JsonRpcErrors.error(id, ErrorCodes.UPSTREAM_ERROR, "cancelled by the client");
    };
  }

  /**
   * Numbers and keeps an event for replay; the oldest are given up when the count or the byte
   * allowance is reached. Invariant, also once discarded: {@code firstKept + replay.size() ==
   * nextNumber}, so {@link #after} never offers a resume across an event that was not kept.
   */
  private long log(byte[] message, boolean answer) {
    long number = nextNumber++;
    answerLogged |= answer;
    if (discarded) {
      firstKept = nextNumber; // forgotten: nothing is kept
      return number;
    }
    if (replay.size() >= REPLAY_EVENTS) {
      forgetOldest();
    }
    while (!budget.tryTake(message.length)) {
      if (replay.isEmpty()) {
        firstKept = number + 1; // not kept: a resume from before it is refused rather than left with a gap
        return number;
      }
      forgetOldest();
    }
    replay.addLast(message);
    return number;
  }

  private void forgetOldest() {
    budget.giveBack(replay.pollFirst().length);
    firstKept++;
  }

  /**
   * Takes the stream over for a resuming client whose last event was {@code last}: only when the
   * events after it are all kept, so a resume that cannot be served leaves the current writer be.
   *
   * @return the new writer's generation and the events to replay, or null
   */
  synchronized Resumption resumeFrom(long last) {
    if (!streaming || discarded) {
      return null;
    }
    List<Logged> missed = after(last);
    if (missed == null) {
      return null;
    }
    events.addFirst(WAKE);
    writerAttached = true;
    return new Resumption(++generation, missed);
  }

  /** A takeover: the new writer's generation and what it replays first. */
  record Resumption(int generation, List<Logged> missed) {}

  /**
   * The events after number {@code last}, or null when some of them are no longer kept (the
   * client asked too late) or {@code last} is not an event of this stream.
   */
  synchronized List<Logged> after(long last) {
    if (last < firstKept - 1 || last >= nextNumber) {
      return null;
    }
    List<Logged> missed = new ArrayList<>();
    long number = firstKept;
    for (byte[] m : replay) {
      if (number > last) {
        missed.add(new Logged(number, m));
      }
      number++;
    }
    return missed;
  }

  /** True once the answer has been taken by a writer (it is in the replay log, or was written). */
  synchronized boolean answerLogged() {
    return answerLogged;
  }

  /** Gives back every byte this exchange holds (it is being forgotten). */
  synchronized void discard() {
    discarded = true;
    List<Event> rest = new ArrayList<>();
    events.drainTo(rest);
    events.add(WAKE); // a writer waiting in take() notices and ends
    for (Event e : rest) {
      if (e instanceof Event.Related related && e != WAKE) {
        budget.giveBack(related.message().length);
      }
    }
    queued = 0;
    replay.forEach(m -> budget.giveBack(m.length));
    replay.clear();
    firstKept = nextNumber;
  }
}
