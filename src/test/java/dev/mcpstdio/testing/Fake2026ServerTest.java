package dev.mcpstdio.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Ladder.Check;
import dev.mcpstdio.testing.Fake2026Reply.Step;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The 2026 fake server proven over loopback with the JDK HttpClient before relay tests rely on it. */
class Fake2026ServerTest {

  private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private static final String V = Fake2026Json.VERSION;

  private Fake2026Server fake;

  @BeforeEach
  void start() {
    fake = new Fake2026Server();
  }

  @AfterEach
  void stop() {
    assertThat(fake.failures()).isEmpty();
    fake.close();
  }

  @AfterAll
  static void closeClient() {
    HTTP.close();
  }

  // ---- helpers -------------------------------------------------------------------------------

  /** A request body with the 2026 envelope merged into {@code paramsJson}. */
  private static String request(String idJson, String method, String paramsJson) {
    ObjectNode params = paramsJson == null ? Fake2026Json.object() : Fake2026Json.object(paramsJson);
    ObjectNode meta = params.has("_meta") ? (ObjectNode) params.get("_meta") : params.putObject("_meta");
    meta.put(Fake2026Json.PROTOCOL_VERSION, V);
    if (!meta.has(Fake2026Json.CLIENT_CAPABILITIES)) {
      meta.putObject(Fake2026Json.CLIENT_CAPABILITIES);
    }
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"method\":\"" + method + "\",\"params\":" + params + "}";
  }

  private static String bare(String idJson, String method, String paramsJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"method\":\"" + method + "\""
        + (paramsJson == null ? "" : ",\"params\":" + paramsJson) + "}";
  }

  /** The standard headers for {@code method}, plus more name/value pairs. */
  private static String[] std(String method, String... more) {
    List<String> h = new ArrayList<>(List.of("MCP-Protocol-Version", V, "Mcp-Method", method));
    h.addAll(List.of(more));
    return h.toArray(String[]::new);
  }

