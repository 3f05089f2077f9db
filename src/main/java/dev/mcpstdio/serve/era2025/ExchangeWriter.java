package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.Replies;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Answers one HTTP request from its {@link Exchange}: as JSON once the outcome is known, or as an
 * event stream that carries the related messages as they come and the outcome last.
 *
 * <p>Every request gets exactly one answer: the child's response, or the gateway's JSON-RPC error
 * (503 when the child died, 504 after the backend timeout, at which point the child is also told
 * to cancel). A client that disconnects mid-stream stops receiving, but the owner still waits for
 * the outcome (bounded by the timeout) so the exchange is released and never leaks.
 */
final class ExchangeWriter {

  /** How long a client should wait before resuming a dropped stream (the SSE {@code retry} field). */
  static final long RETRY_MILLIS = 1000;

  private final Session session;
  private final long timeoutNanos;
  private final long keepAliveMillis;

  ExchangeWriter(Session session, Duration timeout, long keepAliveMillis) {
    this.session = session;
    this.timeoutNanos = timeout.toNanos();
    this.keepAliveMillis = keepAliveMillis;
  }

  /** Answers for the request that created the exchange, then releases it. */
  Exchange.Outcome own(Exchange exchange, Request request, Response response, Callback callback)
      throws InterruptedException {
    try {
      request.addIdleTimeoutListener(timeout -> false); // the backend timeout governs, not the idle timeout
      return exchange.streaming ? stream(exchange, response, callback) : json(exchange, response, callback);
    } finally {
      session.release(exchange);
    }
  }

  /** Answers a duplicate of a request in flight with the same outcome (only the outcome). */
  Exchange.Outcome join(Exchange exchange, boolean streaming, Request request, Response response,
      Callback callback) throws InterruptedException {
    request.addIdleTimeoutListener(timeout -> false);
    Exchange.Outcome outcome = await(exchange, System.nanoTime() + timeoutNanos);
    if (!streaming) {
      reply(exchange, outcome, response, callback);
      return outcome;
    }
    EventStream events = new EventStream(response);
    try {
      events.open();
      events.last(exchange.answer(outcome), null);
    } catch (IOException e) {
      session.log.debug("client left before the answer to " + exchange.id);
      callback.failed(e);
      return outcome;
    }
    callback.succeeded();
    return outcome;
  }

  private Exchange.Outcome json(Exchange exchange, Response response, Callback callback) throws InterruptedException {
    Exchange.Outcome outcome = await(exchange, exchange.deadlineNanos);
    reply(exchange, outcome, response, callback);
    return outcome;
  }

  private Exchange.Outcome stream(Exchange exchange, Response response, Callback callback) throws InterruptedException {
    EventStream events = new EventStream(response);
    IOException failure = null;
    try {
      try {
        try {
          events.openPrimed(exchange.eventId(0), RETRY_MILLIS);
        } catch (IOException e) {
          exchange.detach(0);
          throw e;
        }
        pump(exchange, events, 0);
      } catch (IOException e) {
        failure = e;
        session.log.debug("client left the stream for " + exchange.id + "; kept for it to resume");
      }
      return await(exchange, exchange.deadlineNanos); // settled by now unless the client left early
    } finally {
      Replies.complete(callback, failure);
    }
  }

  /**
   * Resumes a stream for a client that reconnected with {@code Last-Event-ID}: takes the stream
   * over, replays what followed that event, then carries on as its writer.
   *
   * @return false (answering nothing) when the events after {@code lastEvent} are not all kept
   */
  boolean resume(Exchange exchange, long lastEvent, Response response, Callback callback) throws InterruptedException {
    Exchange.Resumption takeover = exchange.resumeFrom(lastEvent);
    if (takeover == null) {
      return false;
    }
    int generation = takeover.generation();
    List<Exchange.Logged> missed = takeover.missed();
    EventStream events = new EventStream(response);
    IOException failure = null;
    try {
      events.open();
      for (Exchange.Logged logged : missed) {
        events.message(logged.message(), exchange.eventId(logged.number()));
      }
      if (exchange.answerLogged()) {
        events.close(); // the answer was among the replayed events: nothing more will come
        exchange.deliveredCleanly();
      } else {
        pump(exchange, events, generation);
      }
    } catch (IOException e) {
      failure = e;
      exchange.detach(generation);
      session.log.debug("client left the resumed stream for " + exchange.id);
    } finally {
      if (exchange.wasDeliveredCleanly()) {
        session.forget(exchange); // delivered: nothing left to resume (if it was lingering)
      }
      Replies.complete(callback, failure);
    }
    return true;
  }

  /**
   * Writes the exchange's events until its answer, while this writer's generation is current.
   *
   * @throws IOException when the client's connection fails
   */
  private void pump(Exchange exchange, EventStream events, int generation) throws IOException, InterruptedException {
    try {
      while (true) {
        long left = TimeUnit.NANOSECONDS.toMillis(exchange.deadlineNanos - System.nanoTime());
        if (left <= 0) {
          timedOut(exchange); // settles the outcome: Done is queued behind any related messages
          left = keepAliveMillis;
        }
        switch (exchange.take(Math.min(left, keepAliveMillis), generation)) {
          case null -> events.keepAlive();
          case Exchange.Step.Send send -> {
            if (send.last()) {
              events.last(send.message(), exchange.eventId(send.number()));
              exchange.deliveredCleanly();
              return;
            }
            events.message(send.message(), exchange.eventId(send.number()));
          }
          case Exchange.Step.End end -> { // cancelled by the client: no answer
            events.close();
            return;
          }
          case Exchange.Step.Superseded superseded -> {
            session.log.debug("a resuming client took over the stream for " + exchange.id);
            events.close();
            return;
          }
        }
      }
  
    } catch (IOException e) {
      exchange.detach(generation); // related messages for any running request go elsewhere now
      throw e;
    }
  }


  /** The outcome, or a 504 failure at the deadline (and the child told to cancel). */
  private Exchange.Outcome await(Exchange exchange, long deadline) throws InterruptedException {
    try {
      return exchange.outcome().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      timedOut(exchange);
      return exchange.outcome().join();
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    }
  }

  private void timedOut(Exchange exchange) {
    String why = "no response from the server within " + TimeUnit.NANOSECONDS.toSeconds(timeoutNanos) + " s";
    if (exchange.complete(new Exchange.Outcome.Failed(504, why))) {
      session.log.warn(exchange.request.method() + " (id " + exchange.id + "): " + why);
      if (!exchange.request.method().equals("initialize")) { // initialize must never be cancelled
        session.cancel(exchange.id, "timed out at the gateway");
      }
    }
  }

  private static void reply(Exchange exchange, Exchange.Outcome outcome, Response response, Callback callback) {
    int status = outcome instanceof Exchange.Outcome.Failed f ? f.status() : 200;
    Replies.json(response, callback, status, exchange.answer(outcome));
  }
}
