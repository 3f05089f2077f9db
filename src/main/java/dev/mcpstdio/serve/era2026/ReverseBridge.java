package dev.mcpstdio.serve.era2026;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpResults;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * Serve's reverse MRTR bridge (mcp-stdio.md 4.8, spec.md 5.9): a 2025-era child that asks its
 * client something ({@code elicitation/create}, {@code sampling/createMessage}, {@code roots/list})
 * during a {@code tools/call}, {@code resources/read} or {@code prompts/get} of a 2026-era client
 * makes that request's answer an {@code input_required} result; the client's retry (same method,
 * {@code params.requestState} and {@code params.inputResponses}, a new id) answers the child, and
 * the call carries on to its answer or to the next round. On by default, for every principal.
 *
 * <p>A round: the questions the child writes in one burst (each within {@link #QUIET} of the
 * previous one, at most {@link #MAX_QUESTIONS}) become one result's {@code inputRequests}, keyed
 * by the child's request id as a string, or by the key the child names in the question's {@code
 * params._meta["dev.mcp-stdio/inputKey"]} ({@link #INPUT_KEY_META}; letters, digits, {@code _.-},
 * at most 64; unique in the round, else the id), a 2025 server's way to give its questions stable
 * names. The {@code requestState} is signed ({@link RequestStateCodec}: principal, method, round,
 * expiry) and the round is parked ({@link ParkedRounds}) with what the call needs to go on: the
 * child's questions by key, the open call at the child, its id entry, and the child itself, held
 * exclusively (one bridged call per child; the pool spawns another within the principal's cap).
 *
 * <p>Invariants: the state's MAC is checked before any of it is parsed; a round is consumed once
 * (a replay finds it gone); the retry's {@code inputResponses} are validated before the round is
 * consumed, so a malformed retry loses nothing; every question of the child gets exactly one
 * answer (the client's, or an error when the round expires, the call ends or the gateway stops).
 * A retry that leaves some questions unanswered gets them asked again in the next round (spec.md
 * 5.9: a new {@code InputRequiredResult}, not an error); unknown keys are ignored. A new call (no
 * state) that brings {@code inputResponses} has them used for the questions whose keys they name.
 *
 * <p>Bounds: {@link #MAX_QUESTIONS} questions per round (more are refused to the child); {@link
 * RequestStateCodec#MAX_ROUNDS} rounds per call (past them the call fails and is cancelled); a
 * round stays parked for half the backend timeout (60 s by default), then the child gets -32000
 * and the call, its id and its child are released; at most {@link ParkedRounds#DEFAULT_CAPACITY}
 * rounds parked (fewer in practice: each holds a pooled child). A principal whose children all
 * wait on parked rounds, at its cap, gives up its oldest round to a new bridged call ({@link
 * #abandonOldest}): abandoned rounds never lock a principal out for the park's 60 s.
 */
final class ReverseBridge implements AutoCloseable {

  /** The quiet after a question that ends its burst. */
  static final Duration QUIET = Duration.ofMillis(50);

  /** Questions in one round at most. */
  static final int MAX_QUESTIONS = 16;

  /** The {@code _meta} member by which a child names a question's key. */
  static final String INPUT_KEY_META = "dev.mcp-stdio/inputKey";

  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_.-]{1,64}");

  private final RequestStateCodec codec;
  private final ParkedRounds<Txn> parked;
  private final IdSpace ids;
  private final BiConsumer<PooledChild, Boolean> release;
  private final Log log;
  private final ScheduledExecutorService sweeper;

  /**
   * @param parkFor how long a round waits for its retry
   * @param release gives a child back to the pool (exclusively held: true)
   */
  ReverseBridge(Duration parkFor, IdSpace ids, BiConsumer<PooledChild, Boolean> release, Log log) {
    InstantSource clock = InstantSource.system();
    byte[] key = new byte[32];
    new java.security.SecureRandom().nextBytes(key);
    this.codec = new RequestStateCodec(key, clock, parkFor);
    this.parked = new ParkedRounds<>(ParkedRounds.DEFAULT_CAPACITY, parkFor, clock);
    this.ids = ids;
    this.release = release;
    this.log = log;
    this.sweeper = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().daemon().name("mrtr-sweeper").factory());
    long period = Math.max(100, Math.min(1000, parkFor.toMillis() / 4));
    sweeper.scheduleWithFixedDelay(this::sweep, period, period, TimeUnit.MILLISECONDS);
  }

  /** A retry of a bridged call: a method that may answer input_required, with a {@code requestState}. */
  static boolean isRetry(Request request) {
    return McpMethods.MAY_REQUIRE_INPUT.contains(request.method())
        && Json.field(request.bytes(), request.params(), "requestState") != null;
  }

  /** What a child asks during a bridged call, in arrival order, until a round takes it. */
  static final class Questions {
    private final ArrayDeque<Request> queue = new ArrayDeque<>();
    private final CompletableFuture<byte[]> answer;
    private boolean closed;
    /** The id of the client request now waiting on the call (the first, then each retry's): a gateway error goes under it. */
    volatile JsonRpcId answerAs;

    Questions(CompletableFuture<byte[]> answer) {
      this.answer = answer;
      answer.whenComplete((a, e) -> wake());
    }

    /** Queues a question; false when {@link #MAX_QUESTIONS} wait already. */
    synchronized boolean offer(Request question) {
      if (closed || queue.size() >= MAX_QUESTIONS) {
        return false;
      }
      queue.add(question);
      notifyAll();
      return true;
    }

    synchronized boolean pending() {
      return !queue.isEmpty();
    }

    /** Wakes a waiter to look again (the call's answer came, or its client left). */
    synchronized void wake() {
      notifyAll();
    }

    /**
     * Waits until a question or the call's answer has come, {@code stop} is done (the caller
     * {@link #wake}s this when it completes), or {@code deadline} (nanoTime).
     */
    synchronized void await(long deadline, java.util.concurrent.Future<?> stop) throws InterruptedException {
      while (queue.isEmpty() && !answer.isDone() && !stop.isDone()) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
    }

    /** Takes the burst: waits until {@link #QUIET} passes with no new question (or the answer, the cap, the deadline). */
    synchronized List<Request> burst(long deadline) throws InterruptedException {
      int seen = queue.size();
      long quietUntil = System.nanoTime() + QUIET.toNanos();
      while (!answer.isDone() && queue.size() < MAX_QUESTIONS) {
        long left = Math.min(quietUntil, deadline) - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
        if (queue.size() > seen) {
          seen = queue.size();
          quietUntil = System.nanoTime() + QUIET.toNanos();
        }
      }
      List<Request> out = new ArrayList<>(queue);
      queue.clear();
      return out;
    }

    /** Takes what waits and refuses every later question (the call is ending). */
    synchronized List<Request> drain() {
      closed = true;
      List<Request> out = new ArrayList<>(queue);
      queue.clear();
      return out;
    }
  }

  /**
   * One bridged call, from its first request to its answer, across its rounds: what it holds (the
   * child, exclusively; the call; its id entry), the questions asked and not yet answered.
   */
  static final class Txn {
    final String principal;
    final String method;
    final String name; // params.name or params.uri of the original request, or null
    final PooledChild child;
    final PooledChild.Call call;
    final IdSpace.Entry entry;
    /** Questions of the last round the retry left unanswered, by key: asked again. */
    final Map<String, Request> carried = new LinkedHashMap<>();
    /** Answers a new call brought before it was asked (its inputResponses), by key: used once. */
    final Map<String, byte[]> offered = new LinkedHashMap<>();
    RequestStateCodec.Issued issued; // the last round's state, or null before the first
    Map<String, Request> asked = Map.of(); // the parked round's questions, by key

    Txn(String principal, Request request, PooledChild child, PooledChild.Call call, IdSpace.Entry entry) {
      this.principal = principal;
      this.method = request.method();
      this.name = nameOf(request);
      this.child = child;
      this.call = call;
      this.entry = entry;
    }

    /** A question waits for a round. */
    boolean asking() {
      return !carried.isEmpty() || call.questions.pending();
    }

    /** Waits until the call's answer or a question, {@code stop}, or the deadline. */
    void await(long deadline, java.util.concurrent.Future<?> stop) throws InterruptedException {
      if (carried.isEmpty()) {
        call.questions.await(deadline, stop);
      }
    }
  }

  /** Starts bridging the new call (no state) of {@code request}: its questions queue up, its inputResponses are offered. */
  Txn begin(String principal, Request request, PooledChild child, PooledChild.Call call, IdSpace.Entry entry) {
    call.questions = new Questions(call.answer);
    Txn txn = new Txn(principal, request, child, call, entry);
    Responses given = responses(request);
    if (given instanceof Answers a) {
      txn.offered.putAll(a.byKey());
    }
    return txn;
  }

  /** Checks a new call's {@code inputResponses} (if any): null when fine, else the client's error. */
  static byte[] checkNew(Request request) {
    return responses(request) instanceof Invalid invalid
        ? JsonRpcErrors.error(request.id(), ErrorCodes.INVALID_PARAMS, invalid.message()) : null;
  }

  // ---------------------------------------------------------------- rounds

  /** What came of a round. */
  sealed interface Round permits Parked, Answered, Failed {}

  /** Parked: {@code body} is the client's input_required answer. */
  record Parked(byte[] body) implements Round {}

  /** Every question was answered already (from the call's inputResponses): carry on waiting. */
  record Answered() implements Round {}

  /** The round cannot be ({@code why}): {@code body} is the client's error; the call is to be cancelled and released. */
  record Failed(int status, byte[] body, String why) implements Round {}

  /**
   * Makes a round of what the child asks ({@code txn} is {@link Txn#asking}): takes the burst,
   * answers what the call brought answers for, and parks the rest under a new state.
   *
   * @param clientId the id of the client request this round answers
   */
  Round round(Txn txn, JsonRpcId clientId, long deadline) throws InterruptedException {
    Map<String, Request> asked = new LinkedHashMap<>(txn.carried);
    txn.carried.clear();
    for (Request q : txn.call.questions.burst(deadline)) {
      asked.put(keyOf(q, asked), q);
    }
    if (txn.call.answer.isDone()) { // the call ended meanwhile: its answer wins
      refuseAll(txn.child, asked.values(), "the call ended before its client answered");
      return new Answered();
    }
    for (var it = asked.entrySet().iterator(); it.hasNext(); ) {
      var question = it.next();
      byte[] given = txn.offered.remove(question.getKey());
      if (given != null) {
        answerChild(txn.child, question.getValue().id(), given);
        it.remove();
      }
    }
    if (asked.isEmpty()) {
      return new Answered();
    }
    int round = txn.issued == null ? 1 : txn.issued.state().round() + 1;
    if (round > RequestStateCodec.MAX_ROUNDS) {
      String why = "the call asked more than " + RequestStateCodec.MAX_ROUNDS + " rounds of questions";
      refuseAll(txn.child, asked.values(), why);
      return new Failed(200, JsonRpcErrors.error(clientId, ErrorCodes.INTERNAL_ERROR, "the server asked its client more than "
          + RequestStateCodec.MAX_ROUNDS + " rounds of questions; the call is abandoned"), why);
    }
    RequestStateCodec.Issued issued = txn.issued == null ? codec.issue(txn.principal, txn.method) : codec.next(txn.issued.state());
    txn.issued = issued;
    txn.asked = asked;
    txn.call.relatedTo(null); // nothing to carry it while parked
    if (!parked.park(issued.state().txn(), issued.state().round(), txn)) {
      String why = "the gateway has too many calls waiting for their clients' input";
      refuseAll(txn.child, asked.values(), why);
      return new Failed(503, JsonRpcErrors.error(clientId, ErrorCodes.INTERNAL_ERROR,
          "too many calls are waiting for their clients' input; retry shortly"), why);
    }
    StringBuilder requests = new StringBuilder();
    for (var question : asked.entrySet()) {
      Request q = question.getValue();
      requests.append(requests.isEmpty() ? "" : ",").append(Json.quote(question.getKey())).append(":{\"method\":")
          .append(Json.quote(q.method()));
      if (q.params() != null) {
        requests.append(",\"params\":").append(q.params().text(q.bytes()));
      }
      requests.append('}');
    }
    String body = "{\"jsonrpc\":\"2.0\",\"id\":" + clientId.json() + ",\"result\":{" + Json.quote(McpResults.RESULT_TYPE) + ":"
        + Json.quote(McpResults.INPUT_REQUIRED) + ",\"inputRequests\":{" + requests + "},\"requestState\":"
        + Json.quote(issued.requestState()) + "}}";
    return new Parked(body.getBytes(StandardCharsets.UTF_8));
  }

  /** The key of {@code question} among {@code taken}: the one the child named, else its id, made unique. */
  private static String keyOf(Request question, Map<String, Request> taken) {
    byte[] bytes = question.bytes();
    JsonSpan meta = Json.field(bytes, question.params(), "_meta");
    String named = meta == null ? null : Json.string(bytes, Json.field(bytes, meta, INPUT_KEY_META));
    if (named != null && KEY.matcher(named).matches() && !taken.containsKey(named)) {
      return named;
    }
    String key = question.id().value();
    for (int n = 2; taken.containsKey(key); n++) {
      key = question.id().value() + "#" + n;
    }
    return key;
  }

  // ---------------------------------------------------------------- retries

  /** What came of a retry. */
  sealed interface Resume permits Resumed, Refused {}

  /**
   * The round was consumed: the call goes on under the retry once {@link #deliver} has written the
   * client's answers to the child, which the caller does only after the retry's progress token and
   * event stream are in place (the child may send progress the moment it has its answers).
   */
  record Resumed(Txn txn, List<Delivery> answers) implements Resume {
    /** Writes the client's answers to the child, in the order it asked; false when one could not be written. */
    boolean deliver() {
      boolean all = true;
      for (Delivery a : answers) {
        all &= answerChild(txn.child, a.questionId(), a.answer());
      }
      return all;
    }
  }

  /** One of the client's answers, for the child's question {@code questionId}. */
  record Delivery(JsonRpcId questionId, byte[] answer) {}

  /** The retry is refused; {@code body} is its answer; nothing was consumed unless the state was genuine and the round gone. */
  record Refused(int status, byte[] body) implements Resume {}

  /**
   * A retry: verifies its state (MAC first), finds its round, validates its answers, consumes the
   * round (once), and gathers the answers to the child's questions ({@link Resumed#deliver}); those
   * it leaves unanswered are asked again.
   */
  Resume resume(Request retry, String principal) {
    byte[] bytes = retry.bytes();
    String state = Json.string(bytes, Json.field(bytes, retry.params(), "requestState"));
    RequestStateCodec.Decoded decoded = codec.decode(state, principal, retry.method());
    if (!(decoded instanceof RequestStateCodec.Valid valid)) {
      return refused(retry, decoded.message());
    }
    RequestStateCodec.State s = valid.state();
    var round = parked.peek(s.txn()).filter(p -> p.round() == s.round()).orElse(null);
    if (round == null) {
      return refused(retry, "stale requestState: its round was already answered, or has expired");
    }
    Txn txn = round.value();
    if (!java.util.Objects.equals(txn.name, nameOf(retry))) {
      return refused(retry, "requestState belongs to another request (its name or uri differs)");
    }
    Map<String, byte[]> answers;
    switch (responses(retry)) {
      case Invalid invalid -> {
        return new Refused(200, JsonRpcErrors.error(retry.id(), ErrorCodes.INVALID_PARAMS, invalid.message()));
      }
      case Answers a -> answers = a.byKey();
    }
    if (parked.consume(s.txn(), s.round()).isEmpty()) {
      return refused(retry, "stale requestState: its round was already answered, or has expired");
    }
    List<Delivery> deliveries = new ArrayList<>();
    for (var question : txn.asked.entrySet()) {
      byte[] answer = answers.get(question.getKey());
      if (answer == null) {
        txn.carried.put(question.getKey(), question.getValue());
      } else {
        deliveries.add(new Delivery(question.getValue().id(), answer));
      }
    }
    txn.asked = Map.of();
    return new Resumed(txn, List.copyOf(deliveries));
  }

  private static Refused refused(Request retry, String why) {
    return new Refused(200, JsonRpcErrors.error(retry.id(), ErrorCodes.INVALID_PARAMS, why));
  }

  // ---------------------------------------------------------------- the client's answers

  private sealed interface Responses permits Answers, Invalid {}

  /** Each key's answer as the JSON the child gets after {@code "id":..,}: {@code "result":{..}} or {@code "error":{..}}. */
  private record Answers(Map<String, byte[]> byKey) implements Responses {}

  private record Invalid(String message) implements Responses {}

  /**
   * The request's {@code params.inputResponses}: absent is none; otherwise an object whose values
   * are result objects, or {@code {"error":{"code":int,"message":string}}} for a question the
   * client refuses.
   */
  private static Responses responses(Request request) {
    byte[] bytes = request.bytes();
    JsonSpan given = Json.field(bytes, request.params(), "inputResponses");
    if (given == null) {
      return new Answers(Map.of());
    }
    if (Json.kind(bytes, given) != JsonToken.START_OBJECT) {
      return new Invalid("params.inputResponses must be an object");
    }
    Map<String, byte[]> byKey = new LinkedHashMap<>();
    for (Json.Member m : Json.members(bytes, given)) {
      if (Json.kind(bytes, m.value()) != JsonToken.START_OBJECT) {
        return new Invalid("each value of params.inputResponses must be an object (a result, or {\"error\":{code, message}})");
      }
      JsonSpan error = Json.field(bytes, m.value(), "error");
      if (error == null) {
        byKey.put(m.name(), ("\"result\":" + m.value().text(bytes)).getBytes(StandardCharsets.UTF_8));
        continue;
      }
      JsonSpan code = Json.kind(bytes, error) == JsonToken.START_OBJECT ? Json.field(bytes, error, "code") : null;
      JsonSpan message = code == null ? null : Json.field(bytes, error, "message");
      if (code == null || Json.kind(bytes, code) != JsonToken.VALUE_NUMBER_INT || code.length() > 11
          || message == null || Json.string(bytes, message) == null) {
        return new Invalid("an error in params.inputResponses needs an integer code and a string message");
      }
      byKey.put(m.name(), ("\"error\":" + error.text(bytes)).getBytes(StandardCharsets.UTF_8));
    }
    return new Answers(byKey);
  }

  /** Writes the client's answer to the child's question {@code questionId}; false when it could not be written. */
  private static boolean answerChild(PooledChild child, JsonRpcId questionId, byte[] answer) {
    byte[] head = ("{\"jsonrpc\":\"2.0\",\"id\":" + questionId.json() + ",").getBytes(StandardCharsets.UTF_8);
    byte[] line = new byte[head.length + answer.length + 1];
    System.arraycopy(head, 0, line, 0, head.length);
    System.arraycopy(answer, 0, line, head.length, answer.length);
    line[line.length - 1] = '}';
    if (!child.send(line)) {
      child.childLog.warn("could not write the client's answer to the server's question");
      return false;
    }
    return true;
  }

  private static void refuseAll(PooledChild child, Iterable<Request> questions, String why) {
    for (Request q : questions) {
      child.refuse(q.id(), ErrorCodes.UPSTREAM_ERROR, why);
    }
  }

  // ---------------------------------------------------------------- endings

  /**
   * Ends a bridged call that is not parked: whatever it still asks is answered with an error, the
   * call closed, its id released, its child given back.
   */
  void finish(Txn txn, String why) {
    settle(txn, why);
    txn.child.close(txn.call);
    ids.release(txn.entry.childId());
    release.accept(txn.child, true);
  }

  /** Answers with an error whatever the ending call still asks, and refuses what it would ask later. */
  void settle(Txn txn, String why) {
    refuseAll(txn.child, txn.carried.values(), why);
    txn.carried.clear();
    refuseAll(txn.child, txn.call.questions.drain(), why);
  }

  /** Expired rounds: the child's questions get -32000, the call is cancelled and everything released. */
  private void sweep() {
    try {
      for (var gone : parked.sweep()) {
        abandon(gone.value(), "the client did not return the requested input in time");
      }
    } catch (RuntimeException e) { // an escaped exception would cancel every later sweep
      log.error("mrtr sweeper: " + e);
    }
  }

  private void abandon(Txn txn, String why) {
    txn.child.childLog.info("a bridged call's round expired or was abandoned (" + why + "); its questions are answered with an error");
    refuseAll(txn.child, txn.asked.values(), why);
    txn.asked = Map.of();
    txn.child.cancel(txn.call.childId, why);
    finish(txn, why);
  }

  /**
   * Gives up {@code principal}'s oldest parked round so that a new bridged call can have its child
   * (every child of the principal waits on a parked round and the pool is at its cap): the round's
   * questions get -32000, its call is cancelled, and a later retry of it is stale. False when the
   * principal has no parked round.
   */
  boolean abandonOldest(String principal) {
    var oldest = parked.takeOldest(txn -> txn.principal.equals(principal));
    oldest.ifPresent(p -> abandon(p.value(), "the client did not return the requested input before its next call needed the server"));
    return oldest.isPresent();
  }

  /** Rounds parked now (for tests). */
  int parked() {
    return parked.size();
  }

  /** Stops the sweeper and answers every parked round's questions (the gateway is shutting down). */
  @Override
  public void close() {
    sweeper.shutdownNow();
    for (var p : parked.drain()) {
      abandon(p.value(), "the gateway is shutting down");
    }
  }

  /** {@code params.name}, or {@code params.uri}, as a string; null when neither. */
  private static String nameOf(Request request) {
    byte[] bytes = request.bytes();
    JsonSpan name = Json.field(bytes, request.params(), "name");
    return Json.string(bytes, name != null ? name : Json.field(bytes, request.params(), "uri"));
  }
}