  private HttpRequest.Builder post(String body, String... headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(fake.url()).timeout(Await.DEFAULT)
        .header("Content-Type", "application/json").header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(body));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return b;
  }

  private HttpResponse<String> send(String body, String... headers) throws Exception {
    return HTTP.send(post(body, headers).build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Asserts a JSON-RPC error with this status and code, id echoed, and returns the error. */
  private static JsonNode assertError(HttpResponse<String> r, int status, int code, String idJson) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
    JsonNode body = Fake2026Json.parse(r.body());
    assertThat(body.path("error").path("code").asInt()).as(r.body()).isEqualTo(code);
    assertThat(body.path("id").toString()).as(r.body()).isEqualTo(idJson);
    return body.get("error");
  }

  private static JsonNode assertResult(HttpResponse<String> r) {
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode result = Fake2026Json.parse(r.body()).path("result");
    assertThat(result.path("resultType").asString()).as(r.body()).isEqualTo("complete");
    assertThat(result.path("_meta").path(Fake2026Json.SERVER_INFO).path("name").asString()).isEqualTo("fake-2026");
    return result;
  }

  private static String sentinel(String text) {
    return "=?base64?" + Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8)) + "?=";
  }

  /** An open event stream: lines arrive on a queue; EOF and errors are queued as markers. */
  private static final class Stream implements AutoCloseable {
    static final String EOF = "\u0000eof";
    static final String FAILED = "\u0000failed";
    final HttpResponse<InputStream> response;
    final BlockingQueue<String> lines = new LinkedBlockingQueue<>();

    Stream(HttpResponse<InputStream> response) {
      this.response = response;
      Thread.ofVirtual().start(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
          String line;
          while ((line = r.readLine()) != null) {
            lines.add(line);
          }
          lines.add(EOF);
        } catch (IOException e) {
          lines.add(FAILED);
        }
      });
    }

    /** The next {@code data:} payload, or a marker. */
    String nextData() throws InterruptedException {
      while (true) {
        String line = lines.poll(Await.DEFAULT.toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
          throw new AssertionError("no event within " + Await.DEFAULT);
        }
        if (line.startsWith("data: ")) {
          return line.substring(6);
        }
        if (line.equals(EOF) || line.equals(FAILED)) {
          return line;
        }
      }
    }

    @Override
    public void close() throws IOException {
      response.body().close();
    }
  }

  private Stream stream(String body, String... headers) throws Exception {
    HttpResponse<InputStream> r = HTTP.send(post(body, headers).build(), HttpResponse.BodyHandlers.ofInputStream());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("content-type")).hasValue("text/event-stream");
    return new Stream(r);
  }

  // ---- transport and ladder ------------------------------------------------------------------

  @Test
  void getAndDeleteAre405AndSessionHeadersAreOnlyRecorded() throws Exception {
    for (String method : List.of("GET", "DELETE")) {
      HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(fake.url()).method(method, HttpRequest.BodyPublishers.noBody())
          .header("Mcp-Session-Id", "s1").header("Last-Event-ID", "e1").build(), HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(405);
      assertThat(r.headers().firstValue("allow")).hasValue("POST");
    }
    HttpResponse<String> ok = send(request("1", "tools/list", null), std("tools/list", "Mcp-Session-Id", "s1"));
    assertResult(ok);
    assertThat(ok.headers().firstValue("mcp-session-id")).isEmpty();
    assertThat(fake.anySessionIdSent()).isTrue();
    assertThat(fake.anyLastEventIdSent()).isTrue();
    assertThat(fake.exchanges()).extracting(Fake2026Exchange::method).containsExactly("GET", "DELETE", "POST");
  }

  @Test
  void notificationsAre202EvenWithoutHeaders() throws Exception {
    HttpResponse<String> r = send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3}}");
    assertThat(r.statusCode()).isEqualTo(202);
    assertThat(r.body()).isEmpty();
    HttpResponse<String> wrong = send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{}}",
        "MCP-Protocol-Version", V, "Mcp-Method", "notifications/other");
    assertError(wrong, 400, -32020, "null");
    assertThat(fake.posts("notifications/cancelled")).hasSize(2);
  }

  @Test
  void envelopeRungs() throws Exception {
    assertError(send(bare("1", "tools/list", "{}"), std("tools/list")), 400, -32602, "1");
    assertError(send(bare("\"a\"", "tools/list", "{\"_meta\":{\"" + Fake2026Json.PROTOCOL_VERSION + "\":\"" + V + "\"}}"),
        std("tools/list")), 400, -32602, "\"a\"");
    JsonNode legacy = assertError(send(bare("2", "tools/list", null)), 400, -32022, "2");
    assertThat(legacy.path("data").path("supported").toString()).isEqualTo("[\"" + V + "\"]");
    JsonNode init = assertError(send(bare("3", "initialize", "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{}}")),
        400, -32022, "3");
    assertThat(init.path("data").path("requested").asString()).isEqualTo("2025-11-25");
    assertError(send(bare("4", "initialize", "{\"protocolVersion\":\"2025-11-25\"}"), std("initialize")), 400, -32020, "4");
  }

  @Test
  void versionRungs() throws Exception {
    String future = request("5", "tools/list", null).replace(V, "2027-01-01");
    JsonNode e = assertError(send(future, "MCP-Protocol-Version", "2027-01-01", "Mcp-Method", "tools/list"), 400, -32022, "5");
    assertThat(e.path("data").toString()).isEqualTo("{\"supported\":[\"" + V + "\"],\"requested\":\"2027-01-01\"}");
    assertError(send(request("6", "tools/list", null), "MCP-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/list"),
        400, -32020, "6");
    assertError(send(request("7", "tools/list", null), "Mcp-Method", "tools/list"), 400, -32020, "7");
    fake.supportedVersions("2027-01-01", V);
    assertResult(send(future, "MCP-Protocol-Version", "2027-01-01", "Mcp-Method", "tools/list"));
  }

  @Test
  void methodAndNameRungs() throws Exception {
    assertError(send(request("1", "tools/list", null), "MCP-Protocol-Version", V), 400, -32020, "1");
    assertError(send(request("2", "tools/list", null), std("prompts/list")), 400, -32020, "2");
    String echo = request("3", "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hi\"}}");
    assertError(send(echo, std("tools/call")), 400, -32020, "3");
    assertError(send(echo, std("tools/call", "Mcp-Name", "ech0")), 400, -32020, "3");
    assertThat(assertResult(send(echo, std("tools/call", "Mcp-Name", "echo"))).path("content").get(0).path("text").asString())
        .isEqualTo("{\"text\":\"hi\"}");
    String meteo = request("4", "tools/call", "{\"name\":\"météo\",\"arguments\":{}}");
    assertResult(send(meteo, std("tools/call", "Mcp-Name", sentinel("météo"))));
    assertError(send(meteo, std("tools/call", "Mcp-Name", "=?base64?not base64?=")), 400, -32020, "4");
    String read = request("5", "resources/read", "{\"uri\":\"file:///tmp/météo.txt\"}");
    assertResult(send(read, std("resources/read", "Mcp-Name", sentinel("file:///tmp/météo.txt"))));
    String literal = request("6", "tools/call", "{\"name\":\"=?base64?eA==?=\",\"arguments\":{}}");
    // a literal that looks like the sentinel is decoded by the server ("x"): it no longer matches
    assertError(send(literal, std("tools/call", "Mcp-Name", "=?base64?eA==?=")), 400, -32020, "6");
  }

  @Test
  void paramHeaderRung() throws Exception {
    String call = request("1", "tools/call",
        "{\"name\":\"headers\",\"arguments\":{\"region\":\"eu west\",\"count\":42,\"verbose\":true,\"where\":{\"zone\":\"zé\"}}}");
    String[] all = std("tools/call", "Mcp-Name", "headers", "Mcp-Param-Region", "eu west", "Mcp-Param-Count", "42.0",
        "Mcp-Param-Verbose", "true", "Mcp-Param-Zone", sentinel("zé"));
    assertResult(send(call, all));
    String[] noZone = std("tools/call", "Mcp-Name", "headers", "Mcp-Param-Region", "eu west", "Mcp-Param-Count", "42",
        "Mcp-Param-Verbose", "true");
    assertError(send(call, noZone), 400, -32020, "1");
    String[] badCount = all.clone();
    badCount[9] = "43";
    assertError(send(call, badCount), 400, -32020, "1");
    // an absent argument needs no header
    assertResult(send(request("2", "tools/call", "{\"name\":\"headers\",\"arguments\":{\"note\":\"n\"}}"),
        std("tools/call", "Mcp-Name", "headers")));
    fake.disable(Check.PARAM_HEADERS);
    assertResult(send(call, noZone));
  }

  @Test
  void removedAndUnknownMethodsAre404() throws Exception {
    for (String m : List.of("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe",
        "notifications/initialized", "roots/list", "no/such")) {
      assertError(send(request("\"x-" + m + "\"", m, null), std(m)), 404, -32601, "\"x-" + m + "\"");
    }
  }

  @Test
  void shapeRungs() throws Exception {
    assertThat(send("[" + request("1", "tools/list", null) + "]", std("tools/list")).statusCode()).isEqualTo(400);
    assertThat(send("{not json", std("tools/list")).statusCode()).isEqualTo(400);
    HttpResponse<String> text = HTTP.send(HttpRequest.newBuilder(fake.url()).header("Content-Type", "text/plain")
        .POST(HttpRequest.BodyPublishers.ofString(request("1", "tools/list", null))).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(text.statusCode()).isEqualTo(415);
  }

  @Test
  void rungsCanBeSwitchedOffAndRequestsIntercepted() throws Exception {
    fake.disable(Check.METHOD_HEADER, Check.VERSION_HEADER);
    assertResult(send(request("1", "tools/list", null)));
    fake.enable(Check.METHOD_HEADER);
    assertError(send(request("2", "tools/list", null)), 400, -32020, "2");
    fake.rejectNextVersion(V);
    JsonNode e = assertError(send(request("3", "tools/list", null), std("tools/list")), 400, -32022, "3");
    assertThat(e.path("data").toString()).isEqualTo("{\"supported\":[\"" + V + "\"],\"requested\":\"" + V + "\"}");
    assertResult(send(request("4", "tools/list", null), std("tools/list")));
    fake.intercept(x -> x.rpcMethod().equals("prompts/list") ? Fake2026Reply.status(503) : null);
    assertThat(send(request("5", "prompts/list", null), std("prompts/list")).statusCode()).isEqualTo(503);
    assertResult(send(request("6", "tools/list", null), std("tools/list")));
  }

  // ---- discover and lists --------------------------------------------------------------------

  @Test
  void discoverAnswersFromConfiguration() throws Exception {
    fake.supportedVersions(V, "2025-11-25").capabilities("{\"tools\":{}}").instructions("be brief")
        .serverInfo("{\"name\":\"fake-2026\",\"version\":\"9\"}").discoverCache(5, "private");
    JsonNode r = assertResult(send(request("\"d1\"", "server/discover", null), std("server/discover")));
    assertThat(r.path("supportedVersions").toString()).isEqualTo("[\"" + V + "\",\"2025-11-25\"]");
    assertThat(r.path("capabilities").toString()).isEqualTo("{\"tools\":{}}");
    assertThat(r.path("instructions").asString()).isEqualTo("be brief");
    assertThat(r.path("ttlMs").asLong()).isEqualTo(5);
    assertThat(r.path("cacheScope").asString()).isEqualTo("private");
    assertThat(r.path("_meta").path(Fake2026Json.SERVER_INFO).path("version").asString()).isEqualTo("9");
  }

  @Test
  void toolsListIsPagedWithHintsPerPage() throws Exception {
    fake.listCache(page -> new Fake2026Server.CacheHints(1000 - page, page == 1 ? "private" : "public"));
    List<String> names = new ArrayList<>();
    String cursor = null;
    int pages = 0;
    do {
      String params = cursor == null ? null : "{\"cursor\":\"" + cursor + "\"}";
      JsonNode r = assertResult(send(request(String.valueOf(pages), "tools/list", params), std("tools/list")));
      assertThat(r.path("ttlMs").asLong()).isEqualTo(1000 - pages);
      assertThat(r.path("cacheScope").asString()).isEqualTo(pages == 1 ? "private" : "public");
      r.path("tools").forEach(t -> names.add(t.path("name").asString()));
      cursor = r.path("nextCursor").asString(null);
      pages++;
    } while (cursor != null);
    assertThat(pages).isEqualTo(3);
    assertThat(names).startsWith("echo", "météo", "headers", "progress", "hang").containsAll(Fake2026Catalog.INVALID_TOOLS);
    assertError(send(request("9", "tools/list", "{\"cursor\":\"bogus\"}"), std("tools/list")), 200, -32602, "9");
  }

  @Test
  void progressToolStreamsNotificationsBeforeTheResult() throws Exception {
    String body = request("7", "tools/call", "{\"name\":\"progress\",\"_meta\":{\"progressToken\":\"p\","
        + "\"" + Fake2026Json.LOG_LEVEL + "\":\"info\"}}");
    try (Stream s = stream(body, std("tools/call", "Mcp-Name", "progress"))) {
      assertThat(s.nextData()).contains("notifications/message");
      for (int i = 1; i <= 3; i++) {
        assertThat(s.nextData()).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
            + "{\"progressToken\":\"p\",\"progress\":" + i + ",\"total\":3}}");
      }
      assertThat(Fake2026Json.parse(s.nextData()).path("result").path("resultType").asString()).isEqualTo("complete");
      assertThat(s.nextData()).isEqualTo(Stream.EOF);
    }
    Fake2026Exchange e = fake.awaitPost("tools/call");
    Await.until("the stream completed", e::completed);
    assertThat(e.clientClosedEarly()).isFalse();
  }

  // ---- stream close, cut ---------------------------------------------------------------------

  @Test
  void clientClosingAHeldStreamIsRecorded() throws Exception {
    Stream s = stream(request("1", "tools/call", "{\"name\":\"hang\"}"), std("tools/call", "Mcp-Name", "hang"));
    Fake2026Exchange e = fake.awaitPost("tools/call");
    assertThat(e.clientClosedEarly()).isFalse();
    s.close();
    e.awaitClientClosed();
    assertThat(e.clientClosedAtNanos()).isPositive();
    assertThat(e.completed()).isFalse();
  }

  @Test
  void clientClosingAHangingJsonExchangeIsRecorded() throws Exception {
    fake.tool("wait", "{\"type\":\"object\"}", call -> Fake2026Reply.hang());
    String body = request("1", "tools/call", "{\"name\":\"wait\"}");
    try (Socket socket = new Socket("127.0.0.1", fake.port())) {
      String head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nMCP-Protocol-Version: " + V
          + "\r\nMcp-Method: tools/call\r\nMcp-Name: wait\r\nContent-Length: "
          + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n";
      socket.getOutputStream().write((head + body).getBytes(StandardCharsets.UTF_8));
      socket.getOutputStream().flush();
      fake.awaitPost("tools/call");
    }
    fake.awaitPost("tools/call").awaitClientClosed();
  }

  @Test
  void aCutStreamEndsWithoutAResult() throws Exception {
    fake.tool("cut", "{\"type\":\"object\"}", call -> Fake2026Reply.sse(
        Step.event(Fake2026Json.progress("1", 1, null)), Step.pause(Duration.ofMillis(20)), Step.cut()));
    try (Stream s = stream(request("1", "tools/call", "{\"name\":\"cut\",\"_meta\":{\"progressToken\":1}}"),
        std("tools/call", "Mcp-Name", "cut"))) {
      assertThat(s.nextData()).contains("notifications/progress");
      assertThat(s.nextData()).isIn(Stream.FAILED, Stream.EOF);
    }
    assertThat(fake.awaitPost("tools/call").completed()).isFalse();
  }

  @Test
  void dropAndAwaitReplies() throws Exception {
    java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(1);
    fake.tool("drop", "{\"type\":\"object\"}", call -> Fake2026Reply.drop());
    fake.tool("gated", "{\"type\":\"object\"}", call -> Fake2026Reply.sse(Step.comment("waiting"), Step.await(go),
        Step.event(fake.completeJson(call, "{\"content\":[]}"))));
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> send(request("1", "tools/call", "{\"name\":\"drop\"}"),
        std("tools/call", "Mcp-Name", "drop"))).isInstanceOf(IOException.class);
    try (Stream s = stream(request("2", "tools/call", "{\"name\":\"gated\"}"), std("tools/call", "Mcp-Name", "gated"))) {
      Await.until("the comment line", () -> s.lines.contains(": waiting"));
      assertThat(s.lines).noneMatch(l -> l.startsWith("data:"));
      go.countDown();
      assertThat(Fake2026Json.parse(s.nextData()).path("id").asInt()).isEqualTo(2);
    }
    assertError(send(bare("null", "tools/list", null), std("tools/list")), 400, -32600, "null");
    fake.on("prompts/get", call -> fake.missingCapability(call, "{\"sampling\":{}}"));
    JsonNode e = assertError(send(request("3", "prompts/get", "{\"name\":\"greet\"}"), std("prompts/get", "Mcp-Name", "greet")),
        400, -32021, "3");
    assertThat(e.path("data").toString()).isEqualTo("{\"requiredCapabilities\":{\"sampling\":{}}}");
  }

  // ---- MRTR ----------------------------------------------------------------------------------

  @Test
  void mrtrRoundsCheckStateKeysAndIds() throws Exception {
    Fake2026Mrtr mrtr = fake.mrtr()
        .round("s1", Fake2026Mrtr.elicit("confirm", "Send?"), Fake2026Mrtr.sample("memo", "memo please"))
        .round("s2+/\"quoted\"");
    fake.tool("transfer", "{\"type\":\"object\",\"properties\":{\"amount\":{\"type\":\"integer\"}}}", mrtr);
    String caps = "\"_meta\":{\"" + Fake2026Json.CLIENT_CAPABILITIES + "\":{\"elicitation\":{},\"sampling\":{}}}";
    String[] h = std("tools/call", "Mcp-Name", "transfer");

    JsonNode r0 = Fake2026Json.parse(send(request("50", "tools/call",
        "{\"name\":\"transfer\",\"arguments\":{\"amount\":120}," + caps + "}"), h).body()).path("result");
    assertThat(r0.path("resultType").asString()).isEqualTo("input_required");
    assertThat(r0.path("inputRequests").propertyNames()).containsExactly("confirm", "memo");
    assertThat(r0.path("inputRequests").path("confirm").path("method").asString()).isEqualTo("elicitation/create");
    assertThat(r0.path("requestState").asString()).isEqualTo("s1");

    String responses = "\"inputResponses\":{\"confirm\":{\"action\":\"accept\",\"content\":{\"yes\":true}},"
        + "\"memo\":{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"m\"},\"model\":\"x\"}}";
    JsonNode r1 = Fake2026Json.parse(send(request("51", "tools/call", "{\"name\":\"transfer\",\"arguments\":{\"amount\":120},"
        + responses + ",\"requestState\":\"s1\"," + caps + "}"), h).body()).path("result");
    assertThat(r1.path("resultType").asString()).isEqualTo("input_required");
    assertThat(r1.has("inputRequests")).isFalse();
    String state = r1.path("requestState").asString();

    HttpResponse<String> done = send(request("52", "tools/call", "{\"name\":\"transfer\",\"arguments\":{\"amount\":120},"
        + "\"requestState\":" + Fake2026Json.quote(state) + "," + caps + "}"), h);
    assertResult(done);
    List<Fake2026Mrtr.Attempt> attempts = mrtr.awaitAttempts(3);
    assertThat(attempts).extracting(Fake2026Mrtr.Attempt::answered).containsExactly("round 0", "round 1", "complete");
    assertThat(attempts).allSatisfy(a -> assertThat(a.problems()).isEmpty());
    assertThat(attempts.get(2).rawRequestState()).isEqualTo("\"s2+/\\\"quoted\\\"\"");
    assertThat(attempts.get(1).inputResponses().propertyNames()).containsExactly("confirm", "memo");
  }

  @Test
  void mrtrFlagsTamperingMissingKeysReusedIdsAndUndeclaredCapabilities() throws Exception {
    Fake2026Mrtr mrtr = fake.mrtr().round("s1", Fake2026Mrtr.elicit("confirm", "Send?"));
    fake.tool("t", "{\"type\":\"object\"}", mrtr);
    String[] h = std("tools/call", "Mcp-Name", "t");
    String caps = "\"_meta\":{\"" + Fake2026Json.CLIENT_CAPABILITIES + "\":{\"elicitation\":{}}}";
    // no elicitation declared: 400 -32021 with requiredCapabilities as an object
    JsonNode gate = assertError(send(request("1", "tools/call", "{\"name\":\"t\"}"), h), 400, -32021, "1");
    assertThat(gate.path("data").path("requiredCapabilities").toString()).isEqualTo("{\"elicitation\":{}}");
    send(request("2", "tools/call", "{\"name\":\"t\"," + caps + "}"), h);
    // the same id again, and no inputResponses: asked again
    JsonNode again = Fake2026Json.parse(send(request("2", "tools/call", "{\"name\":\"t\",\"requestState\":\"s1\"," + caps + "}"), h)
        .body()).path("result");
    assertThat(again.path("resultType").asString()).isEqualTo("input_required");
    // a tampered state: HTTP 200 with -32602
    assertError(send(request("3", "tools/call", "{\"name\":\"t\",\"requestState\":\"forged\",\"inputResponses\":{\"confirm\":{}},"
        + caps + "}"), h), 200, -32602, "3");
    List<Fake2026Mrtr.Attempt> a = mrtr.awaitAttempts(4);
    assertThat(a.get(0).answered()).isEqualTo("error -32021");
    assertThat(a.get(2).problems()).anyMatch(p -> p.contains("reused id")).anyMatch(p -> p.contains("missing inputResponses"));
    assertThat(a.get(3).problems()).anyMatch(p -> p.contains("forged"));
  }

  // ---- listen --------------------------------------------------------------------------------

  private Stream listen(String idJson, String filterJson) throws Exception {
    return stream(request(idJson, "subscriptions/listen", "{\"notifications\":" + filterJson + "}"), std("subscriptions/listen"));
  }

  @Test
  void listenAcksTheHonouredSubsetTagsNotificationsAndEndsWithAResult() throws Exception {
    fake.listenHonour(Fake2026Server.honourOnly("toolsListChanged", "resourceSubscriptions"));
    try (Stream s = listen("\"L1\"", "{\"toolsListChanged\":true,\"promptsListChanged\":true,"
        + "\"resourceSubscriptions\":[\"db://orders/42\"]}")) {
      JsonNode ack = Fake2026Json.parse(s.nextData());
      assertThat(ack.path("method").asString()).isEqualTo("notifications/subscriptions/acknowledged");
      assertThat(ack.path("params").path("notifications").toString())
          .isEqualTo("{\"toolsListChanged\":true,\"resourceSubscriptions\":[\"db://orders/42\"]}");
      assertThat(ack.path("params").path("_meta").path(Fake2026Json.SUBSCRIPTION_ID).toString()).isEqualTo("\"L1\"");
      Fake2026Listen l = fake.awaitOpenListens(1).get(0);
      assertThat(l.filter().path("promptsListChanged").asBoolean()).isTrue();

      assertThat(fake.pushPromptsListChanged()).isZero();
      assertThat(fake.pushToolsListChanged()).isEqualTo(1);
      assertThat(fake.pushResourceUpdated("db://other")).isZero();
      assertThat(fake.pushResourceUpdated("db://orders/42")).isEqualTo(1);
      assertThat(s.nextData()).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\",\"params\":"
          + "{\"_meta\":{\"" + Fake2026Json.SUBSCRIPTION_ID + "\":\"L1\"}}}");
      JsonNode updated = Fake2026Json.parse(s.nextData());
      assertThat(updated.path("params").path("uri").asString()).isEqualTo("db://orders/42");

      l.endWithResult();
      JsonNode end = Fake2026Json.parse(s.nextData());
      assertThat(end.path("id").asString()).isEqualTo("L1");
      assertThat(end.path("result").path("_meta").path(Fake2026Json.SUBSCRIPTION_ID).asString()).isEqualTo("L1");
      assertThat(s.nextData()).isEqualTo(Stream.EOF);
      assertThat(l.isOpen()).isFalse();
      assertThat(l.clientClosed()).isFalse();
    }
  }

  @Test
  void listenEndsByCancelByCutAndByTheClientClosingIt() throws Exception {
    try (Stream a = listen("7", "{\"toolsListChanged\":true}"); Stream b = listen("8", "{\"toolsListChanged\":true}");
        Stream c = listen("9", "{}")) {
      List<Fake2026Listen> open = fake.awaitOpenListens(3);
      for (Stream s : List.of(a, b, c)) {
        assertThat(s.nextData()).contains("acknowledged");
      }
      assertThat(open.get(0).honoured().toString()).isEqualTo("{\"toolsListChanged\":true}");
      assertThat(open.get(2).honoured().toString()).isEqualTo("{}");

      open.get(0).endWithCancel("server shutting down");
      JsonNode cancelled = Fake2026Json.parse(a.nextData());
      assertThat(cancelled.path("method").asString()).isEqualTo("notifications/cancelled");
      assertThat(cancelled.path("params").path("requestId").toString()).isEqualTo("7");
      assertThat(a.nextData()).isEqualTo(Stream.EOF);

      open.get(1).cut();
      assertThat(b.nextData()).isIn(Stream.FAILED, Stream.EOF);

      c.close();
      open.get(2).awaitClientClosed();
      assertThat(fake.openListens()).isEmpty();
      try (Stream d = listen("10", "{}")) {
        assertThat(d.nextData()).contains("acknowledged");
        assertThat(fake.listens().get(3).exchange().receivedAtNanos()).isGreaterThan(open.get(2).exchange().clientClosedAtNanos());
      }
    }
    assertThat(fake.listens()).hasSize(4);
  }

  @Test
  void aStringIdStaysAStringAndANumberANumber() throws Exception {
    HttpResponse<String> r = send(request("\"17\"", "tools/list", null), std("tools/list"));
    assertThat(Fake2026Json.parse(r.body()).path("id").isString()).isTrue();
    assertThat(fake.awaitPost("tools/list").idJson()).isEqualTo("\"17\"");
    assertThat(URI.create(fake.url().toString()).getPath()).isEqualTo("/mcp");
  }
}
