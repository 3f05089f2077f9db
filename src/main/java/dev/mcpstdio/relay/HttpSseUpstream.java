package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.jsonrpc.StreamingScanner;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.wire.SseDecoder;
import dev.mcpstdio.wire.SseEvent;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The HTTP+SSE (2024-11-05) transport, client side.
 *
 * <p>A GET event stream carries everything the server says; its first event, {@code endpoint},
 * names where each message is POSTed (resolved against the stream's URL). POSTs are answered 2xx
 * with no message: answers arrive on the stream and reach the host through {@link Inbound}, and
 * {@link #post} waits for its requests' answers there, so that a call's outcome carries its answer
 * as on Streamable HTTP. When the stream is lost, every request still waiting can no longer be
 * answered: each {@code post} waiting for one returns that ({@link Outcome.Kind#NO_ANSWER}), and
 * the stream is reopened
 * after the {@link RetryPolicy} reconnect schedule (1 s after a stream that worked, doubling to
 * 30 s while reopening fails); POSTs wait for the new endpoint.
 *
 * <p>On this transport the session is the stream: a new stream is a new, uninitialised session
 * on the server. So after a reconnect the host's own handshake is replayed (a relay-owned id; its
 * answer stays internal) before any waiting POST goes to the new endpoint.
 *
 * <p>An endpoint on another origin is refused when credentials would travel with the POSTs to
 * it. Silence on the stream longer than {@code --sse-read-timeout} counts as a loss.
 */
final class HttpSseUpstream {

  private final HttpClient client;
  private final RelayConfig config;
  private final Log log;
  private final Inbound inbound;
  /**
   * Requests whose answers are awaited on the stream: the id as sent (an alias for a reused id) ->
   * its answer. At most one entry per request in flight (the relay's admission bounds those).
   */
  private final Map<JsonRpcId, AnswerWait> awaited = new ConcurrentHashMap<>();

  /**
   * How long the stream waits for a single request's answer to be written before it reads on:
   * what the server sent after the answer must not overtake it on the way to the host, but a
   * stalled exchange must not stall the stream for long either.
   */
  static final Duration ANSWER_HANDOFF = Duration.ofSeconds(1);

  /**
   * A post's wait for one answer on the stream. A single request's answer is handed to its post,
   * which carries it up the chain as its outcome; the stream reads on once it was written (or
   * after {@link #ANSWER_HANDOFF}). A batch's answers go to the host from the stream as they come.
   */
  static final class AnswerWait extends CompletableFuture<JsonRpcMessage.Response> implements Outcome.AnswerTail {
    final boolean single;
    private final java.util.concurrent.CountDownLatch written = new java.util.concurrent.CountDownLatch(1);

    AnswerWait(boolean single) {
      this.single = single;
    }

    @Override
    public void answerWritten() {
      written.countDown();
    }

    @Override
    public void awaitEnd() {}

    void awaitWritten() throws InterruptedException {
      written.await(ANSWER_HANDOFF.toMillis(), TimeUnit.MILLISECONDS);
    }
  }
  private final Sleeper sleeper;
  private final AtomicReference<CompletableFuture<URI>> endpoint = new AtomicReference<>(new CompletableFuture<>());
  private final AtomicLong lastActivity = new AtomicLong(System.nanoTime());
  private volatile boolean stopped;
  private volatile InputStream current;
  private Thread reader;
  private final InitializeMemory memory;
  private volatile boolean hadEndpoint;
  private volatile JsonRpcId replayId; // the handshake being replayed
  private volatile CompletableFuture<Void> replayAnswered = new CompletableFuture<>();

  private final UpstreamRequests requests; // the stream and the POSTs carry the relay's own login, if any

  HttpSseUpstream(HttpClient client, UpstreamRequests requests, RelayConfig config, Log log, Inbound inbound,
      Sleeper sleeper, InitializeMemory memory) {
    this.requests = requests;
    this.memory = memory;
    this.client = client;
    this.config = config;
    this.log = log;
    this.inbound = inbound;
    this.sleeper = sleeper;
  }

  /**
   * Opens the stream and waits for its endpoint.
   *
   * @return null when ready, else why the relay cannot start
   */
  String start() throws InterruptedException {
    stopped = false; // auto may try again after a failed attempt
    endpoint.set(new CompletableFuture<>());
    CompletableFuture<String> firstFailure = new CompletableFuture<>();
    reader = Thread.ofVirtual().name("mcp-stdio-sse").start(() -> readLoop(firstFailure));
    try {
      CompletableFuture.anyOf(endpoint.get(), firstFailure).get(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      stop();
      return "no endpoint event from " + Relay.origin(config.url()) + " within " + config.connectTimeout().toSeconds() + " s";
    } catch (java.util.concurrent.ExecutionException e) {
      stop();
      return e.getCause().getMessage();
    }
    if (firstFailure.isDone()) {
      stop();
      return firstFailure.getNow("the event stream failed");
    }
    return null;
  }

  void stop() {
    stopped = true;
    closeCurrent();
    if (reader != null) {
      reader.interrupt();
    }
  }

  private void readLoop(CompletableFuture<String> firstFailure) {
    boolean connected = false;
    RetryPolicy.Reconnects reconnects = RetryPolicy.reconnects();
    while (!stopped) {
      String loss;
      try {
        HttpResponse<InputStream> response = client.send(streamRequest(), HttpResponse.BodyHandlers.ofInputStream());
        if (response.statusCode() != 200) {
          response.body().close();
          loss = "the event stream was refused with HTTP " + response.statusCode();
          if (!connected) {
            firstFailure.complete(loss);
            return;
          }
        } else {
          connected = true;
          reconnects.worked();
          loss = read(response.body());
        }
      } catch (IOException e) {
        loss = "the event stream failed: " + e.getMessage();
        if (!connected) {
          firstFailure.complete("cannot reach " + Relay.origin(config.url()) + ": " + e.getMessage());
          return;
        }
      } catch (InterruptedException e) {
        return;
      } catch (RuntimeException | Error e) { // whatever it was, the stream is gone: say so and reconnect
        loss = "the event stream failed: " + e;
        if (!connected) {
          firstFailure.complete(loss);
          return;
        }
      }
      if (stopped) {
        return;
      }
      Duration wait = reconnects.failed();
      lost(loss, wait);
      try {
        sleeper.sleep(wait);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Reads one stream to its end; returns why it ended. */
  private String read(InputStream body) {
    current = body;
    lastActivity.set(System.nanoTime());
    StreamingScanner scanner = new StreamingScanner();
    SseDecoder decoder = new SseDecoder(config.maxMessageSize(), scanner, event -> onEvent(event, scanner.layout()));
    Thread watchdog = config.streamReadTimeout().isZero() ? null : Thread.ofVirtual().start(() -> watch(body));
    byte[] buffer = new byte[16 * 1024];
    try (body) {
      for (int n; (n = body.read(buffer)) > 0; ) {
        lastActivity.set(System.nanoTime());
        decoder.feed(buffer, 0, n);
      }
      decoder.finish();
      return "the server closed the event stream";
    } catch (IOException | RuntimeException e) {
      return stopped ? "stopped" : "the event stream failed: " + e.getMessage();
    } finally {
      current = null;
      if (watchdog != null) {
        watchdog.interrupt();
      }
    }
  }

  /** Closes a stream that stayed silent past {@code --sse-read-timeout}. */
  private void watch(InputStream body) {
    long timeout = config.streamReadTimeout().toNanos();
    try {
      while (current == body) {
        long idle = System.nanoTime() - lastActivity.get();
        if (idle > timeout) {
          log.warn("no data on the event stream for " + config.streamReadTimeout().toSeconds() + " s; reconnecting");
          closeCurrent();
          return;
        }
        Thread.sleep(Math.max(1, TimeUnit.NANOSECONDS.toMillis(timeout - idle))); // until the silence would reach the bound
      }
    } catch (InterruptedException e) {
      // the stream ended first
    }
  }

  private void closeCurrent() {
    InputStream in = current;
    if (in != null) {
      try {
        in.close();
      } catch (IOException e) {
        // closing is all that was asked
      }
    }
  }

  private void lost(String reason, Duration wait) {
    NoAnswer lostWith = new NoAnswer("SSE stream disconnected before the response arrived (" + reason + "); please retry");
    awaited.values().forEach(answer -> answer.completeExceptionally(lostWith)); // their posts say so
    CompletableFuture<URI> old = endpoint.getAndSet(new CompletableFuture<>()); // after: a waiter sees it lost
    old.cancel(false);
    log.warn(reason + "; reconnecting in " + wait.toMillis() + " ms");
  }

  /** @param layout what the scanner found while the event's data arrived, or null */
  private void onEvent(SseEvent event, MessageLayout layout) {
    String type = event.type();
    if (type.equals("endpoint")) {
      URI resolved = resolve(new String(event.data(), StandardCharsets.UTF_8));
      if (resolved != null) {
        log.debug("endpoint " + resolved);
        CompletableFuture<URI> target = endpoint.get();
        if (hadEndpoint && memory.replayInitialize(null) != null) {
          // a new session on the server: replay the handshake first (off this thread, which must
          // go on reading to see the answer)
          Thread.ofVirtual().name("mcp-stdio-sse-reinit").start(() -> reinitialize(resolved, target));
        } else {
          hadEndpoint = true;
          target.complete(resolved);
        }
      }
    } else if (type.equals("message")) {
      try {
        JsonRpcMessage message = JsonRpcCodec.parseReceived(event.data(), layout);
        if (message instanceof JsonRpcMessage.Response r && r.id() != null && r.id().equals(replayId)) {
          replayAnswered.complete(null); // the replayed handshake's answer: internal
          return;
        }
        if (handedOver(message)) {
          return;
        }
        inbound.accept(message); // first: a batch's answer is on its way to the host before its post returns
        answered(message);
      } catch (MalformedMessageException e) {
        log.warn("the server sent an event that is not JSON-RPC (" + e.getMessage() + "); dropped");
      }
    }
  }

  /** Replays the host's handshake on a new server session, then lets waiting POSTs through. */
  private void reinitialize(URI target, CompletableFuture<URI> ready) {
    JsonRpcMessage.Request init = memory.replayInitialize(null);
    CompletableFuture<Void> answered = new CompletableFuture<>();
    replayAnswered = answered;
    replayId = init.id();
    try {
      if (postRaw(target, init.bytes()) / 100 == 2) {
        answered.get(config.readTimeout().toMillis(), TimeUnit.MILLISECONDS);
        postRaw(target, memory.replayInitialized().bytes());
        log.info("reconnected: the server's new session was initialized again");
      } else {
        log.warn("reconnected, but the server refused the replayed initialize");
      }
    } catch (IOException | java.util.concurrent.ExecutionException | TimeoutException e) {
      log.warn("reconnected, but initializing the new session failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      replayId = null;
      ready.complete(target); // waiting POSTs go on either way; the server says what it thinks of them
    }
  }

  private int postRaw(URI target, byte[] body) throws IOException, InterruptedException {
    HttpRequest request = requests.endpointPost(target, body, null).build();
    return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /** The endpoint against the stream's URL, or null (logged) when it must not be used. */
  private URI resolve(String data) {
    URI resolved;
    try {
      resolved = config.url().resolve(data.trim());
    } catch (IllegalArgumentException e) {
      log.warn("the server's endpoint event is not a URL; ignored");
      return null;
    }
    if (!"http".equalsIgnoreCase(resolved.getScheme()) && !"https".equalsIgnoreCase(resolved.getScheme())) {
      log.warn("the server's endpoint is not http(s); ignored");
      return null;
    }
    if (!sameOrigin(resolved, config.url()) && (!config.headers().isEmpty() || requests.authorization() != null)) {
      log.warn("the server named an endpoint on another origin (" + Relay.origin(resolved)
          + "); refused, since the relay's headers (credentials) would go with it");
      return null;
    }
    return resolved;
  }

  static boolean sameOrigin(URI a, URI b) {
    return a.getScheme().equalsIgnoreCase(b.getScheme())
        && a.getHost() != null && a.getHost().equalsIgnoreCase(b.getHost())
        && port(a) == port(b);
  }

  private static int port(URI u) {
    if (u.getPort() >= 0) {
      return u.getPort();
    }
    return u.getScheme().toLowerCase(Locale.ROOT).equals("https") ? 443 : 80;
  }

  private HttpRequest streamRequest() throws InterruptedException {
    Authorization a = requests.authorization();
    if (a != null) {
      try {
        a.header(); // the stream comes first on this transport: sign in before opening it
      } catch (Authorization.Unavailable e) {
        log.warn("not signed in to the server: " + e.getMessage());
      }
    }
    return requests.eventStream().build();
  }

  /**
   * Hands a single request's answer to the post waiting for it, and waits (bounded) until it was
   * written; false when no single request waits for it (a batch's member, a late or stray answer:
   * those go to the router).
   */
  private boolean handedOver(JsonRpcMessage message) {
    if (!(message instanceof JsonRpcMessage.Response r) || r.id() == null) {
      return false;
    }
    AnswerWait waiting = awaited.get(r.id());
    if (waiting == null || !waiting.single || !waiting.complete(r)) {
      return false;
    }
    try {
      waiting.awaitWritten();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt(); // stopping: the read loop sees it
    }
    return true;
  }

  /** Completes the wait of each post whose request {@code message} answers. */
  private void answered(JsonRpcMessage message) {
    List<JsonRpcMessage> members = message instanceof JsonRpcMessage.Batch b ? b.members() : List.of(message);
    for (JsonRpcMessage m : members) {
      if (m instanceof JsonRpcMessage.Response r && r.id() != null) {
        AnswerWait waiting = awaited.get(r.id());
        if (waiting != null) {
          waiting.complete(r);
        }
      }
    }
  }

  /**
   * The host cancelled the request that travels as {@code id}: its post stops waiting for an
   * answer (the server sends none, and the request's slot is freed at once).
   */
  void cancelled(JsonRpcId id) {
    AnswerWait waiting = id == null ? null : awaited.get(id);
    if (waiting != null) {
      waiting.completeExceptionally(new NoAnswer("cancelled by the host")); // settled in silence (Relay.settleOpen)
    }
  }

  /** Why an awaited answer will never come (the stream was lost, or the host cancelled): the error's words. */
  private static final class NoAnswer extends RuntimeException {
    NoAnswer(String message) {
      super(message, null, false, false);
    }
  }

  /**
   * POSTs one message to the current endpoint (waiting for one while the stream reconnects),
   * unless {@code stillWanted} says otherwise once the endpoint is known, and waits for the answers
   * of its requests on the stream, up to {@code --timeout-read} after the POST.
   */
  Outcome post(Call call, java.util.function.BooleanSupplier stillWanted) throws InterruptedException {
    Map<JsonRpcId, AnswerWait> mine = new LinkedHashMap<>();
    boolean single = call.message() instanceof JsonRpcMessage.Request;
    for (JsonRpcMessage m : call.message() instanceof JsonRpcMessage.Batch b ? b.members() : List.of(call.message())) {
      if (m instanceof JsonRpcMessage.Request r) {
        AnswerWait answer = new AnswerWait(single);
        mine.put(r.id(), answer);
        awaited.put(r.id(), answer); // before the POST: the answer may come on the stream before the POST's reply
      }
    }
    try {
      Outcome sent = send(call, stillWanted, mine);
      if (!(sent instanceof Outcome.Accepted accepted) || mine.isEmpty()) {
        return sent;
      }
      return awaitAnswers(accepted, mine);
    } finally {
      mine.forEach(awaited::remove);
      // Whatever did not come is not handed to anybody any more (a late answer goes to the router).
      mine.values().forEach(w -> w.completeExceptionally(new NoAnswer("no longer awaited")));
    }
  }

  private Outcome send(Call call, java.util.function.BooleanSupplier stillWanted,
      Map<JsonRpcId, AnswerWait> mine) throws InterruptedException {
    URI target;
    try {
      target = endpoint.get().get(config.readTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | java.util.concurrent.CancellationException | java.util.concurrent.ExecutionException e) {
      call.handover().complete(null);
      Outcome lost = lostWhileWaiting(mine);
      return lost != null ? lost
          : new Outcome.Failed("SSE endpoint unavailable (the event stream is reconnecting)", false, false, true);
    }
    if (!stillWanted.getAsBoolean()) {
      call.handover().complete(null);
      return Outcome.Failed.of(Outcome.Kind.TRANSPORT, "already answered");
    }
    // the login AuthLink chose for this attempt, if any
    HttpRequest request = requests.endpointPost(target, call.body(), call.headers().get("authorization")).build();
    try {
      HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
      call.handover().complete(null);
      int status = response.statusCode();
      return status / 100 == 2
          ? new Outcome.Accepted(status, response.headers())
          : new Outcome.Refused(status, response.headers(), null);
    } catch (IOException e) {
      call.handover().complete(null);
      return new Outcome.Failed(e.getMessage() == null ? e.toString() : e.getMessage(), true, false, true);
    }
  }

  /** The stream was lost while the message waited for an endpoint: its requests will never be answered. */
  private static Outcome lostWhileWaiting(Map<JsonRpcId, AnswerWait> mine) {
    for (AnswerWait answer : mine.values()) {
      if (answer.isCompletedExceptionally()) {
        return noAnswer(answer);
      }
    }
    return null;
  }

  /**
   * Waits for every answer, all within one {@code --timeout-read}: a single request's outcome then
   * carries its answer; a batch's is {@code accepted} (each member's answer went to the host).
   */
  private Outcome awaitAnswers(Outcome.Accepted accepted, Map<JsonRpcId, AnswerWait> mine)
      throws InterruptedException {
    long deadline = System.nanoTime() + config.readTimeout().toNanos();
    JsonRpcMessage.Response last = null;
    AnswerWait lastWait = null;
    for (AnswerWait answer : mine.values()) {
      lastWait = answer;
      try {
        last = answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        String why = "no response from the server within " + config.readTimeout().toSeconds() + " s (--timeout-read)";
        if (answer.completeExceptionally(new NoAnswer(why))) { // from now on the stream hands it to nobody
          return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, why);
        }
        last = answer.getNow(null); // it came just now
        if (last == null) {
          return noAnswer(answer);
        }
      } catch (java.util.concurrent.ExecutionException e) {
        return noAnswer(answer);
      }
    }
    return lastWait != null && lastWait.single
        ? new Outcome.Delivered(accepted.status(), accepted.headers(), last, false, lastWait) : accepted;
  }

  /** The outcome of a wait that ended exceptionally: only ever with a {@link NoAnswer}. */
  private static Outcome noAnswer(CompletableFuture<JsonRpcMessage.Response> ended) {
    return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, ended.exceptionNow().getMessage());
  }
}
