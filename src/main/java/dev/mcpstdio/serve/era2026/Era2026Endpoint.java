package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.serve.http.ClientWatch;
import dev.mcpstdio.serve.http.EventStream;
import dev.mcpstdio.serve.http.LazyEventStream;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.EofException;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The 2026 era on serve's MCP endpoint: one stateless request per POST, answered from a pooled
 * child of the request's principal (mcp-stdio.md 4.6).
 *
 * <p>A request is judged by the {@link ValidationLadder} first (400 with its id, values never
 * echoed; a {@code tools/call}'s {@code Mcp-Param-*} headers once its child is known, against the
 * annotations of the child's tools, {@link ToolIndex}); its id must not be in the gateway's namespace ({@link IdSpace}, 400). Then: {@code
 * server/discover} is answered from the child's InitializeResult; what the 2026 era removed
 * ({@link #REMOVED}) is answered -32601 with 404 here, never by the 2025-era child (which would
 * still answer a {@code ping}); everything else goes to the child under the gateway's id and its
 * answer comes back re-keyed and stamped ({@link ResultStamp}). A client that accepts an event
 * stream gets its progress (under its own token) and, when it asked with {@code logLevel}, its log
 * messages at or above that level, before the answer; otherwise the answer alone, as JSON.
 *
 * <p>A 2026-era child (the pool's probe found one) answers for itself: its requests pass through
 * with only the id and progress token the gateway's, {@code server/discover} included, and its
 * answers come back re-keyed but unstamped, -32601 with 404 and the era's -32020..-32022 with 400;
 * MRTR, {@code requestState} and capability errors are its own.
 *
 * <p>A {@code tools/call}, {@code resources/read} or {@code prompts/get} is bridged ({@link
 * ReverseBridge}): it holds its child exclusively, the child's questions become {@code
 * input_required} rounds, and such a call may end its HTTP exchange parked, its call still open
 * at the child, to go on under the retry that answers the round.
 *
 * <p>Notifications are answered 202 and go nowhere: the 2026 era cancels by closing the
 * response stream, which this endpoint turns into {@code notifications/cancelled} for the child
 * under the gateway's id; nothing more is sent for that call. A client that closes its connection
 * while its call is quiet (a JSON answer awaited, or a stream with nothing to carry yet) is
 * noticed within milliseconds by the {@link ClientWatch}, not only at the next write; an answer
 * that came first is still written (to no one), and then the child is not told.
 *
 * <p>Bounds: the backend timeout (504 past it, the child told to cancel); at most {@link
 * #RELATED_QUEUE} progress and log messages waiting for a slow stream per call (past it they are
 * dropped, with a log line: the answer itself never waits in that queue); the {@link IdSpace}'s
 * capacity of calls in flight (503 past it); the pool's caps (503).
 */
public final class Era2026Endpoint implements AutoCloseable {

  /** Methods the 2026 era removed: answered -32601 (HTTP 404) by the gateway itself (spec.md 5.14). */
  static final Set<String> REMOVED = Set.of("initialize", "ping", "logging/setLevel", "resources/subscribe",
      "resources/unsubscribe", "roots/list", "sampling/createMessage", "elicitation/create");

  /**
   * Bound on how long a request refused at a pool cap (every child of its key held by a call in
   * flight) waits for a child to be released before it is answered 503.
   */
  static final java.time.Duration CAP_WAIT = java.time.Duration.ofSeconds(10);

  /** How often a bridged streamed call looks for its child's questions while it waits. */
  private static final long QUESTION_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  /** Put in a streamed call's queue when its answer arrives, so that its wait ends at once (compared by identity). */
  private static final byte[] ANSWERED = new byte[0];

  /** Put in a streamed call's queue when its client left (its {@link ClientWatch}), for the same reason. */
  private static final byte[] LEFT = new byte[0];

  /** Progress and log messages held for one call's slow stream. */
  static final int RELATED_QUEUE = 256;

  /** How often a quiet stream gets a comment, which is also how a closed one is noticed. */
  private final long keepAliveMillis;

  private final ChildPool pool;
  private final ClientWatch watches;
  private final ListenHub listens;
  private final IdSpace ids;
  private final ReverseBridge bridge;
  private final Duration backendTimeout;
  private final long cacheTtlMs;
  private final Log log;

  /**
   * The 2026 era of one gateway: its pool (spawning from {@code pool}'s settings) and id space.
   *
   * @param backendTimeout how long a request waits for its child's answer
   * @param keepAlive how long a response stream may stay quiet before a comment is written
   */
  public Era2026Endpoint(ChildPool.Settings pool, Duration backendTimeout, Duration keepAlive, long cacheTtlMs, Log log) {
    this.watches = new ClientWatch(log);
    this.listens = new ListenHub(keepAlive.toMillis(), watches, log);
    this.ids = new IdSpace();
    this.pool = new ChildPool(pool, log, new ChildEvents(listens, ids));
    this.bridge = new ReverseBridge(backendTimeout.dividedBy(2), ids, this.pool::release, log);
    this.backendTimeout = backendTimeout;
    this.keepAliveMillis = keepAlive.toMillis();
    this.cacheTtlMs = cacheTtlMs;
    this.log = log;
  }

  /**
   * Answers one 2026-era message.
   *
   * @param principal who the authentication gate says sent it (the pool's key)
   * @param headers the request's header lines
   * @param accept the request's {@code Accept} lines
   */
  public void handle(JsonRpcMessage message, String principal, HeaderLines headers, java.util.List<String> accept,
      Response response, Callback callback) throws InterruptedException {
    if (!(message instanceof Request request)) {
      Replies.empty(response, callback, 202); // a notification (a POSTed cancel does nothing in this era)
      return;
    }
    ValidationLadder.Pass passed;
    switch (ValidationLadder.check(request, headers)) {
      case ValidationLadder.Rejection rejection -> {
        Replies.json(response, callback, rejection.httpStatus(), rejection.body(request.id()));
        return;
      }
      case ValidationLadder.Pass pass -> passed = pass;
    }
    request = TraceMeta.fromHeaders(request, headers); // a trace begun over HTTP reaches the child in _meta
    if (IdSpace.isReserved(request.id())) {
      Replies.error(response, callback, 400, request.id(), ErrorCodes.INVALID_REQUEST,
          "request ids beginning with " + IdSpace.PREFIX + " are reserved by the gateway");
      return;
    }
    if (REMOVED.contains(request.method())) {
      Replies.error(response, callback, 404, request.id(), ErrorCodes.METHOD_NOT_FOUND,
          "method not found: " + request.method() + " is not part of the 2026-07-28 revision");
      return;
    }
    // --- the reverse MRTR bridge (ReverseBridge): a retry goes on with its parked call; a call that
    // may ask its client holds a child of its own (the pool grows within the principal's cap)
    // (a 2026-era child asks its client itself, and judges its own requestState: nothing to bridge)
    boolean children2026;
    try {
      children2026 = pool.era2026(); // the first request waits for the command's one probe
    } catch (ChildPool.Unavailable e) {
      Replies.error(response, callback, 503, request.id(), ErrorCodes.INTERNAL_ERROR, "backend unavailable: " + e.getMessage());
      return;
    }
    ClientAsks asks = ClientAsks.of(request.bytes(), passed.clientCapabilities());
    if (!children2026 && ReverseBridge.isRetry(request)) {
      resume(request, principal, asks, accept, response, callback);
      return;
    }
    // a client that declares nothing to ask reaches a child told so: its calls share their child
    // (they multiplex, and the pool grows while all are working), and a question is refused
    boolean bridged = !children2026 && !asks.none() && McpMethods.MAY_REQUIRE_INPUT.contains(request.method());
    byte[] invalid = bridged ? ReverseBridge.checkNew(request) : null;
    if (invalid != null) {
      Replies.json(response, callback, 200, invalid);
      return;
    }
    // --- end of the bridge's part
    PooledChild child;
    long capDeadline = System.nanoTime() + CAP_WAIT.toNanos();
    boolean waited = false;
    while (true) {
      try {
        child = pool.acquire(principal, asks, bridged);
        break;
      } catch (ChildPool.Unavailable e) {
        if (bridged && e.atCap && bridge.abandonOldest(principal)) {
          continue; // the bridge gave up the principal's oldest parked round: its child is free (each pass frees one)
        }
        if (e.atCap && !waited) {
          log.debug("a " + Log.visible(request.method()) + " waits for a child at the pool's cap (" + e.getMessage() + ")");
          waited = true;
        }
        if (e.atCap && pool.awaitRelease(capDeadline)) {
          continue; // every child is held by a call in flight: wait (bounded) for one to be released
        }
        Replies.error(response, callback, 503, request.id(), ErrorCodes.INTERNAL_ERROR, "backend unavailable: " + e.getMessage());
        return;
      }
    }
    boolean parked = false;
    try {
      if (request.method().equals(McpMethods.TOOLS_CALL)
          && ValidationLadder.check(request, headers, child.tools) instanceof ValidationLadder.Rejection rejection) {
        Replies.json(response, callback, rejection.httpStatus(), rejection.body(request.id())); // rung 2d
        return;
      }
      if (request.method().equals(McpMethods.SERVER_DISCOVER) && !child.era2026) {
        Replies.json(response, callback, 200, discover(request, child));
      } else if (request.method().equals(McpMethods.SUBSCRIPTIONS_LISTEN)) {
        listens.serve(request, child, accept, response, callback);
      } else {
        parked = forward(request, principal, bridged, asks, child, accept,
            response, callback);
      }
    } finally {
      if (!parked) {
        pool.release(child, bridged);
      }
    }
  }

  /** Forwards a request to {@code child} and writes its answer; true when the call was parked on a round of questions. */
  private boolean forward(Request request, String principal, boolean bridged, ClientAsks asks, PooledChild child,
      java.util.List<String> accept, Response response, Callback callback) throws InterruptedException {
    IdSpace.Remapped remapped;
    switch (ids.remap(request)) {
      case IdSpace.Refused refused -> {
        Replies.error(response, callback, refused.full() ? 503 : 400, request.id(), refused.code(), refused.message());
        return false;
      }
      case IdSpace.Remapped r -> remapped = r;
    }
    IdSpace.Entry entry = remapped.entry();
    PooledChild.Call call = child.open(entry.childId(), entry.clientToken() == null ? null : entry.childId(),
        LogLevels.threshold(metaString(request, MetaKeys.LOG_LEVEL)));
    call.asks = asks;
    call.mayAsk = McpMethods.MAY_REQUIRE_INPUT.contains(request.method());
    ReverseBridge.Txn txn = bridged ? bridge.begin(principal, request, child, call, entry) : null;
    boolean parked = false;
    try {
      byte[] toChild = remapped.request().bytes();
      parked = conclude(request, () -> child.send(toChild), child, call, txn, accept, response, callback);
      if (parked) {
        pool.parked(child);
      }
      return parked;
    } finally {
      if (!parked) {
        if (txn != null) {
          bridge.settle(txn, "the call ended before its client answered");
        }
        child.close(call);
        ids.release(entry.childId());
      }
    }
  }

  /** A retry of a bridged call: its parked round answered, the call goes on under the retry's id (or the retry is refused). */
  private void resume(Request retry, String principal, ClientAsks asks, java.util.List<String> accept, Response response,
      Callback callback) throws InterruptedException {
    switch (bridge.resume(retry, principal)) {
      case ReverseBridge.Refused refused -> Replies.json(response, callback, refused.status(), refused.body());
      case ReverseBridge.Resumed resumed -> {
        ReverseBridge.Txn txn = resumed.txn();
        txn.call.asks = asks;
        ids.retoken(txn.entry.childId(), retry); // its progress goes under the retry's token now
        boolean parked = false;
        try {
          parked = conclude(retry, resumed::deliver, txn.child, txn.call, txn, accept, response, callback);
          if (parked) {
            pool.parked(txn.child);
          }
        } finally {
          if (!parked) {
            bridge.finish(txn, "the call ended before its client answered");
          }
        }
      }
    }
  }

  /**
   * What sets a call going at its child: a new call's request, or a retry's answers to the child's
   * questions. False when the child could not be written to.
   */
  @FunctionalInterface
  private interface Launch {
    boolean launch();
  }

  /**
   * Routes the call's related messages to this request, then launches it ({@code launch}: only
   * now, since the child may send progress the moment it has the request or its answers), waits
   * for the call's answer and writes it, as JSON or on an event stream; a bridged call ({@code
   * txn} not null) may instead be answered with a round of its child's questions, and is then
   * parked (true).
   */
  private boolean conclude(Request request, Launch launch, PooledChild child, PooledChild.Call call, ReverseBridge.Txn txn,
      java.util.List<String> accept, Response response, Callback callback) throws InterruptedException {
    if (txn != null) {
      call.questions.answerAs = request.id();
    }
    boolean streaming = AcceptRanges.accepts(accept, AcceptRanges.EVENT_STREAM) && accept.stream().anyMatch(
        a -> a.contains(AcceptRanges.EVENT_STREAM));
    BlockingQueue<byte[]> related = streaming ? new ArrayBlockingQueue<>(RELATED_QUEUE) : null;
    // closed before each write that completes the exchange (what follows on the connection is not this call's)
    try (ClientWatch.Watch watch = watches.watch(response)) {
      if (streaming) {
        call.answer.whenComplete((answer, failure) -> related.offer(ANSWERED)); // wakes the wait at once
        watch.left().thenRun(() -> related.offer(LEFT)); // the same (a full queue is read at once anyway)
      }
      if (txn != null) {
        watch.left().thenRun(call.questions::wake);
      }
      call.relatedTo(!streaming ? null : line -> {
        if (!related.offer(line)) {
          child.childLog.warn("a client's stream is not read; dropped a progress or log message for it");
        }
      });
      if (!launch.launch()) { // launched once its progress has somewhere to go
        watch.close();
        Replies.error(response, callback, 503, request.id(), ErrorCodes.INTERNAL_ERROR, "backend unavailable: " + child.deathReason());
        return false;
      }
      if (streaming) {
        return stream(request, child, call, txn, related, watch, response, callback);
      }
      long deadline = System.nanoTime() + backendTimeout.toNanos();
      while (txn != null) {
        txn.await(deadline, watch.left());
        if (call.answer.isDone() || watch.hasLeft() || !txn.asking()) {
          break;
        }
        switch (bridge.round(txn, request.id(), deadline)) {
          case ReverseBridge.Parked p -> {
            watch.close();
            Replies.json(response, callback, 200, p.body());
            return true;
          }
          case ReverseBridge.Failed f -> {
            child.cancel(call.childId, "the call cannot go on: " + Log.visible(f.why()));
            watch.close();
            Replies.json(response, callback, f.status(), f.body());
            return false;
          }
          case ReverseBridge.Answered a -> { } // the call brought the answers: wait on
        }
      }
      try {
        CompletableFuture.anyOf(call.answer, watch.left()).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
        // no answer within the backend timeout: answered below
      }
      if (!call.answer.isDone() && watch.hasLeft()) {
        clientLeft(request, child, call, callback, new EofException("the client closed its connection"));
        return false;
      }
      watch.close();
      reply(request, child, call, call.answer.getNow(null), response, callback);
      return false;
    }
  }

  /**
   * The client closed its connection or its stream while its call was open: the child is told
   * ({@code notifications/cancelled} under the gateway's id) and the client gets nothing more.
   */
  private void clientLeft(Request request, PooledChild child, PooledChild.Call call, Callback callback, Throwable cause) {
    if (!call.answer.isDone()) { // an answer that came first needs no cancel (its write found the client gone)
      child.cancel(call.childId, "the client closed its response stream");
    }
    log.debug("a 2026-era client closed the stream of " + Log.visible(request.method()) + "; the call is cancelled");
    callback.failed(cause); // Jetty aborts the connection
  }

  /**
   * Waits for a streamed call's answer (bridged: or a question), writing its related messages
   * meanwhile; null past the deadline, when the child died, or when a question came first.
   */
  private byte[] awaitAnswer(PooledChild.Call call, ReverseBridge.Txn txn, long deadline, BlockingQueue<byte[]> related,
      ClientWatch.Watch watch, LazyEventStream events) throws InterruptedException, IOExceptionCarrier {
    long lastWrite = System.nanoTime();
    while (true) {
      long left = deadline - System.nanoTime();
      if (call.answer.isDone() || left <= 0 || (txn != null && txn.asking())) {
        break;
      }
      if (watch.hasLeft()) {
        throw new IOExceptionCarrier(new EofException("the client closed its connection"));
      }
      // a bridged call also watches for its child's questions (noticed within QUESTION_POLL_NANOS)
      long wait = txn != null ? QUESTION_POLL_NANOS : TimeUnit.MILLISECONDS.toNanos(keepAliveMillis);
      byte[] line = related.poll(Math.min(left, wait), TimeUnit.NANOSECONDS);
      if (line == ANSWERED || line == LEFT) {
        continue; // the loop's head says what it means
      }
      byte[] view = line == null ? null : clientView(line);
      try {
        if (view != null) {
          events.message(view);
          lastWrite = System.nanoTime();
        } else if (System.nanoTime() - lastWrite > TimeUnit.MILLISECONDS.toNanos(keepAliveMillis)) {
          events.keepAlive(); // also how a client that closed its stream is noticed
          lastWrite = System.nanoTime();
        }
      } catch (IOException e) {
        throw new IOExceptionCarrier(e);
      }
    }
    byte[] line; // what came before the answer goes first
    while ((line = related.poll()) != null) {
      if (line == ANSWERED || line == LEFT) {
        continue;
      }
      byte[] view = clientView(line);
      if (view == null) {
        continue;
      }
      try {
        events.message(view);
      } catch (IOException e) {
        throw new IOExceptionCarrier(e);
      }
    }
    return call.answer.getNow(null);
  }

  /**
   * A progress notification under the client's own token (null: the request now waiting gave
   * none, and the gateway's token never reaches a client); a log message as the child wrote it.
   */
  private byte[] clientView(byte[] line) {
    try {
      if (JsonRpcCodec.parse(line) instanceof JsonRpcMessage.Notification n && n.method().equals(McpMethods.PROGRESS)) {
        IdSpace.Progress progress = ids.progress(n);
        return progress == null ? null : progress.notification();
      }
    } catch (MalformedMessageException e) {
      // the child's line was routed as JSON: cannot happen
    }
    return line;
  }

  /**
   * A call whose client accepts an event stream: the stream opens with the first progress or log
   * message (or keep-alive) it has to carry; an answer that comes first is sent as JSON, so its
   * HTTP status can still say what it is (404 for -32601, 400 for -32021).
   */
  private boolean stream(Request request, PooledChild child, PooledChild.Call call, ReverseBridge.Txn txn,
      BlockingQueue<byte[]> related, ClientWatch.Watch watch, Response response, Callback callback) throws InterruptedException {
    LazyEventStream events = new LazyEventStream(new EventStream(response));
    long deadline = System.nanoTime() + backendTimeout.toNanos();
    try {
      while (true) {
        byte[] answer = awaitAnswer(call, txn, deadline, related, watch, events);
        if (txn != null && !call.answer.isDone() && txn.asking()) {
          ReverseBridge.Round round = bridge.round(txn, request.id(), deadline);
          if (round instanceof ReverseBridge.Answered) {
            continue; // the call brought the answers: wait on
          }
          watch.close();
          if (round instanceof ReverseBridge.Failed f) {
            child.cancel(call.childId, "the call cannot go on: " + Log.visible(f.why()));
            finalAnswer(events, f.status(), f.body(), response, callback);
            return false;
          }
          try {
            finalAnswer(events, 200, ((ReverseBridge.Parked) round).body(), response, callback);
          } catch (IOException e) {
            callback.failed(e); // parked all the same: the round expires unless retried
          }
          return true;
        }
        watch.close();
        if (!events.opened()) {
          reply(request, child, call, answer, response, callback);
          return false;
        }
        events.last(answerBody(request, child, call, answer));
        callback.succeeded();
        return false;
      }
    } catch (IOExceptionCarrier | IOException e) {
      clientLeft(request, child, call, callback, e instanceof IOExceptionCarrier c ? c.getCause() : e);
      return false;
    }
  }

  /** Writes {@code body} as the stream's last event when it is open, else as JSON with {@code status}. */
  private static void finalAnswer(LazyEventStream events, int status, byte[] body, Response response, Callback callback)
      throws IOException {
    if (!events.opened()) {
      Replies.json(response, callback, status, body);
      return;
    }
    events.last(body);
    callback.succeeded();
  }

  private void reply(Request request, PooledChild child, PooledChild.Call call, byte[] answer, Response response,
      Callback callback) {
    if (answer == null) {
      failure(request, child, call, response, callback);
      return;
    }
    ResultStamp.Stamped stamped = stamp(request, child, call, answer);
    Replies.json(response, callback, stamped.httpStatus(), stamped.bytes());
  }

  /** The answer as the stream's last event: stamped, or the gateway's error when there is none. */
  private byte[] answerBody(Request request, PooledChild child, PooledChild.Call call, byte[] answer) {
    if (answer == null) {
      return noAnswer(request, child, call);
    }
    return stamp(request, child, call, answer).bytes();
  }

  private void failure(Request request, PooledChild child, PooledChild.Call call, Response response, Callback callback) {
    boolean timedOut = !call.answer.isDone();
    Replies.json(response, callback, timedOut ? 504 : 503, noAnswer(request, child, call));
  }

  private byte[] noAnswer(Request request, PooledChild child, PooledChild.Call call) {
    if (!call.answer.isDone()) {
      child.cancel(call.childId, "no answer within the backend timeout");
      return JsonRpcErrors.error(request.id(), ErrorCodes.INTERNAL_ERROR,
          "no response from the server within " + backendTimeout.toSeconds() + " s");
    }
    return JsonRpcErrors.error(request.id(), ErrorCodes.INTERNAL_ERROR, "backend unavailable: " + child.deathReason());
  }

  private ResultStamp.Stamped stamp(Request request, PooledChild child, PooledChild.Call call, byte[] answer) {
    try {
      if (call.gatewayStatus != 0 && JsonRpcCodec.parse(answer) instanceof JsonRpcMessage.Response own) {
        // the gateway's own error, made when it happened: under the id of the request answered now
        // (a parked call's error goes to the retry that finds it, not to the request that parked it)
        return new ResultStamp.Stamped(ResultStamp.rekeyed(own, request.id()).bytes(), call.gatewayStatus);
      }
      if (child.era2026 && JsonRpcCodec.parse(answer) instanceof JsonRpcMessage.Response r) {
        return ResultStamp.rekeyed(r, request.id()); // a 2026-era child's answer is its own: only the id is the client's
      }
      if (JsonRpcCodec.parse(answer) instanceof JsonRpcMessage.Response r) {
        String uri = Json.string(request.bytes(), Json.field(request.bytes(), request.params(), "uri"));
        if (request.method().equals(McpMethods.TOOLS_LIST) && r.result() != null) {
          child.tools.learn(r.bytes(), r.result());
        }
        return new ResultStamp(Discover.serverInfo(child.initialized.join(), Splice.whole(child.initialized.join())), cacheTtlMs)
            .apply(r, request.id(), request.method(), uri);
      }
    } catch (MalformedMessageException e) {
      // fall through: not an answer the client can use
    }
    return new ResultStamp.Stamped(JsonRpcErrors.error(request.id(), ErrorCodes.INTERNAL_ERROR,
        "the server's answer is not a JSON-RPC response"), 502);
  }

  private byte[] discover(Request request, PooledChild child) {
    byte[] init = child.initialized.join();
    return Discover.response(request.id(), init, Splice.whole(init), cacheTtlMs);
  }


  /** A string member of the request's {@code params._meta}, or null. */
  private static String metaString(Request request, String key) {
    byte[] bytes = request.bytes();
    JsonSpan meta = Json.field(bytes, request.params(), "_meta");
    return Json.string(bytes, Json.field(bytes, meta, key));
  }

  /** How long the shutdown waits for the listen streams' graceful ends to be written. */
  static final long LISTEN_DRAIN_MILLIS = 2_000;

  /** Ends every listen stream gracefully (at most {@link #LISTEN_DRAIN_MILLIS}), then closes every pooled child. */
  @Override
  public void close() throws InterruptedException {
    bridge.close();
    listens.close(LISTEN_DRAIN_MILLIS);
    pool.close();
    watches.close();
  }

  /** An IOException from a stream write, carried out of the wait loop. */
  private static final class IOExceptionCarrier extends Exception {
    IOExceptionCarrier(IOException cause) {
      super(cause);
    }
  }
}
