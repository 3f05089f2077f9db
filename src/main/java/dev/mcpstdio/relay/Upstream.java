package dev.mcpstdio.relay;

import dev.mcpstdio.net.IdleWatchdog;
import dev.mcpstdio.Version;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.wire.Bytes;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntConsumer;
import javax.net.ssl.SSLHandshakeException;

/**
 * The Streamable HTTP transport: one POST per message, JSON or event-stream replies; in the 2025
 * era the GET stream, resumption with {@code Last-Event-ID} and DELETE; in the 2026 era ({@link
 * #post2026}, {@link #listen}) POSTs only, a cancel being the close of the request's response
 * stream ({@link #cancel2026}).
 *
 * <p>This is the bottom of the interceptor chain. It performs exactly one attempt per call (plus
 * the GETs that resume that attempt's event stream) and reports what happened as an {@link
 * Outcome}. Retrying and session recovery belong to the links above it; no link writes the
 * host's error either: once the chain returns with the request still open, the relay turns the
 * outcome into one JSON-RPC error ({@code UpstreamErrors}, called from {@code Relay}).
 */
final class Upstream {

  /** How long a request's stream may stay open and silent after carrying the answer. */
  static final Duration ANSWERED_GRACE = Duration.ofSeconds(1);


  private final HttpClient client;
  private final RelayConfig config;
  private final Log log;
  private final IdleWatchdog.Sweeper sweeper;
  private final Inbound inbound;
  private final Sleeper sleeper;
  private final Set<ResponseReader> active = ConcurrentHashMap.newKeySet();
  private final UpstreamRequests requests;
  private final MessageBudget budget;

  Upstream(
      HttpClient client,
      RelayConfig config,
      Log log,
      IdleWatchdog.Sweeper sweeper,
      Inbound inbound,
      Sleeper sleeper) {
    this(client, new UpstreamRequests(config), config, log, sweeper, inbound, sleeper, MessageBudget.UNBOUNDED);
  }

  /**
   * @param requests the factory of every request this transport sends
   * @param budget what every body read from the server is charged to while it is held
   */
  Upstream(
      HttpClient client,
      UpstreamRequests requests,
      RelayConfig config,
      Log log,
      IdleWatchdog.Sweeper sweeper,
      Inbound inbound,
      Sleeper sleeper,
      MessageBudget budget) {
    this.budget = budget;
    this.client = client;
    this.sleeper = sleeper;
    this.config = config;
    this.log = log;
    this.sweeper = sweeper;
    this.inbound = inbound;
    this.requests = requests;
  }

  /** The factory every request of this transport is built by (and the relay's login with it). */
  UpstreamRequests requests() {
    return requests;
  }

  /**
   * Sends one attempt of {@code call} and reads its reply until the call's answer arrives (the
   * outcome carries it; the rest of the reply is its {@link Outcome.AnswerTail}) or the reply
   * ends.
   */
  Outcome post(Call call) throws InterruptedException {
    return post(call, requests::post, null, inbound, config.readTimeout());
  }

  /**
   * 2026 era: one POST of a call's body, as {@link #post}, with the headers of that era (no
   * session, no pinned routing headers). A request in flight can be cancelled ({@link
   * #cancel2026}): its response stream is closed, which is how a 2026 server learns of it, and the
   * outcome is {@link Outcome.Kind#NO_ANSWER} (a cancelled request ends in silence). A 2026-era
   * host's own {@code subscriptions/listen} is read as the relay's own listens are ({@link #listen}):
   * its silence is bounded by {@code --sse-read-timeout}, not {@code --timeout-read}.
   */
  Outcome post2026(Call call) throws InterruptedException {
    if ("subscriptions/listen".equals(call.method())) {
      return listen(call, inbound); // a 2026-era host's own listen lasts as long as the relay's do
    }
    return post2026(call, inbound, config.readTimeout());
  }

