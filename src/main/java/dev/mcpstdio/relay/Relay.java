package dev.mcpstdio.relay;

import dev.mcpstdio.net.IdleWatchdog;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Invalid;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.jsonrpc.PartialMessage;
import dev.mcpstdio.jsonrpc.StreamingScanner;
import dev.mcpstdio.stdio.EmitGate;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.StdoutWire;
import dev.mcpstdio.wire.Bytes;
import dev.mcpstdio.wire.LineReader;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The relay: stdin lines in, upstream exchanges out, every answer back on stdout.
 *
 * <p>One reader thread takes lines from stdin in order; a request it has no room for waits in the
 * {@link WaitingRoom}, whose usher lets it in later, while the reader goes on. Each message becomes
 * an exchange on its own virtual thread, so a slow {@code tools/call} never delays anything else. Order is still
 * kept where it matters (see {@link DispatchOrder}): a notification or an answer leaves only after
 * the POSTs before it, and nothing follows {@code initialize} or {@code notifications/initialized}
 * until its exchange has completed (the session id and version it yields must be on every later
 * request, and the GET stream it opens must be there for the server's requests).
 *
 * <p>Every request is answered exactly once (see {@link AnswerLedger}); when the chain ends
 * without the server's answer, the relay writes an error that says what went wrong.
 */
public final class Relay {

  static final String OUT_OF_MEMORY =
      "the relay ran out of memory handling this message (raise its heap: MCP_STDIO_JAVA_OPTS=-Xmx512m)";

  private final RelayConfig config;
  private final InputStream stdin;
  private final StdoutWire wire;
  private final Log log;
  private final IdleWatchdog.Sweeper sweeper = new IdleWatchdog.Sweeper("mcp-stdio-watchdog");
  private final AnswerLedger ledger;
  private final RelayCounts counts = new RelayCounts();
  private final SessionState session = new SessionState();
  private final EmitGate gate;
  private final Upstream upstream;
  private final ServerStream serverStream;
  private final HttpSseUpstream httpSse; // null with --transport streamable-http
  private final List<Interceptor> links; // Streamable HTTP
  private final List<Interceptor> httpSseLinks; // HTTP+SSE
  private final Era2026Chain era2026; // the 2026 era (Streamable HTTP only)
  private final EraDecision eras;
  private volatile boolean usingHttpSse; // sse, or auto after the server refused Streamable HTTP
  private volatile boolean transportDecided;
  private final ActiveExchanges exchanges = new ActiveExchanges();
  private final DispatchOrder order;
  private final PaginateLists pages;
  private final ReusedIds reusedIds;
  private final HostAnswers answers;
  private final AtomicBoolean stopping = new AtomicBoolean();
  private final CountDownLatch stopped = new CountDownLatch(1);
  private final MessageBudget budget;
  private final WaitingRoom waitingRoom;
  private final ExitWatch exitWatch;
  private volatile int exitCode = 0;
  /**
   * Memory set aside for the way out: given back when the relay finds it cannot go on, so that
   * answering every open request and exiting can still allocate.
   */
  @SuppressWarnings("unused")
  private volatile byte[] reserve = new byte[RESERVE_BYTES];

  static final int RESERVE_BYTES = 512 * 1024;

  public Relay(
      RelayConfig config,
      HttpClient client,
      InputStream stdin,
      StdoutWire wire,
      Log log,
      Sleeper sleeper) {
    this(config, client, stdin, wire, log, sleeper, null);
  }

  /** @param auth the relay's own sign-in (OAuth), or null */
  public Relay(
      RelayConfig config,
      HttpClient client,
      InputStream stdin,
      StdoutWire wire,
      Log log,
      Sleeper sleeper,
      Authorization auth) {
    this(config, client, stdin, wire, log, sleeper, auth, InFlightBounds.forThisProcess());
  }

  /** @param bounds how much work is taken on at once (normally sized from the heap) */
  public Relay(
      RelayConfig config,
      HttpClient client,
      InputStream stdin,
      StdoutWire wire,
      Log log,
      Sleeper sleeper,
      Authorization auth,
      InFlightBounds bounds) {
    this.config = config;
    this.stdin = stdin;
    this.wire = wire;
    this.log = log;
    this.ledger = new AnswerLedger(config.cancelFilter(), System::nanoTime, bounds.maxOpen(), counts);
    this.budget = new MessageBudget(bounds.messageBytes());
    this.exitWatch = new ExitWatch(config.shutdownGrace().plus(Duration.ofSeconds(2)).plus(ExitWatch.MARGIN));
    this.order = new DispatchOrder(config.connectTimeout().plusSeconds(1));
    this.waitingRoom = new WaitingRoom(bounds.waitingMessages(), bounds.waitingBytes(), config.connectTimeout().plusSeconds(1),
        this::letIn);
    this.gate = new EmitGate(wire, ledger, log);
    this.reusedIds = new ReusedIds(ledger);
    this.answers = new HostAnswers(ledger, gate, reusedIds, log);
    Inbound inbound = answers;
    UpstreamRequests requests = new UpstreamRequests(config);
    this.upstream = new Upstream(client, requests, config, log, sweeper, inbound, sleeper, budget);
    this.serverStream =
        new ServerStream(upstream, session, config.streamReadTimeout(), sleeper, log);
    InitializeMemory memory = new InitializeMemory();
    this.pages = new PaginateLists(ledger, reusedIds::hostId, config.maxMessageSize(), log);
    List<Interceptor> chain = new ArrayList<>();
    chain.add(reusedIds);
    if (config.normalizeArguments()) {
      chain.add(new NormalizeArguments());
    }
    List<Interceptor> httpSseChain = new ArrayList<>(chain);
    httpSseChain.add(link -> { // the handshake, kept to replay it on a reconnected stream
      memory.remember(link.call().message());
      return link.proceed(link.call());
    });
    chain.add(link -> { // Streamable HTTP: the GET stream opens once the session is initialized
      Outcome outcome = link.proceed(link.call());
      if ("notifications/initialized".equals(link.call().method()) && !isFailure(outcome)) {
        serverStream.start();
      }
      return outcome;
    });
    chain.add(new AwaitServerStream(serverStream));
    chain.add(pages);
    chain.add(new SessionLink(session, memory, log, serverStream::sessionChanged, this::endSessionLater, counts));
    chain.add(new RetryLink(config.retry(), sleeper, log, counts));
    // HTTP+SSE (2024-11-05): no sessions, versions or pages; answers come on the event stream.
    httpSseChain.add(new RetryLink(config.retry(), sleeper, log, counts));
    if (auth != null) { // last: every attempt, the relay's own re-initializations included, carries the login
      chain.add(new AuthLink(auth));
      httpSseChain.add(new AuthLink(auth));
      requests.authorization(auth); // every request, of either transport, carries the login at hand
    }
    this.httpSseLinks = List.copyOf(httpSseChain);
    // The 2026 era: a chain of its own (no sessions, GET stream or handshake on the wire).
    this.era2026 = new Era2026Chain(config, upstream, inbound, ledger, reusedIds, pages,
        chain.subList(0, config.normalizeArguments() ? 2 : 1), auth, sleeper, log);
    this.eras = new EraDecision(config.era(), config.url(), era2026::discover, era2026.session(), log);
    this.httpSse = config.transport() == RelayConfig.Transport.STREAMABLE_HTTP ? null
        : new HttpSseUpstream(client, requests, config, log, inbound, sleeper, memory);
    this.usingHttpSse = config.transport() == RelayConfig.Transport.SSE;
    this.transportDecided = config.transport() != RelayConfig.Transport.AUTO;
    this.links = List.copyOf(chain);
    wire.onBroken(() -> Thread.ofVirtual().start(() -> shutdown("stdout closed by the host")));
  }

  /**
   * Relays until stdin ends or {@link #shutdown} is called, then finishes in-flight work within
   * the grace period, ends the session and returns the exit code.
   */
  /** What this relay has counted so far. */
  public RelayCounts.Snapshot counts() {
    return counts.snapshot();
  }

  public int run() throws InterruptedException {
    // Only the origin at info level: some services put an API key in the path.
    log.info("connecting to " + origin(config.url()) + (usingHttpSse ? " (HTTP+SSE)" : ""));
    log.debug("endpoint " + config.url());
    if (usingHttpSse) {
      String problem = httpSse.start();
      if (problem != null) {
        log.error(problem);
        sweeper.close();
        return 1;
      }
    }
    eras.start(); // while the host starts up, the probe (if one is needed) is on its way
    log.debug("in flight at most: " + ledger.capacity() + " requests, " + budget.limit() / 1024
        + " KiB of messages (from a heap of " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MiB)");
    Thread reader = Thread.ofPlatform().daemon().name("mcp-stdio-stdin").start(this::readLoop);
    stopped.await();
    reader.interrupt();
    return exitCode;
  }

  /**
   * Makes this relay end its process in bounded time once it starts to shut down (the real
   * process's relay; an embedded one leaves its JVM alone). See {@link ExitWatch}.
   */
  public void haltIfShutdownStalls() {
    exitWatch.arm();
  }

  /**
   * The process is about to stop (a signal arrived): the bounded time to exit runs from now. For
   * a signal handler: allocates nothing.
   */
  public void shutdownBegins() {
    exitWatch.begin();
  }

  /** The process has finished with the relay (its output closed): the exit watch may stand down. */
  public void exited() {
    exitWatch.done();
  }

  /**
   * A thread died of something nobody caught. When it is one the relay cannot do without (the
   * stdin reader, the usher) the relay cannot go on: every open request is answered with an error
   * that says so and the relay exits 1, rather than living on with requests that can never be
   * answered. (An HTTP exchange runs on a thread of its own and fails only itself.) Any other
   * thread's death is only logged: the message it served already got its answer.
   */
  public void threadDied(Thread thread, Throwable error) {
    boolean needed = thread.getName().equals("mcp-stdio-stdin") || thread.getName().equals("mcp-stdio-usher");
    if (needed && Upstream.outOfMemory(error)) {
      fail("out of memory in thread " + thread.getName(), OUT_OF_MEMORY);
    } else if (needed) {
      fail("thread " + thread.getName() + " died (" + error + ")", "the relay failed internally; restart the relay");
    }
  }

  /** The relay cannot go on: every open request gets {@code answer} as its error, then it exits 1. */
  private synchronized void fail(String why, String answer) {
    reserve = null; // the way out must be able to allocate
    if (exitCode != 0) {
      return; // already on its way out
    }
    exitCode = 1;
    log.error(why + "; the relay cannot go on");
    answers.answerEveryOpen(ErrorCodes.INTERNAL_ERROR, answer);
    Thread.ofPlatform().daemon().name("mcp-stdio-fatal").start(() -> shutdown("fatal error"));
  }

  public static String origin(URI url) {
    return url.getScheme() + "://" + url.getHost() + (url.getPort() > 0 ? ":" + url.getPort() : "");
  }

  private void readLoop() {
    StreamingScanner scanner = new StreamingScanner();
    LineReader lines = new LineReader(stdin, config.maxMessageSize(), scanner);
    try {
      while (!stopping.get()) {
        try {
          LineReader.Line line = lines.next();
          if (line == null) {
            break;
          }
          handle(line, lines.memoryExhausted(), scanner.layout());
        } catch (OutOfMemoryError e) {
          // A line too large for the heap: answer it and keep reading the ones after it.
          log.error("out of memory reading a message; raise the heap with MCP_STDIO_JAVA_OPTS=-Xmx...");
          answers.reject(null, ErrorCodes.INTERNAL_ERROR, OUT_OF_MEMORY);
        }
      }
    } catch (IOException e) {
      log.warn("reading stdin failed: " + e.getMessage());
    } catch (InterruptedException e) {
      return;
    } catch (RuntimeException e) {
      log.error("internal relay error reading stdin: " + e);
    }
    try {
      waitingRoom.awaitEmpty(); // what the host wrote before the end is still sent
    } catch (InterruptedException e) {
      return;
    }
    shutdown("stdin closed");
  }

  /**
   * @param layout what the scanner found while the line arrived, or null (the codec then checks
   *     the line whole, and explains what is wrong with it)
   */
  private void handle(LineReader.Line line, boolean memoryExhausted, MessageLayout layout) throws InterruptedException {
    if (line instanceof LineReader.Line.Oversized big) {
      JsonRpcId id = PartialMessage.requestId(big.head());
      if (memoryExhausted) {
        log.error("out of memory reading a stdin message of " + big.length() + " bytes; not sent");
        answers.reject(id, ErrorCodes.INTERNAL_ERROR, OUT_OF_MEMORY);
      } else {
        log.warn("stdin message of " + big.length() + " bytes exceeds --max-message-size (" + config.maxMessageSize() + "); not sent");
        answers.reject(id, ErrorCodes.INVALID_REQUEST,
            "message exceeds --max-message-size (" + config.maxMessageSize() + " bytes)");
      }
      return;
    }
    byte[] bytes = Bytes.trim(((LineReader.Line.Text) line).bytes());
    if (bytes.length == 0) {
      return;
    }
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parseReceived(bytes, layout);
    } catch (MalformedMessageException e) {
      answers.reject(null, ErrorCodes.PARSE_ERROR, "Parse error: " + e.getMessage());
      return;
    }
    accept(message, bytes.length);
  }

  /**
   * The stdin reader's part for each message: what can go now goes now, and a request the relay
   * has no room for waits in the {@link WaitingRoom} while the reader goes on, so that the host's
   * answers to the server and its cancels are never stuck behind it. A cancel of a request still
   * waiting withdraws it. Anything else keeps its place behind the requests waiting before it.
   */
  private void accept(JsonRpcMessage message, int bytes) throws InterruptedException {
    if (message instanceof Notification n && isCancel(n)) {
      switch (withdraw(n)) {
        case WITHDRAWN -> {}
        case IN_A_WAITING_BATCH -> waitBehind(message, bytes); // it must not overtake the batch's POST
        case NOT_HERE, ON_ITS_WAY -> dispatch(message, budget.holdNow(bytes)); // never waits behind requests
      }
      return;
    }
    if (message instanceof Batch b && requestCount(b) == 0) {
      JsonRpcMessage rest = withoutWithdrawn(b); // answers and cancels: they go at once, as when sent alone
      if (rest != null) {
        dispatch(rest, budget.holdNow(bytes));
      }
      return;
    }
    if (message instanceof Response || message instanceof Invalid) {
      dispatch(message, budget.holdNow(bytes)); // an answer to the server may be what frees room
      return;
    }
    int requests = requestCount(message);
    if (waitingRoom.isEmpty()) {
      MessageBudget.Hold hold = requests == 0 ? budget.holdNow(bytes)
          : ledger.hasRoomFor(Math.min(requests, ledger.capacity())) ? budget.tryHoldRequest(bytes) : null;
      if (hold != null) {
        dispatch(message, hold);
        return;
      }
    }
    waitBehind(message, bytes);
  }

  /** {@code message} waits in the room behind what waits there already (or, too large for it, on this thread). */
  private void waitBehind(JsonRpcMessage message, int bytes) throws InterruptedException {
    if (waitingRoom.fits(bytes)) {
      if (!waitingRoom.enter(message, bytes)) {
        refuseWhileStopping(message);
      }
      return;
    }
    // Too large to wait in the room: it waits here, after everything before it (back-pressure).
    waitingRoom.awaitEmpty();
    MessageBudget.Hold hold = requestCount(message) == 0 ? budget.holdNow(bytes) : hold(message, bytes);
    if (hold != null) {
      dispatch(message, hold);
    }
  }

  /** A batch of answers and cancels without the cancels that withdrew a waiting request; null when none is left. */
  private JsonRpcMessage withoutWithdrawn(Batch batch) throws InterruptedException {
    List<JsonRpcMessage> kept = new ArrayList<>();
    for (JsonRpcMessage member : batch.members()) {
      if (!(member instanceof Notification n && isCancel(n) && withdraw(n) == WaitingRoom.Withdrawal.WITHDRAWN)) {
        kept.add(member);
      }
    }
    if (kept.isEmpty()) {
      return null;
    }
    return kept.size() == batch.members().size() ? batch : Rewrites.batchOf(kept);
  }

  /** Offers a host's cancel to the waiting room; a request withdrawn there is logged. */
  private WaitingRoom.Withdrawal withdraw(Notification cancel) throws InterruptedException {
    JsonRpcId id = cancelledId(cancel);
    WaitingRoom.Withdrawal withdrawal = waitingRoom.withdraw(id);
    if (withdrawal == WaitingRoom.Withdrawal.WITHDRAWN) {
      log.info("request " + id + " was cancelled while it waited for room; it was never sent");
    }
    return withdrawal;
  }

  private static boolean isCancel(Notification n) {
    return "notifications/cancelled".equals(n.method());
  }

  private static JsonRpcId cancelledId(Notification n) {
    return Json.id(n.bytes(), Json.field(n.bytes(), n.params(), "requestId"));
  }

  /** How often the usher looks again whether the message it waits for room for was withdrawn or refused. */
  private static final long USHER_LOOKS_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /**
   * The usher's part: lets in the waiting room's first message once there is room for it, or
   * answers it when none came within the relay's patience (counted from when it entered the room).
   */
  private void letIn(WaitingRoom.Entry entry) throws InterruptedException {
    JsonRpcMessage message = entry.message();
    int requests = requestCount(message);
    long deadline = entry.entered() + config.readTimeout().toNanos();
    MessageBudget.Hold hold = null;
    boolean slot = requests == 0;
    try {
      if (requests == 0) {
        hold = budget.holdNow(entry.bytes());
      }
      while (hold == null && entry.pending() && deadline - System.nanoTime() > 0) {
        hold = budget.holdRequest(entry.bytes(), Math.min(deadline - System.nanoTime(), USHER_LOOKS_AGAIN_NANOS),
            TimeUnit.NANOSECONDS);
      }
      int needed = Math.min(requests, ledger.capacity()); // a larger batch takes what it can (admitMembers)
      while (hold != null && !slot && entry.pending()) {
        long left = deadline - System.nanoTime();
        slot = ledger.awaitRoom(needed, Duration.ofNanos(Math.max(0, Math.min(left, USHER_LOOKS_AGAIN_NANOS))));
        if (left <= 0) {
          break;
        }
      }
    } catch (RuntimeException | Error e) {
      if (hold != null) {
        hold.release();
      }
      if (entry.start()) { // never sent: its one answer is this
        answers.rejectRequests(message, false, ErrorCodes.INTERNAL_ERROR, "internal relay error");
      }
      throw e;
    }
    if (!entry.start()) { // withdrawn by a cancel (nothing to answer), or refused by the closer (who answers)
      if (hold != null) {
        hold.release();
      }
      return;
    }
    if (hold == null) {
      answers.rejectRequests(message, false, ErrorCodes.UPSTREAM_ERROR, budgetFull());
    } else if (!slot) {
      hold.release();
      answers.rejectRequests(message, false, ErrorCodes.UPSTREAM_ERROR, tooManyInFlight());
    } else {
      dispatch(message, hold);
    }
  }

  private static int requestCount(JsonRpcMessage message) {
    if (message instanceof Request) {
      return 1;
    }
    return message instanceof Batch b ? (int) b.members().stream().filter(m -> m instanceof Request).count() : 0;
  }

  /**
   * Charges a request's bytes to the budget while its exchange lasts, waiting for room at most
   * the relay's patience. Null when no room came in time: the requests are answered with an error
   * that says so.
   */
  private MessageBudget.Hold hold(JsonRpcMessage message, int bytes) throws InterruptedException {
    MessageBudget.Hold hold = budget.holdRequest(bytes, config.readTimeout().toNanos(), TimeUnit.NANOSECONDS);
    if (hold == null) {
      answers.rejectRequests(message, false, ErrorCodes.UPSTREAM_ERROR, budgetFull());
    }
    return hold;
  }

  private String budgetFull() {
    return "the relay holds " + budget.held() / 1024 + " KiB of messages in flight (its bound is "
        + budget.limit() / 1024 + " KiB) and none finished within " + config.readTimeout().toSeconds() + " s; try again";
  }

  private String tooManyInFlight() {
    return "too many requests in flight (" + ledger.capacity() + ") and none finished within "
        + config.readTimeout().toSeconds() + " s; try again";
  }

  private void dispatch(JsonRpcMessage message, MessageBudget.Hold hold) throws InterruptedException {
    try {
      if (!dispatchHeld(message, hold)) {
        hold.release(); // answered here, never launched
      }
    } catch (OutOfMemoryError e) {
      hold.release();
      log.error("out of memory dispatching a message; raise the heap with MCP_STDIO_JAVA_OPTS=-Xmx...");
      answers.rejectRequests(message, true, ErrorCodes.INTERNAL_ERROR, OUT_OF_MEMORY); // admission may have opened them
    } catch (InterruptedException | RuntimeException e) {
      hold.release();
      throw e;
    }
  }

  /** @return whether an exchange was launched (it releases the hold when it ends) */
  private boolean dispatchHeld(JsonRpcMessage message, MessageBudget.Hold hold) throws InterruptedException {
    if (stopping.get()) {
      refuseWhileStopping(message);
      return false;
    }
    if (message instanceof Invalid invalid) {
      answers.reject(invalid.id(), ErrorCodes.INVALID_REQUEST, "Invalid Request: " + invalid.reason());
      return false;
    } else if (message instanceof Request request) {
      if (!admit(request)) {
        return false;
      }
    } else if (message instanceof Batch batch) {
      message = admitMembers(batch);
      if (message == null) {
        return false;
      }
    } else if (message instanceof Notification n && isCancel(n)) {
      message = cancel(n);
    }
    if (!(message instanceof Request) && !(message instanceof Batch)) {
      order.awaitAll(); // a notification or an answer refers to what came before it
    }
    Call call = Call.of(message);
    answers.owns(call);
    CompletableFuture<Void> done = launch(call, hold);
    if (isHandshake(message)) {
      done.join(); // nothing may overtake the handshake (the GET stream starts after it)
    } else {
      order.dispatched(call.handover());
    }
    return true;
  }

  /** Opens a request in the ledger, or answers it at once when it cannot be sent. */
  private boolean admit(Request request) throws InterruptedException {
    return admit(request, config.readTimeout(), false);
  }

  /** @param wait how long to wait for a free slot at most */
  private boolean admit(Request request, Duration wait, boolean inBatch) throws InterruptedException {
    if (Rewrites.isRelayOwned(request.id())) {
      answers.reject(request.id(), ErrorCodes.INVALID_REQUEST,
          "Invalid Request: ids starting with \"" + Rewrites.RELAY_ID_PREFIX + "\" are reserved by the relay");
      return false;
    }
    AnswerLedger.Opening opening = ledger.open(request.id(), wait, inBatch);
    if (opening == AnswerLedger.Opening.DUPLICATE && !inBatch) { // (never one open for a host batch)
      if (answers.supersede(request.id())) {
        log.info("id " + request.id() + " reused while the request cancelled under it is in flight; the new request "
            + "goes upstream under an alias");
        return true;
      }
      if (!ledger.isOpen(request.id())) {
        // the cancelled request under this id closed between the two looks: open it afresh (a recent
        // cancel still marks it reused, so it goes upstream under an alias all the same)
        opening = ledger.open(request.id(), wait, false);
      }
    }
    switch (opening) {
      case DUPLICATE -> {
        answers.reject(request.id(), ErrorCodes.INVALID_REQUEST,
            "Invalid Request: id " + request.id() + " is already in use by a request in flight");
        return false;
      }
      case BUSY -> {
        answers.reject(request.id(), ErrorCodes.UPSTREAM_ERROR, tooManyInFlight());
        return false;
      }
      case OPENED -> {
        answers.opened(request.id());
        return true;
      }
    }
    throw new AssertionError("unreachable");
  }

  /**
   * Admits a batch member by member: members that cannot be sent are answered at once and cut
   * out, so the server never sees a member the relay already answered. Returns the batch to send,
   * or null when nothing is left.
   */
  private JsonRpcMessage admitMembers(Batch batch) throws InterruptedException {
    List<JsonRpcMessage> kept = new ArrayList<>();
    long deadline = System.nanoTime() + config.readTimeout().toNanos(); // one patience for the whole batch
    for (JsonRpcMessage member : batch.members()) {
      if (member instanceof Invalid invalid) {
        answers.reject(invalid.id(), ErrorCodes.INVALID_REQUEST, "Invalid Request: " + invalid.reason());
      } else if (member instanceof Request request) {
        if (admit(request, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())), true)) {
          kept.add(request);
        }
      } else if (member instanceof Notification n && isCancel(n)) {
        kept.add(cancel(n));
      } else {
        kept.add(member);
      }
    }
    if (kept.isEmpty()) {
      return null;
    }
    return kept.size() == batch.members().size() ? batch : Rewrites.batchOf(kept);
  }

  /**
   * Notes a cancel here, as it is dispatched (on the stdin reader's thread, or the usher's for one
   * that waited behind a batch), so that a response racing the cancel's own POST is already held
   * back. A cancel for a list the relay is paging names the page in flight instead,
   * the only id the server knows.
   */
  private Notification cancel(Notification n) {
    JsonRpcId id = cancelledId(n);
    if (id == null) {
      return n;
    }
    JsonRpcId alias = reusedIds.aliasOf(id); // the server knows a reused id by its alias
    ledger.cancel(id);
    if (httpSse != null) {
      httpSse.cancelled(alias != null ? alias : id); // its post stops waiting: a settled cancel closes silently
    }
    JsonRpcId page = pages.pageInFlight(alias != null ? alias : id);
    JsonRpcId known = page != null ? page : alias;
    return known == null ? n : Rewrites.withParam(n, "requestId", known.json());
  }

  /** After shutdown began, a request is answered at once; nothing more is sent. */
  private void refuseWhileStopping(JsonRpcMessage message) {
    answers.rejectRequests(message, false, ErrorCodes.UPSTREAM_ERROR, "relay shutting down");
  }


  private static boolean isHandshake(JsonRpcMessage message) {
    return (message instanceof Request r && "initialize".equals(r.method()))
        || (message instanceof Notification n && "notifications/initialized".equals(n.method()));
  }

  private CompletableFuture<Void> launch(Call call, MessageBudget.Hold hold) {
    CompletableFuture<Void> done = new CompletableFuture<>();
    Thread exchange =
        Thread.ofVirtual()
            .name("mcp-stdio-exchange")
            .unstarted(
                () -> {
                  MessageBudget.bindToThisThread(hold); // its answer's bytes are charged to it too
                  Outcome.AnswerTail tail = Outcome.AnswerTail.ENDED;
                  try {
                    Outcome outcome = deliver(call);
                    tail = Outcome.tailOf(outcome);
                    write(call, outcome);
                    settle(call, outcome);
                    tail.awaitEnd(); // the exchange lasts as long as its reply (its bytes stay charged)
                  } catch (InterruptedException e) {
                    settle(call, Outcome.Failed.of(Outcome.Kind.SHUTDOWN, "relay shutting down"));
                  } catch (RuntimeException e) {
                    log.error("internal relay error: " + e);
                    settle(call, Outcome.Failed.of(Outcome.Kind.INTERNAL, "internal relay error"));
                  } catch (OutOfMemoryError e) {
                    log.error("out of memory relaying a message; raise the heap with MCP_STDIO_JAVA_OPTS=-Xmx...");
                    settle(call, Outcome.Failed.of(Outcome.Kind.OUT_OF_MEMORY, OUT_OF_MEMORY));
                  } finally {
                    tail.answerWritten(); // written or never to be: what came after it goes on
                    hold.release();
                    answers.ended(call);
                    call.handover().complete(null);
                    exchanges.exit(Thread.currentThread());
                    done.complete(null);
                  }
                });
    // Counted before it starts: a shutdown that begins right now must wait for it.
    exchanges.enter(exchange);
    exchange.start();
    return done;
  }

  /**
   * Runs the call through the chain of the era and transport in use: the one place that decides
   * which links a call goes through. Under auto, the transport is decided at initialize, and a
   * server remembered as a 2025-era one that refuses the 2025 handshake is asked again.
   */
  private Outcome deliver(Call call) throws InterruptedException {
    if (usingHttpSse) {
      return Interceptor.run(httpSseLinks, this::postHttpSse, call);
    }
    if (eras.await() == ProtocolEra.ERA_2026) {
      return era2026.deliver(call);
    }
    Outcome outcome = Interceptor.run(links, upstream::post, call);
    boolean handshakeRefused = isInitialize(call) && outcome instanceof Outcome.Refused r
        && (r.status() == 400 || r.status() == 404 || r.status() == 405);
    if (handshakeRefused && eras.recheck()) {
      return era2026.deliver(call);
    }
    if (!transportDecided && isInitialize(call)) {
      if (handshakeRefused && outcome instanceof Outcome.Refused refused) {
        log.info("the server refused Streamable HTTP (HTTP " + refused.status() + "); trying HTTP+SSE");
        String problem = httpSse.start();
        if (problem == null) {
          usingHttpSse = true;
          transportDecided = true;
          log.info("transport: HTTP+SSE (2024-11-05)");
          return Interceptor.run(httpSseLinks, this::postHttpSse, call);
        }
        log.warn("HTTP+SSE did not work either: " + problem);
      } else if (!(outcome instanceof Outcome.Failed)) {
        transportDecided = true;
        log.info("transport: Streamable HTTP");
      }
    }
    return outcome;
  }

  /**
   * One HTTP+SSE attempt, unless the request was answered meanwhile: a lost stream answers every
   * open request, and one still waiting for the next endpoint must not then reach the server.
   */
  private Outcome postHttpSse(Call call) throws InterruptedException {
    JsonRpcId id = reusedIds.hostId(call.requestId()); // the ledger knows the host's id, not an alias
    if (id != null && !ledger.isOpen(id)) {
      call.handover().complete(null);
      return Outcome.Failed.of(Outcome.Kind.TRANSPORT, "already answered");
    }
    return httpSse.post(call, () -> id == null || ledger.isOpen(id));
  }

  private static boolean isInitialize(Call call) {
    return call.message() instanceof Request r && "initialize".equals(r.method());
  }

  /**
   * The top of the chain: the answer the chain came back with goes to the host (through the
   * router, which translates an alias and lets only an open id's first answer pass), then what
   * the reply carried after it.
   */
  private void write(Call call, Outcome outcome) {
    if (outcome instanceof Outcome.Delivered d && d.answer() != null && !call.internal()) {
      answers.accept(d.answer());
    }
    Outcome.tailOf(outcome).answerWritten();
  }

  /** Gives every request of the call its one answer, if the chain produced none. */
  private void settle(Call call, Outcome outcome) {
    JsonRpcMessage message = call.message();
    if (message instanceof Request r) {
      // (a cancelled request whose id the host reused is not the owner: the new one answers for the id)
      if (answers.isOwner(call, r.id()) && ledger.isOpen(r.id())) {
        settleOpen(call, r.id(), outcome);
      }
    } else if (message instanceof Batch b) {
      for (JsonRpcMessage member : b.members()) {
        if (member instanceof Request r && ledger.isOpen(r.id())) {
          settleOpen(call, r.id(), outcome);
        }
      }
    } else if (message instanceof Notification n) {
      if (isFailure(outcome)) {
        log.warn(n.method() + " was not delivered: " + SessionLink.describe(outcome));
      }
    } else if (message instanceof Response resp) {
      if (isFailure(outcome)) {
        log.warn("the answer to server request " + resp.id() + " was not delivered: " + SessionLink.describe(outcome));
      }
    } // an Invalid message was answered when it arrived
  }

  /**
   * An open request the chain ended without answering: one error that says why, except for a
   * request the host cancelled whose answer was never going to come (it expects nothing more).
   */
  private void settleOpen(Call call, JsonRpcId id, Outcome outcome) {
    if (outcome instanceof Outcome.Failed f && f.kind() == Outcome.Kind.NO_ANSWER && ledger.isCancelled(id)) {
      ledger.closeCancelled(id);
    } else {
      answers.answerFailure(call, id, outcome);
    }
  }

  private static boolean isFailure(Outcome outcome) {
    return outcome instanceof Outcome.Failed || outcome instanceof Outcome.Refused;
  }

  /**
   * Stops taking input, lets in-flight exchanges finish for the grace period, answers the rest
   * with an error, ends the upstream session and releases {@link #run()}. Idempotent.
   */
  public void shutdown(String reason) {
    if (!stopping.compareAndSet(false, true)) {
      return;
    }
    exitWatch.begin(); // from here the process ends in bounded time, whatever happens below
    log.info(reason + ", shutting down");
    for (JsonRpcMessage waiting : waitingRoom.close()) {
      refuseWhileStopping(waiting); // never sent: answered now
    }
    try {
      if (!exchanges.awaitIdle(config.shutdownGrace())) {
        log.info("abandoning " + exchanges.count() + " exchange(s) still in flight");
        exchanges.interruptAll();
        upstream.abortAll("relay shutting down");
        exchanges.awaitIdle(Duration.ofSeconds(2));
      }
      serverStream.stop();
      era2026.stop();
      if (httpSse != null) {
        httpSse.stop();
      }
      answers.answerEveryOpen(ErrorCodes.UPSTREAM_ERROR, "relay shutting down");
      endSession();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      sweeper.close();
      stopped.countDown(); // the exit watch stands down only once the process closed its output (exited)
    }
  }

  /** Ends an abandoned session in the background (best effort, bounded by its own timeout). */
  private void endSessionLater(SessionState.Snapshot old) {
    Thread.ofVirtual().name("mcp-stdio-delete").start(() -> {
      try {
        upstream.delete(SessionLink.sessionHeaders(old), Duration.ofSeconds(2));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  private void endSession() throws InterruptedException {
    SessionState.Snapshot s = session.current();
    if (s.sessionId() == null) {
      return;
    }
    int status = upstream.delete(SessionLink.sessionHeaders(s), Duration.ofSeconds(2));
    log.debug("session ended (DELETE → " + (status < 0 ? "no answer" : "HTTP " + status) + ")");
  }
}
