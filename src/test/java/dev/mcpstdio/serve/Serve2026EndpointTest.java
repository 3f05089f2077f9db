package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;

import dev.mcpstdio.process.ChildSpec;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The 2026 era on serve's endpoint, over a scripted 2025-era child: classification, the ladder,
 * the pool's child answering under the gateway's ids, the stamping of results and errors, what the
 * era removed, progress and log messages on a call's stream.
 */
class Serve2026EndpointTest {

  /**
   * A 2025-era child in {@code sh}: answers the gateway's initialize, then each request by its
   * method, echoing the gateway's id (and progress token) it was sent.
   */
  static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      read -r init; id=$(id_of "$init")
      printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{\\"tools\\":{\\"listChanged\\":true},\\"resources\\":{}},\\"serverInfo\\":{\\"name\\":\\"sh-2025\\",\\"version\\":\\"1\\"},\\"instructions\\":\\"be kind\\"}}"
      while read -r line; do
        id=$(id_of "$line")
        case "$line" in
          *'"method":"notifications/cancelled"'*) printf 'got cancelled %s\\n' "$line" >&2 ;;
          *'"method":"notifications/'*) ;;
          *'"method":"tools/list"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"tools\\":[{\\"name\\":\\"echo\\",\\"inputSchema\\":{\\"type\\":\\"object\\"}}]}}" ;;
          *'"method":"tools/call"'*'"name":"change"'*)
            printf '%s\\n' '{"jsonrpc":"2.0","method":"notifications/prompts/list_changed"}'
            printf '%s\\n' '{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}'
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[]}}" ;;
          *'"method":"tools/call"'*'"name":"ask"'*)
            printf '%s\\n' '{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}'
            read -r refused; printf 'got refused %s\\n' "$refused" >&2
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[],\\"isError\\":true}}" ;;
          *'"method":"tools/call"'*'"progressToken"'*)
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/progress\\",\\"params\\":{\\"progressToken\\":$id,\\"progress\\":1,\\"total\\":2}}"
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/message\\",\\"params\\":{\\"level\\":\\"debug\\",\\"data\\":\\"quiet\\"}}"
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"method\\":\\"notifications/message\\",\\"params\\":{\\"level\\":\\"error\\",\\"data\\":\\"loud\\"}}"
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"done\\"}]}}" ;;
          *'"method":"tools/call"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"hi\\"}]}}" ;;
          *'"method":"resources/read"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32002,\\"message\\":\\"Resource not found\\"}}" ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
        esac
      done
      """;

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    // the default keep-alive (15 s): a shorter one would open a call's stream before a slow answer
    // (on a loaded machine), and an answer that comes first is what keeps its own status
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD))
        .withLimits(100, Duration.ZERO, 1 << 20, Duration.ofSeconds(20), ServeConfig.DEFAULT_KEEP_ALIVE));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  static String meta(String extra) {
    return "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}"
        + (extra == null ? "" : "," + extra) + "}";
  }

  static String request(Object id, String method, String params) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":{" + (params == null ? "" : params + ",")
        + meta(null) + "}}";
  }

  private static HttpResponse<String> post(String body, String method, boolean stream, String... more) throws Exception {
    List<String> headers = new java.util.ArrayList<>(List.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method));
    headers.addAll(List.of(more));
    return serve.post(null, body, stream, headers.toArray(String[]::new));
  }

  @Test
  void discoverIsAnsweredFromTheChildsInitializeResult() throws Exception {
    HttpResponse<String> r = post(request("\"d\"", "server/discover", null), "server/discover", false);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Mcp-Session-Id")).isEmpty();
    assertThat(r.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"result\":{\"resultType\":\"complete\","
        + "\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{\"listChanged\":true},\"resources\":{}},"
        + "\"instructions\":\"be kind\",\"ttlMs\":60000,\"cacheScope\":\"private\","
        + "\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"sh-2025\",\"version\":\"1\"}}}}");
  }

  @Test
  void aListIsForwardedUnderTheGatewaysIdAndStampedAsCacheable() throws Exception {
    HttpResponse<String> r = post(request(7, "tools/list", null), "tools/list", false);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"tools\":[{\"name\":\"echo\"")
        .contains("\"resultType\":\"complete\"", "\"ttlMs\":60000", "\"cacheScope\":\"private\"",
            "\"io.modelcontextprotocol/serverInfo\":{\"name\":\"sh-2025\"")
        .doesNotContain("mcp-stdio/serve/");
  }

  @Test
  void aCallIsStampedWithItsResultTypeOnly() throws Exception {
    HttpResponse<String> r = post(request("\"c1\"", "tools/call", "\"name\":\"echo\",\"arguments\":{}"), "tools/call", false,
        "Mcp-Name", "echo");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":\"c1\",\"result\":{\"content\":")
        .contains("\"resultType\":\"complete\"").doesNotContain("ttlMs", "cacheScope");
  }

  @Test
  void progressAndLogMessagesAtOrAboveTheRequestedLevelTravelOnTheCallsStream() throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{},"
        + meta("\"progressToken\":\"mine\",\"io.modelcontextprotocol/logLevel\":\"warning\"") + "}}";
    HttpResponse<String> r = post(body, "tools/call", true, "Mcp-Name", "echo");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    List<String> events = ServeHarness.events(r.body());
    assertThat(events).hasSize(3);
    assertThat(events.get(0)).contains("\"progressToken\":\"mine\"").doesNotContain("mcp-stdio/serve/");
    assertThat(events.get(1)).contains("\"data\":\"loud\"");
    assertThat(events.get(2)).startsWith("{\"jsonrpc\":\"2.0\",\"id\":9,\"result\":");
  }

  @Test
  void withoutALogLevelNoLogMessageIsForwarded() throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{},"
        + meta("\"progressToken\":5") + "}}";
    List<String> events = ServeHarness.events(post(body, "tools/call", true, "Mcp-Name", "echo").body());
    assertThat(events).hasSize(2);
    assertThat(events.get(0)).contains("\"progressToken\":5,");
    assertThat(events.get(1)).contains("\"id\":10,\"result\"");
  }

  @Test
  void aResourceNotFoundBecomesInvalidParamsWithItsUri() throws Exception {
    HttpResponse<String> r = post(request(11, "resources/read", "\"uri\":\"file:///nope\""), "resources/read", false,
        "Mcp-Name", "file:///nope");
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("\"code\":-32602", "\"uri\":\"file:///nope\"").doesNotContain("resultType");
  }

  @Test
  void anUnknownMethodIs404AndWhatTheEraRemovedIsNeverAskedOfTheChild() throws Exception {
    HttpResponse<String> unknown = post(request(12, "widgets/spin", null), "widgets/spin", false);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(unknown.body()).contains("\"id\":12,\"error\":{\"code\":-32601");
    for (String removed : List.of("ping", "initialize", "logging/setLevel", "resources/subscribe")) {
      HttpResponse<String> r = post(request(13, removed, null), removed, false);
      assertThat(r.statusCode()).as(removed).isEqualTo(404);
      assertThat(r.body()).as(removed).contains("\"code\":-32601", "2026-07-28");
    }
  }

  @Test
  void anUnknownMethodIs404AlsoForAClientThatAcceptsAStream() throws Exception {
    HttpResponse<String> r = post(request(16, "widgets/spin", null), "widgets/spin", true);
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
  }

  @Test
  void aChildAskingForACapabilityTheClientDidNotDeclareGetsTheClientA32021() throws Exception {
    HttpResponse<String> r = post(request(17, "tools/call", "\"name\":\"ask\",\"arguments\":{}"), "tools/call", true,
        "Mcp-Name", "ask");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"id\":17", "\"code\":-32021", "\"requiredCapabilities\":{\"sampling\":{}}");
    Await.until("the child's question refused and its call cancelled", Duration.ofSeconds(10),
        () -> serve.log().contains("got cancelled ") && serve.log().contains("got refused "));
    assertThat(serve.log()).contains("\"id\":\"srv-1\",\"error\":{\"code\":-32601,\"message\":\"the client did not declare"
        + " the capability sampling\"}", "the client cannot answer this call's question");
  }

  @Test
  void aListenStreamIsAcknowledgedFirstAndCarriesOnlyWhatItsFilterAsksForTaggedWithItsId() throws Exception {
    String listen = "{\"jsonrpc\":\"2.0\",\"id\":\"L1\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
        + "{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
        + "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";
    java.net.http.HttpRequest r = serve.request(null).header("Content-Type", "application/json")
        .header("Accept", "text/event-stream").header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "subscriptions/listen").POST(java.net.http.HttpRequest.BodyPublishers.ofString(listen)).build();
    HttpResponse<java.util.stream.Stream<String>> stream = serve.http.send(r, HttpResponse.BodyHandlers.ofLines());
    assertThat(stream.statusCode()).isEqualTo(200);
    java.util.Iterator<String> lines = stream.body().iterator();
    assertThat(ServeHarness.nextEvent(lines)).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/subscriptions/acknowledged\","
        + "\"params\":{\"notifications\":{\"toolsListChanged\":true},\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"L1\"}}}");
    // the child sends a prompts change (not asked for), then a tools change: only the second comes
    assertThat(post(request(18, "tools/call", "\"name\":\"change\",\"arguments\":{}"), "tools/call", false, "Mcp-Name", "change")
        .statusCode()).isEqualTo(200);
    assertThat(ServeHarness.nextEvent(lines)).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\","
        + "\"params\":{\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"L1\"}}}");
    stream.body().close();
  }

  @Test
  void aFloodOfListenStreamsStopsAtTheChildsCapBeforeAnyAck() throws Exception {
    try (ServeHarness one = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 1)))) {
      List<HttpResponse<java.util.stream.Stream<String>>> open = new java.util.ArrayList<>();
      for (int i = 0; i < 4; i++) {
        HttpResponse<java.util.stream.Stream<String>> r = listen(one, "\"F" + i + "\"");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(ServeHarness.nextEvent(r.body().iterator())).contains("notifications/subscriptions/acknowledged");
        open.add(r);
      }
      HttpResponse<java.util.stream.Stream<String>> fifth = listen(one, "\"F4\"");
      assertThat(fifth.statusCode()).isEqualTo(503);
      assertThat(fifth.body().findFirst().orElse("")).contains("\"id\":\"F4\"", "too many listen streams");
      open.getFirst().body().close(); // a stream that ends frees its place, once the gateway notices (next keep-alive)
      open.forEach(r -> r.body().close());
    }
  }

  private static HttpResponse<java.util.stream.Stream<String>> listen(ServeHarness on, String id) throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
        + "{\"toolsListChanged\":true}," + meta(null) + "}}";
    return on.http.send(on.request(null).header("Content-Type", "application/json").header("Accept", "text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "subscriptions/listen")
        .POST(java.net.http.HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofLines());
  }

  @Test
  void aListenThatDoesNotAcceptAnEventStreamIs406() throws Exception {
    String listen = request("\"L2\"", "subscriptions/listen", null);
    HttpResponse<String> r = serve.http.send(serve.request(null).header("Content-Type", "application/json")
        .header("Accept", "application/json").header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "subscriptions/listen").POST(java.net.http.HttpRequest.BodyPublishers.ofString(listen)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(406);
    assertThat(r.body()).contains("\"id\":\"L2\"", "-32600");
  }

  @Test
  void theLadderRefusesWithTheIdEchoedAndNoValue() throws Exception {
    HttpResponse<String> r = serve.post(null, request(14, "tools/list", null), false, "MCP-Protocol-Version", "2026-07-28",
        "Mcp-Method", "tools/call");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("\"id\":14", "-32020").doesNotContain("tools/call");
    HttpResponse<String> missing = serve.post(null, request(15, "tools/list", null), false);
    assertThat(missing.statusCode()).isEqualTo(400);
    assertThat(missing.body()).contains("\"id\":15", "-32020");
  }

  @Test
  void anIdInTheGatewaysNamespaceIsRefused() throws Exception {
    HttpResponse<String> r = post(request("\"mcp-stdio/serve/1\"", "tools/list", null), "tools/list", false);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("-32600");
  }

  @Test
  void notificationsOfEitherEraWithoutASessionAreAccepted() throws Exception {
    assertThat(serve.post(null, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1}}", false)
        .statusCode()).isEqualTo(202);
    assertThat(post("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1," + meta(null) + "}}",
        "notifications/cancelled", false).statusCode()).isEqualTo(202);
  }

  @Test
  void a2025SessionStillWorksBesideThem() throws Exception {
    String session = serve.initialize(ServeHarness.INIT.replace("\"id\":1", "\"id\":\"s1\""));
    assertThat(session).matches("[0-9a-f]{32}");
  }

  @Test
  void modernOnlyRefusesTheGetStreamDeleteAndA2025Initialize() throws Exception {
    ChildSpec child = ServeHarness.sh(CHILD);
    try (ServeHarness only = ServeHarness.start(ServeHarness.config(child)
        .withEra2026(new ServeConfig.Era2026(true, 0, Duration.ZERO, 1, 1)))) {
      HttpResponse<String> get = only.http.send(only.request(null).header("Accept", "text/event-stream").GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(get.statusCode()).isEqualTo(405);
      assertThat(get.headers().firstValue("Allow")).hasValue("POST");
      assertThat(only.delete("x").statusCode()).isEqualTo(405);
      HttpResponse<String> init = only.post(null, ServeHarness.INIT, false);
      assertThat(init.statusCode()).isEqualTo(400);
      assertThat(init.body()).contains("\"id\":1", "-32022", "\"supported\":[\"2026-07-28\"]", "\"requested\":\"2025-11-25\"");
      HttpResponse<String> list = only.post(null, request(1, "tools/list", null), false, "MCP-Protocol-Version", "2026-07-28",
          "Mcp-Method", "tools/list");
      assertThat(list.body()).contains("\"ttlMs\":0");
    }
  }
}
