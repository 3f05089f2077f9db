package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Serve's reverse MRTR bridge over a scripted 2025-era child that asks its client things with
 * real server-to-client requests: the round trip, a burst in one round, several rounds, the
 * state's integrity (tampered, replayed, expired), answers validated before a round is spent,
 * re-asked questions, the capability check, and concurrent bridged calls each on a child.
 */
class Serve2026BridgeTest {

  /**
   * A 2025-era child in {@code sh}. {@code ask}: one elicitation (id q1, its message naming the
   * child's pid), then the text says what came back; {@code burst}: elicitation (naming its key
   * {@code name}), sampling and roots in one burst; {@code rounds}: two elicitations one after the
   * other. Every answer the child gets is appended to the file {@code GOT}.
   */
  static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      verdict() { case "$1" in *'"result"'*Alice*) printf alice ;; *'"error"'*) printf error ;; *) printf other ;; esac; }
      ask() { printf '{"jsonrpc":"2.0","id":"%s","method":"elicitation/create","params":{"message":"pid %s","requestedSchema":{"type":"object"}}}\\n' "$1" "$$"; }
      got() { printf '%s\\n' "$1" >> "GOT"; }
      done_with() { printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}\\n' "$1" "$2"; }
      read -r init; id=$(id_of "$init")
      printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{}},"serverInfo":{"name":"sh-bridge","version":"1"}}}\\n' "$id"
      while read -r line; do
        id=$(id_of "$line")
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"prompts/list"'*) pending=$id; got "held $id" ;;
          *'"name":"ask"'*) ask q1; read -r a; got "$a"; done_with "$id" "$(verdict "$a")"
            if [ -n "$pending" ]; then printf '{"jsonrpc":"2.0","id":%s,"result":{"prompts":[]}}\\n' "$pending"; pending=; fi ;;
          *'"name":"progress"'*) ask q1; read -r a
            printf '{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":%s,"progress":1}}\\n' "$id"
            done_with "$id" "$(verdict "$a")" ;;
          *'"name":"late"'*) ask q1; sleep 0.3
            printf '%s\\n' '{"jsonrpc":"2.0","id":"q2","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}'
            read -r a; got "$a"; read -r b; got "$b"; done_with "$id" late ;;
          *'"name":"burst"'*)
            printf '%s\\n' '{"jsonrpc":"2.0","id":"q1","method":"elicitation/create","params":{"message":"name?","requestedSchema":{"type":"object"},"_meta":{"dev.mcp-stdio/inputKey":"name"}}}'
            printf '%s\\n' '{"jsonrpc":"2.0","id":"q2","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}'
            printf '%s\\n' '{"jsonrpc":"2.0","id":"q3","method":"roots/list"}'
            read -r a; read -r b; read -r c; got "$a"; got "$b"; got "$c"
            done_with "$id" "$(verdict "$a") $(verdict "$b") $(verdict "$c")" ;;
          *'"name":"gated"'*) got "gated $id"; while [ ! -f "GATE" ]; do sleep 0.02; done; done_with "$id" gated ;;
          *'"name":"change"'*) printf '%s\n' '{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}'; done_with "$id" changed ;;
          *'"name":"rounds"'*) ask r1; read -r a; ask r2; read -r b; done_with "$id" "$(verdict "$a") $(verdict "$b")" ;;
          *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\\n' "$id" ;;
        esac
      done
      """;

  static final String ALL = "{\"elicitation\":{},\"sampling\":{},\"roots\":{}}";
  static final String ALICE = "{\"action\":\"accept\",\"content\":{\"name\":\"Alice\"}}";

  private static Path dir;
  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("bridge");
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(dir.resolve("got"))))
        .withLimits(100, Duration.ZERO, 1 << 20, Duration.ofSeconds(20), Duration.ofMillis(300))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 8, 16)));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
    try (var files = Files.list(dir)) {
      for (Path p : files.toList()) {
        Files.delete(p);
      }
    }
    Files.delete(dir);
  }

  static String child(Path got) {
    return CHILD.replace("\"GOT\"", "'" + got + "'").replace("\"GATE\"", "'" + got + ".gate'");
  }

  static String call(Object id, String tool, String capabilities, String extra) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{},"
        + (extra == null ? "" : extra + ",")
        + "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":"
        + capabilities + "}}}";
  }

  static String retry(Object id, String tool, String state, String responses) {
    return call(id, tool, ALL, "\"inputResponses\":" + responses + ",\"requestState\":\"" + state + "\"");
  }

  static HttpResponse<String> post(ServeHarness on, String body, String tool, boolean stream) throws Exception {
    return on.post(null, body, stream, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", tool);
  }

  /** The JSON answer of {@code r}, whether it came as JSON or as an event stream's last event. */
  static String answer(HttpResponse<String> r) {
    if (r.headers().firstValue("Content-Type").orElse("").startsWith("text/event-stream")) {
      List<String> events = ServeHarness.events(r.body());
      return events.getLast();
    }
    return r.body();
  }

  static String state(String body) {
    Matcher m = Pattern.compile("\"requestState\":\"([^\"]+)\"").matcher(body);
    assertThat(m.find()).as("a requestState in " + body).isTrue();
    return m.group(1);
  }

  @Test
  void aQuestionBecomesAnInputRequiredRoundAndTheRetryGetsTheCallsAnswer() throws Exception {
    for (boolean stream : new boolean[] {false, true}) {
      String first = answer(post(serve, call(1, "ask", ALL, null), "ask", stream));
      assertThat(first).startsWith("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":"
          + "{\"q1\":{\"method\":\"elicitation/create\",\"params\":{\"message\":\"pid ");
      HttpResponse<String> done = post(serve, retry("\"r1\"", "ask", state(first), "{\"q1\":" + ALICE + "}"), "ask", stream);
      assertThat(done.statusCode()).isEqualTo(200);
      assertThat(answer(done)).startsWith("{\"jsonrpc\":\"2.0\",\"id\":\"r1\",\"result\":")
          .contains("\"text\":\"alice\"", "\"resultType\":\"complete\"").doesNotContain("mcp-stdio/serve/");
    }
  }

  @Test
  void aReplayedStateIsRefused() throws Exception {
    String state = state(answer(post(serve, call(2, "ask", ALL, null), "ask", false)));
    assertThat(answer(post(serve, retry(3, "ask", state, "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
    HttpResponse<String> replay = post(serve, retry(4, "ask", state, "{\"q1\":" + ALICE + "}"), "ask", false);
    assertThat(replay.body()).contains("\"id\":4,\"error\":{\"code\":-32602", "stale requestState");
  }

  @Test
  void aTamperedStateIsRefusedAndTheRoundSurvivesIt() throws Exception {
    String state = state(answer(post(serve, call(5, "ask", ALL, null), "ask", false)));
    HttpResponse<String> tampered = post(serve, retry(6, "ask", state + "-TAMPERED", "{\"q1\":" + ALICE + "}"), "ask", false);
    assertThat(tampered.statusCode()).isEqualTo(200);
    assertThat(tampered.body()).contains("\"id\":6,\"error\":{\"code\":-32602", "failed verification");
    String flipped = state.substring(0, 5) + (state.charAt(5) == 'A' ? 'B' : 'A') + state.substring(6);
    assertThat(post(serve, retry(7, "ask", flipped, "{\"q1\":" + ALICE + "}"), "ask", false).body()).contains("-32602");
    assertThat(answer(post(serve, retry(8, "ask", state, "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
  }

  @Test
  void aBurstOfQuestionsIsOneRound() throws Exception {
    String first = answer(post(serve, call(9, "burst", ALL, null), "burst", true));
    assertThat(first).contains("\"inputRequests\":{\"name\":{\"method\":\"elicitation/create\"",
        "\"q2\":{\"method\":\"sampling/createMessage\"", "\"q3\":{\"method\":\"roots/list\"}");
    String done = answer(post(serve, retry(10, "burst", state(first), "{\"name\":" + ALICE + ",\"q2\":{\"role\":\"assistant\","
        + "\"content\":{\"type\":\"text\",\"text\":\"Alice\"},\"model\":\"m\"},\"q3\":{\"roots\":[]}}"), "burst", true));
    assertThat(done).contains("\"id\":10,\"result\"", "\"text\":\"alice alice other\"");
  }

  @Test
  void roundsFollowOneAnotherEachWithItsOwnState() throws Exception {
    String one = answer(post(serve, call(11, "rounds", ALL, null), "rounds", false));
    assertThat(one).contains("\"inputRequests\":{\"r1\":");
    String two = answer(post(serve, retry(12, "rounds", state(one), "{\"r1\":" + ALICE + "}"), "rounds", false));
    assertThat(two).contains("\"id\":12,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"r2\":");
    assertThat(state(two)).isNotEqualTo(state(one));
    assertThat(post(serve, retry(13, "rounds", state(one), "{\"r1\":" + ALICE + "}"), "rounds", false).body())
        .contains("\"id\":13,\"error\":{\"code\":-32602", "stale");
    String done = answer(post(serve, retry(14, "rounds", state(two), "{\"r2\":{\"error\":{\"code\":-1,\"message\":\"no\"}}}"),
        "rounds", false));
    assertThat(done).contains("\"id\":14,\"result\"", "\"text\":\"alice error\"");
  }

  @Test
  void aQuestionTheRetryLeavesUnansweredIsAskedAgain() throws Exception {
    String first = answer(post(serve, call(15, "ask", ALL, null), "ask", false));
    String again = answer(post(serve, retry(16, "ask", state(first), "{\"wrong_key\":" + ALICE + "}"), "ask", false));
    assertThat(again).contains("\"id\":16,\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{\"q1\":");
    assertThat(answer(post(serve, retry(17, "ask", state(again), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
  }

  @Test
  void malformedAnswersAreRefusedBeforeTheRoundIsSpent() throws Exception {
    String first = answer(post(serve, call(18, "ask", ALL, null), "ask", false));
    for (String bad : List.of("{\"q1\":12345}", "null", "{\"q1\":{\"error\":{\"code\":\"x\",\"message\":\"m\"}}}")) {
      assertThat(post(serve, retry(19, "ask", state(first), bad), "ask", false).body()).as(bad)
          .contains("\"id\":19,\"error\":{\"code\":-32602", "inputResponses");
    }
    assertThat(answer(post(serve, retry(20, "ask", state(first), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
    assertThat(post(serve, call(21, "ask", ALL, "\"inputResponses\":null"), "ask", false).body())
        .contains("\"id\":21,\"error\":{\"code\":-32602");
  }

  @Test
  void aNewCallThatBringsTheAnswerIsNotAskedAndExtraKeysAreIgnored() throws Exception {
    String done = answer(post(serve, call(22, "ask", ALL, "\"inputResponses\":{\"q1\":" + ALICE + ",\"extra\":{\"a\":1}}"), "ask",
        false));
    assertThat(done).contains("\"id\":22,\"result\"", "\"text\":\"alice\"", "\"resultType\":\"complete\"");
  }

  @Test
  void aQuestionTheClientCannotAnswerIsA32021() throws Exception {
    HttpResponse<String> r = post(serve, call(23, "ask", "{\"sampling\":{}}", null), "ask", false);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"id\":23", "\"code\":-32021", "\"requiredCapabilities\":{\"elicitation\":{}}");
  }

  @Test
  void aQuestionGoesToTheBridgedCallNotToAnOlderCallSharingItsChild() throws Exception {
    Path got = dir.resolve("shared");
    try (ServeHarness fresh = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(got)))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 1)))) {
      String list = "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"prompts/list\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":" + ALL + "}}}";
      CompletableFuture<HttpResponse<String>> older = CompletableFuture.supplyAsync(() -> quietly(() -> fresh.post(null, list, false,
          "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "prompts/list")));
      Await.until("the older call to be in flight at the child", Duration.ofSeconds(10),
          () -> Files.exists(got) && quietly(() -> Files.readString(got)).contains("held "));
      String first = answer(post(fresh, call(43, "ask", ALL, null), "ask", false));
      assertThat(first).as("the bridged call's question is its own round").contains("\"id\":43,\"result\":{\"resultType\":\"input_required\"");
      assertThat(answer(post(fresh, retry(44, "ask", state(first), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
      assertThat(older.get(20, java.util.concurrent.TimeUnit.SECONDS).body()).contains("\"id\":42,\"result\":");
    }
  }

  @Test
  void aQuestionTheClientCannotAnswerWhileItsCallIsParkedIsA32021UnderTheRetrysId() throws Exception {
    Path got = dir.resolve("late");
    try (ServeHarness fresh = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(got))))) {
      String first = answer(post(fresh, call(45, "late", "{\"elicitation\":{}}", null), "late", false));
      assertThat(first).contains("\"id\":45,\"result\":{\"resultType\":\"input_required\"");
      Await.until("the parked call's undeclared question to be refused", Duration.ofSeconds(10),
          () -> Files.exists(got) && quietly(() -> Files.readString(got)).contains("\"id\":\"q2\",\"error\""));
      HttpResponse<String> r = post(fresh, call("\"late-retry\"", "late", "{\"elicitation\":{}}",
          "\"inputResponses\":{\"q1\":" + ALICE + "},\"requestState\":\"" + state(first) + "\""), "late", false);
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":\"late-retry\",\"error\":{\"code\":-32021");
    }
  }

  @Test
  void progressDuringARetryCarriesTheRetrysOwnTokenAndNoneWhenItGaveNone() throws Exception {
    String first = answer(post(serve, call(46, "progress", ALL, null).replace("\"_meta\":{", "\"_meta\":{\"progressToken\":\"p-first\","),
        "progress", true));
    assertThat(first).contains("input_required");
    String retry = retry(47, "progress", state(first), "{\"q1\":" + ALICE + "}")
        .replace("\"_meta\":{", "\"_meta\":{\"progressToken\":\"p-retry\",");
    HttpResponse<String> done = post(serve, retry, "progress", true);
    List<String> events = ServeHarness.events(done.body());
    assertThat(events).hasSize(2);
    assertThat(events.getFirst()).contains("\"progressToken\":\"p-retry\"").doesNotContain("p-first", "mcp-stdio/serve/");
    assertThat(events.getLast()).contains("\"id\":47,\"result\"", "alice");

    String again = answer(post(serve, call(48, "progress", ALL, null).replace("\"_meta\":{", "\"_meta\":{\"progressToken\":\"p-2\","),
        "progress", true));
    HttpResponse<String> quiet = post(serve, retry(49, "progress", state(again), "{\"q1\":" + ALICE + "}"), "progress", true);
    assertThat(answer(quiet)).contains("\"id\":49,\"result\"", "alice");
    assertThat(quiet.body()).as("a retry that asked no progress gets none").doesNotContain("notifications/progress");
  }

  @Test
  void concurrentBridgedCallsEachGetAChildOfTheirOwn() throws Exception {
    CompletableFuture<HttpResponse<String>> a = CompletableFuture.supplyAsync(() -> quietly(() -> post(serve, call(24, "ask", ALL,
        null), "ask", false)));
    CompletableFuture<HttpResponse<String>> b = CompletableFuture.supplyAsync(() -> quietly(() -> post(serve, call(25, "ask", ALL,
        null), "ask", false)));
    String first = answer(a.get());
    String second = answer(b.get());
    assertThat(first).contains("input_required");
    assertThat(second).contains("input_required");
    Matcher pa = Pattern.compile("pid ([0-9]+)").matcher(first);
    Matcher pb = Pattern.compile("pid ([0-9]+)").matcher(second);
    assertThat(pa.find() && pb.find()).isTrue();
    assertThat(pa.group(1)).isNotEqualTo(pb.group(1));
    assertThat(answer(post(serve, retry(26, "ask", state(first), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
    assertThat(answer(post(serve, retry(27, "ask", state(second), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
  }

  @Test
  void aRoundNotRetriedInTimeExpiresAndTheChildIsToldSo() throws Exception {
    Path got = dir.resolve("expired");
    try (ServeHarness quick = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(got)))
        .withLimits(100, Duration.ZERO, 1 << 20, Duration.ofSeconds(2), Duration.ofMillis(300)))) {
      String first = answer(post(quick, call(28, "ask", ALL, null), "ask", false));
      Await.until("the child to be told its question expired", Duration.ofSeconds(10),
          () -> Files.exists(got) && quietly(() -> Files.readString(got)).contains("-32000"));
      assertThat(Files.readString(got)).contains("\"id\":\"q1\",\"error\":{\"code\":-32000",
          "the client did not return the requested input in time");
      assertThat(post(quick, retry(29, "ask", state(first), "{\"q1\":" + ALICE + "}"), "ask", false).body())
          .contains("\"id\":29,\"error\":{\"code\":-32602");
      // the expired call released its child: the next call is asked again, on a child of the pool
      assertThat(answer(post(quick, call(30, "ask", ALL, null), "ask", false))).contains("input_required");
    }
  }

  @Test
  void atItsCapAPrincipalsNewBridgedCallTakesTheChildOfItsOldestParkedRound() throws Exception {
    Path got = dir.resolve("preempted");
    try (ServeHarness one = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(got)))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 1)))) {
      String abandoned = answer(post(one, call(31, "ask", ALL, null), "ask", false));
      String next = answer(post(one, call(32, "ask", ALL, null), "ask", false));
      assertThat(next).contains("\"id\":32,\"result\":{\"resultType\":\"input_required\"");
      assertThat(Files.readString(got)).contains("\"id\":\"q1\",\"error\":{\"code\":-32000", "before its next call needed");
      assertThat(post(one, retry(33, "ask", state(abandoned), "{\"q1\":" + ALICE + "}"), "ask", false).body())
          .contains("\"id\":33,\"error\":{\"code\":-32602", "stale");
      assertThat(answer(post(one, retry(34, "ask", state(next), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
    }
  }

  @Test
  void atItsCapARequestWaitsForTheChildOfACallInFlightInsteadOfA503() throws Exception {
    Path got = dir.resolve("capwait");
    try (ServeHarness one = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(got)))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 1)))) {
      CompletableFuture<HttpResponse<String>> holding = CompletableFuture.supplyAsync(() -> quietly(() -> post(one,
          call(50, "gated", ALL, null), "gated", false)));
      Await.until("the first call to reach the child", Duration.ofSeconds(15),
          () -> Files.exists(got) && quietly(() -> Files.readString(got)).contains("gated \"mcp-stdio/serve/"));
      CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> quietly(() -> post(one,
          call(51, "change", ALL, null), "change", false)));
      Await.until("the second call to wait at the cap", Duration.ofSeconds(15),
          () -> one.log().contains("waits for a child at the pool's cap"));
      assertThat(waiting).as("no 503 while the only child is held").isNotDone();
      Files.createFile(Path.of(got + ".gate"));
      assertThat(answer(holding.get(15, TimeUnit.SECONDS))).contains("\"id\":50,\"result\"", "gated");
      HttpResponse<String> second = waiting.get(15, TimeUnit.SECONDS);
      assertThat(second.statusCode()).isEqualTo(200);
      assertThat(answer(second)).contains("\"id\":51,\"result\"", "changed");
    }
  }

  @Test
  void aBridgedCallThatTakesThePrincipalsLastFreeChildStartsASpare() throws Exception {
    try (ServeHarness fresh = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(dir.resolve("spare")))))) {
      String parked = answer(post(fresh, call(35, "ask", ALL, null), "ask", false));
      assertThat(parked).contains("input_required");
      Await.until("a spare child to be started", Duration.ofSeconds(10),
          () -> fresh.log().split("for 2026-era requests", -1).length - 1 == 2);
      assertThat(answer(post(fresh, retry(36, "ask", state(parked), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
      assertThat(fresh.log().split("for 2026-era requests", -1).length - 1).as("no third child while one is free").isEqualTo(2);
    }
  }

  @Test
  void aListChangeOnAnotherChildOfThePrincipalReachesItsListenStreams() throws Exception {
    try (ServeHarness fresh = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(dir.resolve("listen")))))) {
      String listen = "{\"jsonrpc\":\"2.0\",\"id\":\"L\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
          + "{\"promptsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
          + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
      HttpResponse<java.util.stream.Stream<String>> stream = fresh.http.send(fresh.request(null)
          .header("Content-Type", "application/json").header("Accept", "text/event-stream")
          .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "subscriptions/listen")
          .POST(java.net.http.HttpRequest.BodyPublishers.ofString(listen)).build(), HttpResponse.BodyHandlers.ofLines());
      java.util.Iterator<String> lines = stream.body().iterator();
      assertThat(ServeHarness.nextEvent(lines)).contains("notifications/subscriptions/acknowledged");
      String parked = answer(post(fresh, call(37, "ask", ALL, null), "ask", false)); // holds the listen's child
      assertThat(parked).contains("input_required");
      assertThat(answer(post(fresh, call(38, "change", ALL, null), "change", false))).contains("changed"); // on the spare
      // the listen declared no capabilities, the calls all three: the listen's child (its key) is not
      // the one that ran the change (a child of the calls' key, the ask's or its spare)
      assertThat(fresh.log().split("pool: started", -1).length - 1).as(fresh.log()).isGreaterThanOrEqualTo(2);
      assertThat(ServeHarness.nextEvent(lines)).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/prompts/list_changed\","
          + "\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"L\"}}}");
      stream.body().close();
      assertThat(answer(post(fresh, retry(39, "ask", state(parked), "{\"q1\":" + ALICE + "}"), "ask", false))).contains("alice");
    }
  }

  private interface Io<T> {
    T get() throws Exception;
  }

  private static <T> T quietly(Io<T> io) {
    try {
      return io.get();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
