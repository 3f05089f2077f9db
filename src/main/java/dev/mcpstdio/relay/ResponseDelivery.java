package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Routes the messages of one Streamable HTTP exchange (its POST's reply and the GETs that resume
 * it). The call's own answer is kept for the call's outcome, never sent on from here: it travels
 * up the chain, and the top of the chain writes it. Everything else (progress, log messages, the
 * server's requests) goes to the inbound router as it arrives, except what arrives after the
 * answer and before the answer was written: that waits, in order, until {@link #answerWritten},
 * so the host sees the server's order.
 *
 * <p>What waits is bounded by time, not count: the exchange writes the answer as soon as the
 * chain returns it, and whatever ends the exchange releases the rest ({@code Relay} calls
 * {@link #answerWritten} on every delivered outcome before the exchange ends).
 */
final class ResponseDelivery implements Outcome.AnswerTail {

  private final JsonRpcId callId; // null: no answer of its own to keep (a batch, a notification, the GET stream)
  private final boolean expectsAnswer;
  private final Inbound inbound;
  private final Log log;
  private final AtomicBoolean answered = new AtomicBoolean();
  private volatile Response answer; // null again once written: the HTTP client may keep this delivery alive longer
  private final CompletableFuture<Void> arrived = new CompletableFuture<>();
  private final CompletableFuture<Void> ended = new CompletableFuture<>();
  private final AtomicBoolean emitted = new AtomicBoolean();
  private final AtomicInteger count = new AtomicInteger();
  private final Duration answeredGrace;
  private List<JsonRpcMessage> behind = new ArrayList<>(); // guarded by this; null once the answer is written
  volatile boolean eventStream;
  volatile ResponseReader reader;
  /** The budget hold of the exchange this delivery belongs to (made on its thread), or null. */
  final MessageBudget.Hold exchangeHold;

  /**
   * @param call the call whose reply this is, or null for the GET stream
   * @param answeredGrace how long a stream may stay open and silent after carrying the answer
   */
  ResponseDelivery(Call call, Inbound inbound, Log log, MessageBudget budget, Duration answeredGrace) {
    this.expectsAnswer = call != null && Upstream.expectsAnswer(call);
    this.callId = call == null ? null : call.requestId();
    this.inbound = inbound;
    this.log = log;
    this.answeredGrace = answeredGrace;
    this.exchangeHold = budget.exchangeHold();
    if (callId == null || call.internal()) {
      behind = null; // nothing is held back: no answer of its own for the host
    }
  }

  boolean expectsAnswer() {
    return expectsAnswer;
  }

  /** The call's answer, once it came (and until it was written). */
  Response answer() {
    return answer;
  }

  /** Completes the moment the call's answer arrives. */
  CompletableFuture<Void> arrived() {
    return arrived;
  }

  /** Whether any message other than the call's answer went on to the host. */
  boolean emitted() {
    return emitted.get();
  }

  /** How many usable messages this exchange carried (the answer included). */
  int count() {
    return count.get();
  }

  /** The response (and any resumption of it) has ended. */
  void ended() {
    ended.complete(null);
  }

  @Override
  public void answerWritten() {
    answer = null; // the outcome has it
    synchronized (this) {
      if (behind == null) {
        return;
      }
      // Under the lock: a message arriving meanwhile waits for these, then goes straight on.
      for (JsonRpcMessage message : behind) {
        inbound.accept(message);
      }
      behind = null;
    }
  }

  @Override
  public void awaitEnd() throws InterruptedException {
    try {
      ended.get();
    } catch (java.util.concurrent.ExecutionException e) {
      throw new IllegalStateException(e); // never: it only completes normally
    }
  }

  /**
   * Routes one message; returns false when it was not a usable JSON-RPC message.
   *
   * @param layout what a scanner found while the message arrived, or null
   */
  boolean deliver(byte[] data, MessageLayout layout) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parseReceived(data, layout);
    } catch (MalformedMessageException e) {
      log.warn("dropped a malformed message from upstream: " + e.getMessage());
      return false;
    }
    if (message instanceof JsonRpcMessage.Invalid invalid) {
      log.warn("dropped an invalid JSON-RPC message from upstream: " + invalid.reason());
      return false;
    }
    count.incrementAndGet();
    if (callId != null && message instanceof Response r && callId.equals(r.id()) && answered.compareAndSet(false, true)) {
      answer = r;
      ResponseReader current = reader;
      if (current != null && eventStream) {
        current.answered(answeredGrace);
      }
      arrived.complete(null);
      return true;
    }
    synchronized (this) {
      if (behind != null && answered.get()) {
        behind.add(message); // after the answer, which is not written yet
        emitted.set(true);
        return true;
      }
    }
    emitted.set(true);
    inbound.accept(message);
    return true;
  }
}
