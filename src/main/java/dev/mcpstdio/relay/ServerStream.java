package dev.mcpstdio.relay;

import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The GET stream on which the server sends what is not tied to a request: notifications such as
 * {@code list_changed}, and its own requests (sampling, elicitation, roots). Opened once the
 * session is initialized; a server that offers none answers 405 (some say 400, or 404 without a
 * session), and the relay then does without, quietly.
 *
 * <p>The stream is reopened whenever it ends: after the server's {@code retry:} delay (bounded to
 * 100 ms .. 5 min) or the {@link RetryPolicy} reconnect schedule (1 s doubling to 30 s while
 * attempts fail, or while streams end without a single message), resuming with {@code Last-Event-ID} when the server numbered its
 * events. A 404 means the session is gone: the stream waits for the session to be
 * re-established (by the next request's recovery) and starts afresh on the new one.
 */
final class ServerStream {

  private final Upstream upstream;
  private final SessionState session;
  private final Duration idleTimeout;
  private final Log log;
  private final Sleeper sleeper;
  private volatile boolean stopped;
  private volatile Thread thread;
  private final CompletableFuture<Void> established = new CompletableFuture<>();

  ServerStream(Upstream upstream, SessionState session, Duration idleTimeout, Sleeper sleeper, Log log) {
    this.upstream = upstream;
    this.session = session;
    this.idleTimeout = idleTimeout;
    this.sleeper = sleeper;
    this.log = log;
  }

  /** Starts the stream once; later calls do nothing. */
  synchronized void start() {
    if (thread == null && !stopped) {
      thread = Thread.ofVirtual().name("mcp-stdio-get-stream").start(this::run);
    }
  }

  /**
   * Waits until the first GET has an answer (a stream, or a refusal), so that a server request
   * prompted by the caller's message has a stream to travel on. Returns at once when the stream
   * was never started. Some servers send no response headers until their first event (the Java
   * SDK's servlet transport does), so the wait is bounded, and after one bounded wait the stream
   * counts as established: no later message waits again.
   */
  void awaitEstablished(Duration bound) throws InterruptedException {
    if (thread == null || established.isDone()) {
      return;
    }
    try {
      established.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      established.complete(null);
    }
  }

  void stop() {
    stopped = true;
    established.complete(null);
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  /** The session changed: drop the current stream so the next one uses the new session. */
  void sessionChanged() {
    Thread t = thread;
    if (t != null) {
      t.interrupt();
    }
  }

  private void run() {
    while (!stopped) {
      Duration wait;
      try {
        wait = cycle();
      } catch (InterruptedException e) {
        if (stopped) {
          return;
        }
        continue; // the session changed: reopen on the new one
      } catch (RuntimeException e) {
        log.warn("GET stream failed: " + e);
        wait = reconnects.failed();
      }
      if (wait == null) {
        return;
      }
      try {
        sleeper.sleep(wait);
      } catch (InterruptedException e) {
        if (stopped) {
          return;
        }
      }
    }
  }


  private final RetryPolicy.Reconnects reconnects = RetryPolicy.reconnects();
  private String lastEventId;
  private long generation = -1;

  /** Opens the stream once and reads it to its end; returns the wait before the next, or null. */
  private Duration cycle() throws InterruptedException {
    SessionState.Snapshot s = session.current();
    if (s.generation() != generation) {
      lastEventId = null; // event ids belong to the old session's stream
      generation = s.generation();
    }
    Map<String, String> headers = new java.util.LinkedHashMap<>(SessionLink.sessionHeaders(s));
    Authorization a = upstream.requests().authorization(); // a 401 renews it (refresh, else sign-in) before reopening
    // The login this stream is opened with, fixed now: a 401 must renew this one, not whichever
    // the relay holds by the time the refusal arrives (that may be a newer, good one).
    String sent = a == null ? null : a.current();
    if (sent != null) {
      headers.put("authorization", sent);
    }
    Upstream.StreamResult result =
        upstream.openStream(headers, lastEventId, idleTimeout, null, status -> established.complete(null));
    established.complete(null);
    int status = result.status();
    if (status == 405 || status == 400 || (status == 404 && s.sessionId() == null)) {
      log.debug("server offers no GET stream (HTTP " + status + "); continuing without it");
      return null;
    }
    if (status == 404) {
      session.awaitChange(s.generation(), Duration.ofMinutes(5).toMillis());
      return Duration.ZERO;
    }
    if (status == 200 && result.body() == null) {
      log.debug("server answered GET without an event stream; continuing without it");
      return null;
    }
    if (status == 401 && sent != null) {
      try {
        String renewed = a.renew(sent, 401, List.of());
        // at once only with a different login; the same one refused again waits like any failure
        return renewed != null && !renewed.equals(sent) ? Duration.ZERO : reconnects.failed();
      } catch (Authorization.Unavailable e) {
        log.warn("the GET stream was refused (HTTP 401) and renewing the login failed: " + e.getMessage());
        return reconnects.failed();
      }
    }
    if (status != 200) {
      log.debug("GET stream unavailable (" + (status < 0 ? result.failure() : "HTTP " + status) + ")");
      return reconnects.failed();
    }
    if (result.body().lastEventId() != null) {
      lastEventId = result.body().lastEventId();
    }
    if (result.body().failure() != null) {
      log.debug("GET stream ended: " + result.body().failure());
    }
    if (result.delivered() == 0) {
      // A stream that ends without a single message would otherwise be reopened in a hot loop.
      return max(reconnects.failed(), RetryPolicy.serverRetry(result.body().retryMillis(), Duration.ZERO));
    }
    reconnects.worked();
    return Duration.ofMillis(RetryPolicy.serverRetry(result.body().retryMillis(), RetryPolicy.FIRST_RECONNECT));
  }

  private static Duration max(Duration a, long millis) {
    return a.toMillis() >= millis ? a : Duration.ofMillis(millis);
  }

}