  /**
   * 2026 era: a {@code subscriptions/listen} request, whose reply stays open for as long as the
   * subscription lasts: every message on it goes to {@code sink}, and silence is bounded by
   * {@code --sse-read-timeout} rather than {@code --timeout-read}. Cancelled as any 2026-era
   * request is ({@link #cancel2026}): closing the stream ends the subscription.
   */
  Outcome listen(Call call, Inbound sink) throws InterruptedException {
    Duration idle = config.streamReadTimeout().isZero() ? UpstreamRequests.FOREVER : config.streamReadTimeout();
    return post2026(call, sink, idle);
  }

  private Outcome post2026(Call call, Inbound sink, Duration idle) throws InterruptedException {
    JsonRpcId id = call.requestId();
    if (id == null) {
      return post(call, requests::post2026, null, sink, idle);
    }
    if (cancelledByHost.test(id)) {
      // cancelled before it left (while the relay re-listed tools, waited to retry, ...): once
      // POSTed, nothing but closing its stream could stop it, so it is not sent at all
      call.handover().complete(null);
      log.debug("request " + id + " was cancelled by the host before it was sent; not sent");
      return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, "cancelled by the host");
    }
    Pending[] mine = new Pending[1];
    try {
      Outcome outcome = post(call, requests::post2026, pending -> {
        mine[0] = pending;
        open2026.put(id, pending);
        if (cancelledByHost.test(id)) {
          cancel2026(id); // the cancel came between the look above and now: it found nothing to close
        }
      }, sink, idle);
      // however the closed stream ended the exchange, a cancelled request ends in silence
      return mine[0] != null && mine[0].cancelled ? cancelledOutcome(outcome) : outcome;
    } catch (java.util.concurrent.CancellationException e) {
      return cancelledOutcome(null);
    } finally {
      open2026.remove(id, mine[0]);
    }
  }

  /** A cancelled request's outcome: its answer, should it have come first, else none (in silence). */
  private static Outcome cancelledOutcome(Outcome outcome) {
    if (outcome instanceof Outcome.Delivered d && d.answer() != null) {
      return outcome;
    }
    return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, "cancelled by the host");
  }

  /**
   * Whether the host cancelled the request that travels as an id (the relay's ledger decides):
   * a request cancelled before its POST started is not sent. Never, until the relay says.
   */
  private volatile java.util.function.Predicate<JsonRpcId> cancelledByHost = id -> false;

  /** How this transport learns that the host cancelled a 2026-era request not sent yet. */
  void cancelledBy(java.util.function.Predicate<JsonRpcId> test) {
    this.cancelledByHost = test;
  }

  /** Requests of the 2026 era in flight, by id as sent, while their POST lasts (bounded by the ledger). */
  private final Map<JsonRpcId, Pending> open2026 = new ConcurrentHashMap<>();

  /**
   * The host cancelled the 2026-era request that travels as {@code id}: its response stream is
   * closed. (A request whose POST has not started yet is stopped by the ledger: its answer, if
   * one ever comes, is held back as any cancelled request's.)
   */
  void cancel2026(JsonRpcId id) {
    Pending pending = open2026.remove(id);
    if (pending != null) {
      pending.cancelled = true;
      log.debug("request " + id + " cancelled by the host: closing its response stream");
      pending.abandon();
    }
  }

  private Outcome post(Call call, java.util.function.BiFunction<Map<String, String>, HttpRequest.BodyPublisher,
      HttpRequest.Builder> factory, Consumer<Pending> register, Inbound sink, Duration idle) throws InterruptedException {
    CompletableFuture<Void> sent = new CompletableFuture<>();
    sent.whenComplete((ok, error) -> call.handover().complete(null));
    HttpRequest.Builder request = factory.apply(call.headers(), new HandoverPublisher(call.body(), sent));
    if (idle != config.readTimeout()) {
      request.timeout(idle); // a listen: its response may wait for its first event
    }
    ResponseDelivery delivery = new ResponseDelivery(call, sink, log, budget, ANSWERED_GRACE);
    Pending pending = start(request.build(), delivery, idle, false, status -> {});
    if (register != null) {
      register.accept(pending);
    }
    try {
      Outcome early = answeredBeforeEnd(pending, delivery);
      if (early != null) {
        return early;
      }
      HttpResponse<ResponseReader.Result> response;
      try {
        response = pending.await();
      } catch (IOException e) {
        delivery.ended();
        if (outOfMemory(e)) { // the client itself could not allocate
          return Outcome.Failed.of(Outcome.Kind.OUT_OF_MEMORY, ResponseReader.OUT_OF_MEMORY);
        }
        boolean wasSent = sent.isDone() && !(e instanceof ConnectException) && !(e instanceof HttpConnectTimeoutException);
        sent.complete(null);
        // A certificate the relay does not trust stays untrusted: trying again cannot help.
        boolean retryable = !(e instanceof SSLHandshakeException);
        return new Outcome.Failed(describe(e), wasSent, false, retryable);
      }
      return finish(call, response, delivery);
    } catch (InterruptedException | RuntimeException | Error e) {
      delivery.ended();
      throw e;
    } finally {
      sent.complete(null);
    }
  }

  private ResponseDelivery delivery(Call call) {
    return new ResponseDelivery(call, inbound, log, budget, ANSWERED_GRACE);
  }

  /**
   * Waits until the call's answer arrives or the reply ends, whichever comes first. When the
   * answer came while the reply goes on (an event stream kept open after it), returns the
   * delivered outcome at once, the rest of the reply read on in the background and the exchange's
   * end awaited through the tail; else null: the reply ended, {@link #finish} reads what it came to.
   */
  private Outcome answeredBeforeEnd(Pending pending, ResponseDelivery delivery) throws InterruptedException {
    if (delivery.arrived().isDone() || !delivery.expectsAnswer()) {
      return earlyOutcome(pending, delivery);
    }
    try {
      CompletableFuture.anyOf(pending.future, delivery.arrived()).get();
    } catch (ExecutionException e) {
      // the reply failed: pending.await() says how
    } catch (InterruptedException e) {
      pending.abandon();
      throw e;
    }
    return earlyOutcome(pending, delivery);
  }

  private Outcome earlyOutcome(Pending pending, ResponseDelivery delivery) {
    HttpResponse.ResponseInfo head = pending.head.get();
    Response answer = delivery.answer();
    if (answer == null || head == null || pending.future.isDone()) {
      return null;
    }
    pending.future.whenComplete((r, e) -> delivery.ended());
    return new Outcome.Delivered(head.statusCode(), head.headers(), answer, delivery.emitted(), delivery);
  }

  private Outcome finish(Call call, HttpResponse<ResponseReader.Result> response, ResponseDelivery delivery)
      throws InterruptedException {
    int status = response.statusCode();
    HttpHeaders headers = response.headers();
    ResponseReader.Result body = response.body();
    if (status < 200 || status >= 300) {
      delivery.ended();
      return new Outcome.Refused(status, headers, errorBody(body));
    }
    if (status == 202 || status == 204) {
      delivery.ended();
      return new Outcome.Accepted(status, headers);
    }
    if (delivery.eventStream) {
      return resumeIfNeeded(call, status, headers, body, delivery);
    }
    delivery.ended();
    if (!expectsAnswer(call)) {
      return new Outcome.Accepted(status, headers); // notifications and responses: any 2xx accepts
    }
    if (body.outOfMemory()) {
      return Outcome.Failed.of(Outcome.Kind.OUT_OF_MEMORY, body.failure());
    }
    if (body.failure() != null) {
      return new Outcome.Failed(body.failure(), true, false, body.retryable());
    }
    Boolean usable = delivery.reader.bodyUsable(); // the reader delivered the body as it ended
    if (usable == null) {
      return new Outcome.Delivered(status, headers, null, false);
    }
    if (!usable) {
      return new Outcome.Failed("upstream sent a response body that is not JSON-RPC", true, false, false);
    }
    return delivered(status, headers, delivery);
  }

  /** The outcome of a reply that ended; what came after its answer may wait for the answer's write. */
  private static Outcome.Delivered delivered(int status, HttpHeaders headers, ResponseDelivery delivery) {
    Response answer = delivery.answer();
    if (answer == null) {
      delivery.answerWritten(); // nothing to wait for
    }
    return new Outcome.Delivered(status, headers, answer, delivery.emitted(), delivery);
  }

  /**
   * After an event stream ends without the call's answer: resume it with {@code Last-Event-ID}
   * when the server gave event ids (its stream survives the connection), else report what was
   * seen.
   */
  private Outcome resumeIfNeeded(
      Call call, int status, HttpHeaders headers, ResponseReader.Result body, ResponseDelivery delivery)
      throws InterruptedException {
    ResponseReader.Result last = body;
    int fruitless = 0;
    while (delivery.answer() == null
        && call.isRequest()
        && resumableId(last.lastEventId()) != null
        && last.retryable()
        && fruitless < RetryPolicy.MAX_FRUITLESS_RESUMES) {
      long delay = RetryPolicy.serverRetry(last.retryMillis(), RetryPolicy.RESUME_DELAY);
      log.info(
          "response stream for id "
              + call.requestId()
              + (last.failure() == null ? " closed" : " interrupted")
              + " before the answer; resuming from event "
              + last.lastEventId()
              + " in "
              + delay
              + " ms");
      sleeper.sleep(Duration.ofMillis(Math.min(delay, config.readTimeout().toMillis())));
      int before = delivery.count();
      StreamResult resumed = openStream(call.headers(), last.lastEventId(), config.readTimeout(), delivery, status1 -> {});
      if (resumed.early() != null) { // the answer came on the resumed stream, which goes on for a moment
        return new Outcome.Delivered(status, headers, delivery.answer(), delivery.emitted(), delivery);
      }
      if (resumed.status() != 200 || resumed.body() == null) {
        delivery.ended();
        String why = resumed.failure() != null ? resumed.failure() : "HTTP " + resumed.status();
        // Retryable: whether the request may be sent again is the retry link's decision (it
        // never replays a call whose answer had begun to arrive, nor an unsafe method).
        return new Outcome.Failed(
            "upstream stream interrupted and could not be resumed (" + why + ")",
            true, delivery.emitted(), true);
      }
      fruitless = delivery.count() > before ? 0 : fruitless + 1;
      last = resumed.body().lastEventId() == null
          ? new ResponseReader.Result(null, resumed.body().failure(), resumed.body().retryable(),
              last.lastEventId(), resumed.body().retryMillis())
          : resumed.body();
    }
    delivery.ended();
    if (delivery.answer() == null && last.outOfMemory()) {
      return Outcome.Failed.of(Outcome.Kind.OUT_OF_MEMORY, last.failure());
    }
    if (delivery.answer() == null && last.failure() != null) {
      delivery.answerWritten();
      return new Outcome.Failed(last.failure(), true, delivery.emitted(), last.retryable());
    }
    return delivered(status, headers, delivery);
  }

  /** True for requests and for batches that contain one: their replies carry answers. */
  static boolean expectsAnswer(Call call) {
    JsonRpcMessage message = call.message();
    return message instanceof JsonRpcMessage.Request
        || (message instanceof JsonRpcMessage.Batch b && b.members().stream().anyMatch(m -> m instanceof JsonRpcMessage.Request));
  }

  /**
   * An event id usable to resume a stream: it goes into the {@code Last-Event-ID} header, so
   * only visible ASCII of a sane length; anything else means the stream cannot be resumed.
   */
  static String resumableId(String id) {
    return id != null && id.length() <= 1024 && Header.isVisibleAscii(id) ? id : null;
  }

  /**
   * What a GET event stream came to.
   *
   * @param delivered how many messages it carried
   * @param early for a stream resuming a call's reply: the call's outcome when its answer came
   *     while the stream goes on (read on in the background), else null
   */
  record StreamResult(int status, ResponseReader.Result body, String failure, int delivered, Outcome early) {
    StreamResult(int status, ResponseReader.Result body, String failure, int delivered) {
      this(status, body, failure, delivered, null);
    }
  }

  /**
   * Opens a GET event stream and reads it until it ends (or, resuming a call's reply, until the
   * call's answer arrives); messages go to {@code delivery} (or the inbound router when null).
   * {@code onResponse} is told the status as soon as the response headers arrive (the stream
   * itself may stay open for a long time after).
   */
  StreamResult openStream(
      Map<String, String> callHeaders,
      String lastEventId,
      Duration idleTimeout,
      ResponseDelivery delivery,
      IntConsumer onResponse)
      throws InterruptedException {
    HttpRequest.Builder request =
        requests.stream(callHeaders, resumableId(lastEventId) != null ? lastEventId : null, idleTimeout);
    ResponseDelivery target = delivery != null ? delivery : delivery(null);
    Pending pending = start(request.build(), target, idleTimeout, true, onResponse);
    try {
      if (delivery != null) {
        Outcome early = answeredBeforeEnd(pending, target);
        if (early != null) {
          return new StreamResult(200, null, null, target.count(), early);
        }
      }
      HttpResponse<ResponseReader.Result> response = pending.await();
      return new StreamResult(response.statusCode(), response.body(), null, target.count());
    } catch (IOException e) {
      return new StreamResult(-1, null, describe(e), 0);
    }
  }

  /** Ends the session at the server; returns the status, or -1 when it could not be sent. */
  int delete(Map<String, String> callHeaders, Duration timeout) throws InterruptedException {
    HttpRequest request = requests.delete(callHeaders, timeout).build();
    try {
      return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  /** Abandons every body being read (shutdown). */
  void abortAll(String reason) {
    for (ResponseReader reader : active) {
      reader.fail(reason, false);
    }
  }


  /** One exchange under way: its response future, and its head and reader once they exist. */
  private final class Pending {
    final HttpRequest request;
    final CompletableFuture<HttpResponse<ResponseReader.Result>> future;
    final AtomicReference<ResponseReader> reader;
    final AtomicReference<HttpResponse.ResponseInfo> head;
    volatile boolean cancelled; // closed because the host cancelled the request (2026 era)

    Pending(HttpRequest request, CompletableFuture<HttpResponse<ResponseReader.Result>> future,
        AtomicReference<ResponseReader> reader, AtomicReference<HttpResponse.ResponseInfo> head) {
      this.request = request;
      this.future = future;
      this.reader = reader;
      this.head = head;
    }

    /** Waits for the response to end. */
    HttpResponse<ResponseReader.Result> await() throws IOException, InterruptedException {
      try {
        return future.get();
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        ResponseReader r = reader.get();
        if (r != null && head.get() != null && cause instanceof IOException io) {
          // The headers came and the body was being read: a cut body, whichever way the client
          // reports it, is the reader's to describe (what it delivered, where to resume).
          return new ReadResponse(head.get(), request, r.interrupted(io));
        }
        if (cause instanceof IOException io) {
          throw io;
        }
        throw new IOException(cause == null ? "request failed" : cause.toString(), cause);
      } catch (InterruptedException e) {
        abandon();
        throw e;
      }
    }

    /** The exchange is given up (interrupted): its body is abandoned. */
    void abandon() {
      future.cancel(true);
      ResponseReader r = reader.get();
      if (r != null) {
        r.fail("interrupted", false);
      }
    }
  }

  /** Starts an exchange whose body {@code delivery} routes; the reader is active until the body ends. */
  private Pending start(
      HttpRequest request,
      ResponseDelivery delivery,
      Duration idleTimeout,
      boolean streamOnly,
      IntConsumer onResponse) {
    AtomicReference<ResponseReader> reader = new AtomicReference<>();
    AtomicReference<HttpResponse.ResponseInfo> head = new AtomicReference<>();
    HttpResponse.BodyHandler<ResponseReader.Result> handler =
        info -> {
          head.set(info);
          onResponse.accept(info.statusCode());
          ResponseReader r = reader(info, delivery, idleTimeout, streamOnly);
          reader.set(r);
          delivery.reader = r;
          active.add(r);
          return r;
        };
    CompletableFuture<HttpResponse<ResponseReader.Result>> future = client.sendAsync(request, handler);
    future.whenComplete((response, error) -> {
      ResponseReader r = reader.get();
      if (r != null) {
        active.remove(r);
      }
    });
    return new Pending(request, future, reader, head);
  }

  private ResponseReader reader(
      HttpResponse.ResponseInfo info, ResponseDelivery delivery, Duration idleTimeout, boolean streamOnly) {
    int status = info.statusCode();
    HttpHeaders headers = info.headers();
    String idleLabel = streamOnly || !idleTimeout.equals(config.readTimeout()) ? "--sse-read-timeout" : "--timeout-read";
    String encoding = Objects.requireNonNullElse(Header.first(headers, "content-encoding"), "");
    String type = Objects.requireNonNullElse(Header.first(headers, "content-type"), "").toLowerCase(Locale.ROOT);
    boolean success = status >= 200 && status < 300 && status != 202 && status != 204;
    ResponseReader.Format format;
    if (!success) {
      format = ResponseReader.Format.DRAIN;
    } else if (type.startsWith("text/event-stream")) {
      format = ResponseReader.Format.EVENT_STREAM;
    } else if (streamOnly || !delivery.expectsAnswer()) {
      format = ResponseReader.Format.DRAIN; // a JSON body to a notification carries nothing
    } else {
      format = ResponseReader.Format.JSON;
    }
    delivery.eventStream = format == ResponseReader.Format.EVENT_STREAM;
    boolean supported = ContentDecoder.supports(encoding);
    ResponseReader reader =
        new ResponseReader(
            format,
            supported ? encoding : "",
            config.maxMessageSize(),
            supported && encoding.isEmpty() ? contentLength(headers) : -1,
            idleTimeout,
            idleLabel,
            sweeper,
            delivery::deliver,
            delivery.exchangeHold != null ? delivery.exchangeHold : budget.reader(),
            delivery.exchangeHold == null);
    if (!supported) {
      reader.fail("upstream used unsupported Content-Encoding '" + encoding + "'", false);
    } else if (format == ResponseReader.Format.JSON && config.maxMessageSize() > 0
        && contentLength(headers) > config.maxMessageSize()) {
      reader.fail(
          "response exceeds --max-message-size (" + config.maxMessageSize() + " bytes); aborting",
          false);
    }
    return reader;
  }

  /** A response whose body ended in an error the client reported on the response itself. */
  private record ReadResponse(HttpResponse.ResponseInfo head, HttpRequest request, ResponseReader.Result body)
      implements HttpResponse<ResponseReader.Result> {
    @Override
    public int statusCode() {
      return head.statusCode();
    }

    @Override
    public HttpHeaders headers() {
      return head.headers();
    }

    @Override
    public Optional<HttpResponse<ResponseReader.Result>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<javax.net.ssl.SSLSession> sslSession() {
      return Optional.empty();
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public HttpClient.Version version() {
      return head.version();
    }
  }

  /** The declared body length, or -1 when absent or not a number. */
  private static long contentLength(HttpHeaders headers) {
    String value = Header.first(headers, "content-length");
    try {
      return value == null ? -1 : Long.parseLong(value.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Response errorBody(ResponseReader.Result body) {
    if (body == null || body.json() == null) {
      return null;
    }
    byte[] json = Bytes.trim(body.json());
    if (json.length == 0) {
      return null;
    }
    try {
      return JsonRpcCodec.parseReceived(json, null) instanceof Response r && r.isError() ? r : null;
    } catch (MalformedMessageException e) {
      return null;
    }
  }

  /** True when an out-of-memory error is what really failed the exchange. */
  static boolean outOfMemory(Throwable e) {
    return anyCause(e, t -> t instanceof OutOfMemoryError);
  }

  /** Whether {@code e} or any of its causes is {@code what}. */
  private static boolean anyCause(Throwable e, java.util.function.Predicate<Throwable> what) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (what.test(t)) {
        return true;
      }
    }
    return false;
  }

  static String describe(IOException e) {
    if (e instanceof HttpConnectTimeoutException) {
      return "connect timed out";
    }
    if (e instanceof HttpTimeoutException) {
      return "no response within --timeout-read";
    }
    if (e instanceof ConnectException) {
      return "connection refused" + (e.getMessage() == null || e.getMessage().isBlank() ? "" : " (" + e.getMessage() + ")");
    }
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      Throwable cause = e.getCause();
      message = cause != null && cause.getMessage() != null ? cause.getMessage() : e.getClass().getSimpleName();
    }
    return message;
  }
}
