package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.Cancellation;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The multi-round-trip bridge (MRTR, 2026-07-28) for a 2025-era host: a 2026 server never asks the
 * client anything; it answers {@code tools/call}, {@code resources/read} or {@code prompts/get}
 * with {@code resultType: "input_required"} and the questions ({@code inputRequests}: key →
 * {@code elicitation/create}, {@code sampling/createMessage} or {@code roots/list}), and expects
 * the same request again with the answers ({@code inputResponses}, under the server's keys) and
 * its {@code requestState}, byte for byte. A 2025-era host knows only server-to-client requests,
 * so this link asks it those: every question of a round at once, under relay-owned ids ({@code
 * mcp-stdio/mrtr/<call>/<n>}), and when all are answered sends the request again under a new id
 * ({@code mcp-stdio/mrtr-retry/<call>/<round>}); the final answer goes to the host under its own
 * id.
 *
 * <p>Only what the host declared in its {@code initialize} is asked; URL-mode elicitation and
 * sampling with tools (which a 2025 host's answer cannot carry through) are refused. Bounds:
 * {@link #MAX_ROUNDS} rounds per call, {@link #MAX_PENDING} calls waiting for the host at once,
 * {@link #HOST_PATIENCE} for the host's answers in one round (a person may be answering). Every
 * failure ends in one error under the host's id that says what went wrong, and a {@code
 * notifications/cancelled} to the host for each question still open. The host's cancel of its
 * request ends it in silence (its questions cancelled, the leg in flight closed); a host's error
 * answer to a question ends it with an error.
 */
final class MrtrBridge implements Interceptor {

  static final int MAX_ROUNDS = 32;
  static final int MAX_PENDING = 256;
  static final Duration HOST_PATIENCE = Duration.ofMinutes(30);

  static final Set<String> BRIDGED_METHODS = Set.of("tools/call", "resources/read", "prompts/get");

  /** The question's method → the capability the host must have declared for it. */
  static final Map<String, String> CAPABILITY = Map.of(
      "elicitation/create", "elicitation",
      "sampling/createMessage", "sampling",
      "roots/list", "roots");

  private final Era2026Session session;
  private final Inbound toHost;
  private final ResponseCloser legs;
  private final Log log;
  private final AtomicLong calls = new AtomicLong();
  /** Questions asked of the host, by their relay-owned id: the answer each waits for. Bounded by MAX_PENDING × the questions of a round. */
  private final Map<JsonRpcId, CompletableFuture<Response>> questions = new ConcurrentHashMap<>();
  /** Calls in a round trip, by the host's id (as it travels): the leg in flight and the questions open. */
  private final Map<JsonRpcId, Transaction> open = new ConcurrentHashMap<>();

  MrtrBridge(Era2026Session session, Inbound toHost, ResponseCloser legs, Log log) {
    this.session = session;
    this.toHost = toHost;
    this.legs = legs;
    this.log = log;
  }

  /** One call's round trips. */
  private static final class Transaction {
    volatile JsonRpcId leg; // the id the request travels under now
    final List<JsonRpcId> asked = new ArrayList<>(); // guarded by this: questions not answered yet
    volatile boolean cancelled;
    final CompletableFuture<Void> cancel = new CompletableFuture<>();
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    if (call.internal() || session.hostSpeaks2026() || !(call.message() instanceof Request request)
        || !BRIDGED_METHODS.contains(request.method())) {
      return chain.proceed(call);
    }
    Outcome outcome = chain.proceed(call);
    if (!inputRequired(outcome)) {
      return outcome;
    }
    Transaction t = new Transaction();
    t.leg = request.id();
    synchronized (open) { // the bound and the entry together: concurrent calls never pass it
      if (open.size() >= MAX_PENDING) {
        return error(outcome, request, "more than " + MAX_PENDING + " requests wait for the host's input at once");
      }
      if (open.putIfAbsent(request.id(), t) != null) {
        return error(outcome, request, "a request with this id is already waiting for the host's input");
      }
    }
    try {
      return roundTrips(chain, call, request, outcome, t);
    } finally {
      open.remove(request.id(), t);
      cancelQuestions(t);
    }
  }

  private Outcome roundTrips(Chain chain, Call call, Request request, Outcome outcome, Transaction t)
      throws InterruptedException {
    long n = calls.incrementAndGet();
    for (int round = 1; inputRequired(outcome); round++) {
      Outcome.tailOf(outcome).answerWritten();
      if (round > MAX_ROUNDS) {
        return error(outcome, request, "the server asked for input more than " + MAX_ROUNDS + " times");
      }
      Response interim = ((Outcome.Delivered) outcome).answer();
      byte[] bytes = interim.bytes();
      Map<String, JsonSpan> result = Json.fields(bytes, interim.result());
      JsonSpan inputRequests = result.get("inputRequests");
      JsonSpan requestState = result.get("requestState");
      Map<String, JsonSpan> asks = inputRequests == null ? Map.of() : Json.fields(bytes, inputRequests);
      if (asks == null || (inputRequests == null && requestState == null)
          || (requestState != null && Json.string(bytes, requestState) == null)) {
        return malformed(outcome, request, "an input_required result needs inputRequests (an object) or requestState (a string)");
      }
      Map<String, String> answers = new LinkedHashMap<>();
      if (!asks.isEmpty()) {
        String problem = ask(n, t, bytes, asks, answers);
        if (problem != null) {
          return t.cancelled ? cancelled() : error(outcome, request, problem);
        }
      }
      if (t.cancelled) {
        return cancelled();
      }
      JsonRpcId retryId = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "mrtr-retry/" + n + "/" + round);
      Request retry = Rewrites.withId(request, retryId);
      if (!asks.isEmpty()) {
        StringBuilder responses = new StringBuilder("{");
        answers.forEach((key, json) -> {
          if (responses.length() > 1) {
            responses.append(',');
          }
          responses.append(Json.quote(key)).append(':').append(json);
        });
        retry = Rewrites.withParam(retry, "inputResponses", responses.append('}').toString());
      }
      if (requestState != null) {
        retry = Rewrites.withParam(retry, "requestState", requestState.text(bytes)); // byte for byte
      }
      t.leg = retryId;
      outcome = chain.proceed(call.withBody(retry));
      if (t.cancelled) {
        Outcome.tailOf(outcome).answerWritten();
        return cancelled();
      }
    }
    if (outcome instanceof Outcome.Delivered d && d.answer() != null) {
      return d.withAnswer(Rewrites.withId(d.answer(), request.id()));
    }
    return outcome;
  }

  /**
   * Asks the host every question of a round at once and waits for all the answers; null when all
   * came (in {@code answers}, key → result JSON), else what went wrong.
   */
  private String ask(long n, Transaction t, byte[] bytes, Map<String, JsonSpan> asks, Map<String, String> answers)
      throws InterruptedException {
    Map<String, Request> minted = new LinkedHashMap<>();
    int i = 0;
    for (Map.Entry<String, JsonSpan> ask : asks.entrySet()) {
      Map<String, JsonSpan> q = Json.fields(bytes, ask.getValue());
      String method = q == null ? null : Json.string(bytes, q.get("method"));
      JsonSpan params = q == null ? null : q.get("params");
      if (method == null || !CAPABILITY.containsKey(method)) {
        return "the server asked for " + (method == null ? "something that is not a request" : Json.quote(method))
            + ", which is not one of elicitation/create, sampling/createMessage, roots/list";
      }
      if (!session.hostDeclared(CAPABILITY.get(method))) {
        return "the server asked for " + method + ", but the host did not declare the " + CAPABILITY.get(method)
            + " capability";
      }
      String refusal = refusal(method, bytes, params);
      if (refusal != null) {
        return refusal;
      }
      JsonRpcId id = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "mrtr/" + n + "/" + (++i));
      String json = "{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"method\":" + Json.quote(method)
          + (params == null ? "" : ",\"params\":" + hostParams(method, bytes, params)) + "}";
      minted.put(ask.getKey(), (Request) Era2026Wire.parse(json.getBytes(StandardCharsets.UTF_8)));
    }
    Map<String, CompletableFuture<Response>> waiting = new LinkedHashMap<>();
    for (Map.Entry<String, Request> m : minted.entrySet()) {
      CompletableFuture<Response> answer = new CompletableFuture<>();
      questions.put(m.getValue().id(), answer);
      synchronized (t) {
        t.asked.add(m.getValue().id());
      }
      waiting.put(m.getKey(), answer);
    }
    for (Request question : minted.values()) {
      toHost.accept(question); // all at once: the host may answer them in any order
    }
    long deadline = System.nanoTime() + HOST_PATIENCE.toNanos();
    for (Map.Entry<String, CompletableFuture<Response>> w : waiting.entrySet()) {
      Request question = minted.get(w.getKey());
      Response answer;
      try {
        answer = (Response) CompletableFuture.anyOf(w.getValue(), t.cancel)
            .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        return "the host did not answer " + question.method() + " within " + HOST_PATIENCE.toMinutes() + " minutes";
      } catch (ExecutionException e) {
        return "internal relay error";
      }
      if (t.cancelled || answer == null) {
        return "cancelled";
      }
      synchronized (t) {
        t.asked.remove(question.id());
      }
      questions.remove(question.id());
      if (answer.isError()) {
        return "the host answered " + question.method() + " with an error: " + errorMessage(answer);
      }
      answers.put(w.getKey(), answer.result().text(answer.bytes())); // the host's result, verbatim
    }
    return null;
  }

  /** Why a question cannot be put to a 2025-era host, or null. */
  private static String refusal(String method, byte[] bytes, JsonSpan params) {
    Map<String, JsonSpan> p = params == null ? Map.of() : Json.fields(bytes, params);
    if (p == null) {
      return "the server's " + method + " has params that are not an object";
    }
    if (method.equals("elicitation/create") && "url".equals(Json.string(bytes, p.get("mode")))) {
      return "the server asked for a URL-mode elicitation, which this relay cannot put to a 2025-era host";
    }
    if (method.equals("sampling/createMessage") && p.containsKey("tools")) {
      return "the server asked for sampling with tools, which this relay cannot put to a 2025-era host";
    }
    return null;
  }

  /** A question's params as a 2025-era host takes them: a form elicitation without its {@code mode}. */
  private static String hostParams(String method, byte[] bytes, JsonSpan params) {
    if (method.equals("elicitation/create")) {
      String without = Era2026Wire.withoutMembers(bytes, params, Set.of("mode"));
      if (without != null) {
        return without;
      }
    }
    return params.text(bytes);
  }

  private static String errorMessage(Response answer) {
    byte[] bytes = answer.bytes();
    String message = Json.string(bytes, Json.field(bytes, answer.error(), "message"));
    return message == null ? "(no message)" : message;
  }

  /**
   * An answer from the host to one of the bridge's questions; false when it is not one (the
   * caller drops it: no 2026 server asked anything).
   */
  boolean answered(Response answer) {
    CompletableFuture<Response> waiting = answer.id() == null ? null : questions.remove(answer.id());
    if (waiting == null) {
      return false;
    }
    waiting.complete(answer);
    return true;
  }

  /**
   * The host cancelled one of the bridge's questions: the call that asked it ends with an error
   * (its answer cannot be had). False when {@code id} is not a question open here.
   */
  boolean withdrawn(JsonRpcId id) {
    CompletableFuture<Response> waiting = id == null ? null : questions.remove(id);
    if (waiting == null) {
      return false;
    }
    byte[] error = dev.mcpstdio.jsonrpc.JsonRpcErrors.error(id, ErrorCodes.UPSTREAM_ERROR, "the host cancelled the question");
    waiting.complete((Response) Era2026Wire.parse(error));
    return true;
  }

  /**
   * The host cancelled the request that travels as {@code id}: true when it is in a round trip
   * here (which then ends in silence, its questions cancelled, the leg in flight closed).
   */
  boolean cancelled(JsonRpcId id) {
    Transaction t = open.get(id);
    if (t == null) {
      return false;
    }
    t.cancelled = true;
    t.cancel.complete(null);
    legs.close(t.leg);
    return true;
  }

  /** Tells the host that each question it was asked and did not answer is off. */
  private void cancelQuestions(Transaction t) {
    List<JsonRpcId> asked;
    synchronized (t) {
      asked = List.copyOf(t.asked);
      t.asked.clear();
    }
    for (JsonRpcId id : asked) {
      questions.remove(id);
      toHost.accept(Era2026Wire.parse(Cancellation.notification(id.json(), "the request that needed this input ended")));
    }
  }

  private static boolean inputRequired(Outcome outcome) {
    if (!(outcome instanceof Outcome.Delivered d) || d.answer() == null || d.answer().isError()
        || d.answer().result() == null) {
      return false;
    }
    byte[] bytes = d.answer().bytes();
    return "input_required".equals(Json.string(bytes, Json.field(bytes, d.answer().result(), "resultType")));
  }

  private Outcome error(Outcome outcome, Request request, String why) {
    log.warn(request.method() + " " + request.id() + ": MCP bridge: " + why);
    return withError(outcome, request, ErrorCodes.UPSTREAM_ERROR, "MCP bridge: " + why);
  }

  private Outcome malformed(Outcome outcome, Request request, String why) {
    log.warn(request.method() + " " + request.id() + ": MCP bridge: " + why);
    return withError(outcome, request, ErrorCodes.INVALID_REQUEST, "MCP bridge: " + why);
  }

  private static Outcome withError(Outcome outcome, Request request, int code, String why) {
    Response error = Outcome.answeredLocally(request.id(), code, why).answer();
    return outcome instanceof Outcome.Delivered d ? d.withAnswer(error) : Outcome.answeredLocally(error);
  }

  private static Outcome cancelled() {
    return Outcome.Failed.of(Outcome.Kind.NO_ANSWER, "cancelled by the host");
  }
}
