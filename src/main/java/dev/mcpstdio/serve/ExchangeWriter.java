package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import java.io.IOException;
import java.time.Duration;
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
      events.message(body(exchange, outcome));
      events.close();
    } catch (IOException e) {
      session.log.debug("client left before the answer to " + exchange.id);
    }
    callback.succeeded();
    return outcome;
  }

  private Exchange.Outcome json(Exchange exchange, Response response, Callback callback) throws InterruptedException {
    Exchange.Outcome outcome = await(exchange, System.nanoTime() + timeoutNanos);
    reply(exchange, outcome, response, callback);
    return outcome;
  }

  private Exchange.Outcome stream(Exchange exchange, Response response, Callback callback) throws InterruptedException {
    long deadline = System.nanoTime() + timeoutNanos;
    EventStream events = new EventStream(response);
    boolean clientThere = true;
    try {
      events.open();
    } catch (IOException e) {
      clientThere = false;
      session.abandoned(exchange);
    }
    try {
      while (clientThere) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          timedOut(exchange); // settles the outcome: Done is queued behind any related messages
          left = keepAliveMillis;
        }
        Exchange.Event event = exchange.next(Math.min(left, keepAliveMillis));
        try {
          switch (event) {
            case null -> events.keepAlive();
            case Exchange.Event.Related related -> events.message(related.message());
            case Exchange.Event.Done done -> {
              Exchange.Outcome outcome = exchange.outcome().join();
              if (!(outcome instanceof Exchange.Outcome.Cancelled)) { // a cancelled request gets no answer
                events.message(body(exchange, outcome));
              }
              events.close();
              return outcome;
            }
          }
        } catch (IOException e) {
          clientThere = false;
          session.abandoned(exchange);
          session.log.debug("client left the stream for " + exchange.id + "; its answer will be dropped");
        }
      }
      return await(exchange, deadline);
    } finally {
      callback.succeeded();
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

  private static byte[] body(Exchange exchange, Exchange.Outcome outcome) {
    return switch (outcome) {
      case Exchange.Outcome.Answered a -> a.response();
      case Exchange.Outcome.Failed f -> JsonRpcErrors.error(exchange.id, ErrorCodes.UPSTREAM_ERROR, f.message());
      case Exchange.Outcome.Cancelled c -> JsonRpcErrors.error(exchange.id, ErrorCodes.UPSTREAM_ERROR, "cancelled by the client");
    };
  }

  private static void reply(Exchange exchange, Exchange.Outcome outcome, Response response, Callback callback) {
    int status = outcome instanceof Exchange.Outcome.Failed f ? f.status() : 200;
    Replies.json(response, callback, status, body(exchange, outcome));
  }
}
