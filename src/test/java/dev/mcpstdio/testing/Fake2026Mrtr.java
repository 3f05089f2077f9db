package dev.mcpstdio.testing;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A scripted multi-round-trip request (MRTR) for one tool, prompt or resource: N rounds of
 * {@code resultType:"input_required"} (each with {@code inputRequests} and/or {@code
 * requestState}), then a complete result.
 *
 * <p>A call with neither {@code inputResponses} nor {@code requestState} starts at round 0. A
 * retry is checked against the round answered last: {@code requestState} must equal it exactly
 * (absent when that round had none), otherwise the answer is HTTP 200 with -32602, as the TS SDK
 * v2 answers a tampered state; {@code inputResponses} must hold every key asked, otherwise the
 * same round is asked again (the spec's "missing responses SHOULD produce a new
 * InputRequiredResult"); then the next round, or {@link #finish}. Every attempt is recorded with
 * the problems found (a reused JSON-RPC id, params that changed between rounds, a state or key
 * mismatch), so a test can assert on each round. One scripted call runs at a time.
 *
 * <p>Like the TS SDK, a round asking for a capability the request did not declare in {@code
 * _meta.clientCapabilities} is answered 400 -32021 with {@code data.requiredCapabilities}.
 */
public final class Fake2026Mrtr implements Function<Fake2026Exchange, Fake2026Reply> {

  /** One entry of {@code inputRequests}: key → {method, params}. */
  public record Ask(String key, String method, String paramsJson) {

    /** The client capability this input needs, as a ClientCapabilities object. */
    String capability() {
      return switch (method) {
        case "elicitation/create" -> Fake2026Json.parse(paramsJson).path("mode").asString("form").equals("url")
            ? "{\"elicitation\":{\"url\":{}}}" : "{\"elicitation\":{}}";
        case "sampling/createMessage" -> "{\"sampling\":{}}";
        case "roots/list" -> "{\"roots\":{}}";
        default -> null;
      };
    }
  }

  public record Round(List<Ask> asks, String requestState) {}

  /** One call or retry the script saw. {@code answered} is "round k", "complete", or "error ...". */
  public record Attempt(int index, Fake2026Exchange exchange, int expectedRound, String answered, List<String> problems) {
    public JsonNode inputResponses() {
      return exchange.params().path("inputResponses");
    }

    /** {@code params.requestState} as written in the body, or null. */
    public String rawRequestState() {
      return exchange.rawParam("requestState");
    }
  }

  public static Ask ask(String key, String method, String paramsJson) {
    return new Ask(key, method, paramsJson);
  }

  /** A form elicitation asking for one boolean {@code yes}. */
  public static Ask elicit(String key, String message) {
    return new Ask(key, "elicitation/create", "{\"mode\":\"form\",\"message\":" + Fake2026Json.quote(message)
        + ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"yes\":{\"type\":\"boolean\"}},\"required\":[\"yes\"]}}");
  }

  /** A URL-mode elicitation. */
  public static Ask elicitUrl(String key, String message, String url) {
    return new Ask(key, "elicitation/create", "{\"mode\":\"url\",\"message\":" + Fake2026Json.quote(message) + ",\"url\":"
        + Fake2026Json.quote(url) + "}");
  }

  /** A sampling request with one user text message. */
  public static Ask sample(String key, String text) {
    return new Ask(key, "sampling/createMessage", "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
        + Fake2026Json.quote(text) + "}}],\"maxTokens\":20}");
  }

  public static Ask roots(String key) {
    return new Ask(key, "roots/list", "{}");
  }

  private final Fake2026Server server;
  private final List<Round> rounds = new CopyOnWriteArrayList<>();
  private final List<Attempt> attempts = new CopyOnWriteArrayList<>();
  private volatile Function<Fake2026Exchange, Fake2026Reply> finish;
  private volatile boolean capabilityGate = true;
  private int lastAnswered = -1;
  private Fake2026Exchange first;
  private Fake2026Exchange previous;

  Fake2026Mrtr(Fake2026Server server) {
    this.server = server;
    this.finish = call -> {
      ObjectNode result = Fake2026Json.object("{\"content\":[{\"type\":\"text\",\"text\":\"done after "
          + rounds.size() + " rounds\"}]}");
      if (call.params().has("inputResponses")) {
        result.set("inputResponses", call.params().get("inputResponses").deepCopy());
      }
      return server.complete(call, result.toString());
    };
  }

  /** Adds a round; {@code requestState} may be null (then at least one ask is needed). */
  public Fake2026Mrtr round(String requestState, Ask... asks) {
    if (requestState == null && asks.length == 0) {
      throw new IllegalArgumentException("an input_required result needs inputRequests or requestState");
    }
    rounds.add(new Round(List.of(asks), requestState));
    return this;
  }

  /** The answer once every round is done (default: text "done after N rounds" and the last inputResponses echoed). */
  public Fake2026Mrtr finish(Function<Fake2026Exchange, Fake2026Reply> reply) {
    this.finish = reply;
    return this;
  }

  /** Switches the -32021 capability gate off, to ask for inputs the client did not declare. */
  public Fake2026Mrtr withoutCapabilityGate() {
    this.capabilityGate = false;
    return this;
  }

  public List<Round> rounds() {
    return List.copyOf(rounds);
  }

  public List<Attempt> attempts() {
    return List.copyOf(attempts);
  }

  /** Waits (bounded) for {@code n} attempts and returns them. */
  public List<Attempt> awaitAttempts(int n) {
    Await.until(n + " MRTR attempts (have " + attempts.size() + ")", () -> attempts.size() >= n);
    return attempts();
  }

  @Override
  public synchronized Fake2026Reply apply(Fake2026Exchange call) {
    List<String> problems = new ArrayList<>();
    JsonNode responses = call.params().path("inputResponses");
    JsonNode state = call.params().path("requestState");
    boolean fresh = responses.isMissingNode() && state.isMissingNode();
    int expected;
    if (fresh || lastAnswered < 0) {
      if (!fresh) {
        problems.add("a retry with no round answered before");
      }
      expected = 0;
      first = call;
    } else {
      Round prev = rounds.get(lastAnswered);
      if (previous != null && Objects.equals(previous.idJson(), call.idJson())) {
        problems.add("retry reused id " + call.idJson());
      }
      if (first != null && !stripped(first).equals(stripped(call))) {
        problems.add("params changed: " + stripped(first) + " -> " + stripped(call));
      }
      String stateProblem = prev.requestState() == null
          ? (state.isMissingNode() ? null : "requestState sent but none was given")
          : (state.isString() && state.stringValue().equals(prev.requestState()) ? null
              : "requestState " + state + " is not " + Fake2026Json.quote(prev.requestState()));
      if (stateProblem != null) {
        problems.add(stateProblem);
        return record(call, lastAnswered + 1, "error -32602", problems,
            Fake2026Reply.json(Fake2026Json.error(call.idJson(), Fake2026Json.INVALID_PARAMS,
                "Invalid requestState: " + stateProblem, null)));
      }
      List<String> missing = new ArrayList<>();
      for (Ask a : prev.asks()) {
        if (!responses.has(a.key())) {
          missing.add(a.key());
        }
      }
      if (!missing.isEmpty()) {
        problems.add("missing inputResponses " + missing);
        expected = lastAnswered; // ask again
      } else {
        expected = lastAnswered + 1;
      }
    }
    previous = call;
    if (expected >= rounds.size()) {
      lastAnswered = -1;
      return record(call, expected, "complete", problems, finish.apply(call));
    }
    Round round = rounds.get(expected);
    if (capabilityGate) {
      Fake2026Reply refused = gate(call, round);
      if (refused != null) {
        problems.add("capability not declared");
        return record(call, expected, "error -32021", problems, refused);
      }
    }
    lastAnswered = expected;
    return record(call, expected, "round " + expected, problems, Fake2026Reply.json(inputRequired(call, round)));
  }

  private Fake2026Reply record(Fake2026Exchange call, int expected, String answered, List<String> problems,
      Fake2026Reply reply) {
    attempts.add(new Attempt(attempts.size(), call, expected, answered, List.copyOf(problems)));
    return reply;
  }

  private String inputRequired(Fake2026Exchange call, Round round) {
    ObjectNode result = Fake2026Json.object();
    result.put("resultType", "input_required");
    if (!round.asks().isEmpty()) {
      ObjectNode requests = result.putObject("inputRequests");
      for (Ask a : round.asks()) {
        ObjectNode entry = requests.putObject(a.key());
        entry.put("method", a.method());
        entry.set("params", Fake2026Json.parse(a.paramsJson()));
      }
    }
    if (round.requestState() != null) {
      result.put("requestState", round.requestState());
    }
    result.putObject("_meta").set(Fake2026Json.SERVER_INFO, Fake2026Json.parse(server.serverInfoJson()));
    return Fake2026Json.result(call.idJson(), result.toString());
  }

  private static Fake2026Reply gate(Fake2026Exchange call, Round round) {
    JsonNode declared = call.meta(Fake2026Json.CLIENT_CAPABILITIES);
    Map<String, JsonNode> missing = new LinkedHashMap<>();
    for (Ask a : round.asks()) {
      if (a.capability() == null) {
        continue;
      }
      JsonNode need = Fake2026Json.parse(a.capability());
      String top = need.propertyNames().iterator().next();
      JsonNode sub = need.get(top);
      boolean has = declared.has(top) && sub.propertyNames().stream().allMatch(k -> declared.get(top).has(k));
      if (!has) {
        missing.put(top, sub);
      }
    }
    if (missing.isEmpty()) {
      return null;
    }
    ObjectNode data = Fake2026Json.object();
    ObjectNode required = data.putObject("requiredCapabilities");
    missing.forEach(required::set);
    return Fake2026Reply.json(400, Fake2026Json.error(call.idJson(), Fake2026Json.MISSING_CLIENT_CAPABILITY,
        "Missing required client capability", data.toString()));
  }

  /** params without the MRTR members and _meta: what must not change between rounds. */
  private static String stripped(Fake2026Exchange call) {
    if (!(call.params() instanceof ObjectNode p)) {
      return String.valueOf(call.params());
    }
    ObjectNode copy = p.deepCopy();
    for (Iterator<String> it = List.of("inputResponses", "requestState", "_meta").iterator(); it.hasNext(); ) {
      copy.remove(it.next());
    }
    return copy.toString();
  }
}
