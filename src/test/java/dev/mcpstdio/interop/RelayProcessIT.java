package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer.Exchange;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.FakeMcpServer.Step;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The packaged jar as an OS process: what a host sees on stdout, exit codes, signals, the session's
 * end, {@code --check}, usage errors, TCP keepalive on upstream sockets, bearer secrecy, and a
 * large result, against the scriptable {@link FakeMcpServer}.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RelayProcessIT {

  static final Duration WAIT = Duration.ofSeconds(15);

  static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"raw-host\",\"version\":\"1\"}}}";
  static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  static String toolsCall(int id, String name) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + name
        + "\",\"arguments\":{}}}";
  }

  /** Sends the handshake and waits for the initialize result. */
  static JsonNode handshake(JarProcess relay) {
    relay.send(INITIALIZE);
    JsonNode init = Jsons.parse(relay.stdout.next(WAIT));
    assertThat(init.get("id").asInt()).as(relay.log()).isEqualTo(1);
    assertThat(init.has("result")).as(init.toString()).isTrue();
    relay.send(INITIALIZED);
    return init;
  }

  /** The response with {@code id} on stdout (responses to concurrent requests come in any order). */
  static JsonNode response(JarProcess relay, int id) {
    return Await.value("the response to id " + id + " on stdout; stdout so far: " + relay.stdout.snapshot()
        + "\nstderr:\n" + relay.log(), WAIT, () -> {
          for (String line : relay.stdout.snapshot()) {
            JsonNode n = Jsons.parse(line);
            if (n.has("id") && !n.has("method") && n.get("id").asInt() == id) {
              return n;
            }
          }
          return null;
        });
  }

  /**
   * SIGTERM without touching the pipes. ({@code Process.destroy()} also closes the parent's ends
   * of stdin, stdout and stderr, so the relay would see stdin EOF and a broken stdout at the same
   * moment and the test could no longer read what the relay says.)
   */
  static void sigterm(JarProcess relay) {
    assertThat(relay.process.toHandle().destroy()).as("SIGTERM delivered").isTrue();
  }

  /** Waits until stderr has a line containing {@code text} (the pipe may lag the exit). */
  static void awaitLog(JarProcess relay, String text) {
    Await.until("stderr to contain '" + text + "'; stderr:\n" + relay.log(), WAIT, () -> relay.log().contains(text));
  }

  static void assertEveryStdoutLineIsJsonRpc(JarProcess relay) {
    assertThat(relay.stdout.unterminatedBytes()).as("bytes after the last newline on stdout").isZero();
    List<String> lines = relay.stdout.snapshot();
    assertThat(lines).isNotEmpty();
    for (String line : lines) {
      JsonNode node;
      try {
        node = Jsons.parse(line);
      } catch (RuntimeException e) {
        throw new AssertionError("stdout line is not JSON: " + line + "\nstderr:\n" + relay.log(), e);
      }
      assertThat(node.isObject()).as(line).isTrue();
      assertThat(node.get("jsonrpc").asString()).as(line).isEqualTo("2.0");
    }
  }

  static void awaitDelete(FakeMcpServer server, String session) {
    Await.until("DELETE with Mcp-Session-Id " + session + "; exchanges:\n" + server.describe(), WAIT,
        () -> server.requests("DELETE").stream().anyMatch(e -> session.equals(e.header("Mcp-Session-Id"))));
  }

  // (a) ------------------------------------------------------------------------------------------

  static Stream<Arguments> brokenCacheOptions() {
    return Stream.of(
        Arguments.of(List.of("-XX:SharedArchiveFile=/nonexistent/x.jsa", "-Xshare:auto"), "[cds]", 21),
        Arguments.of(List.of("-XX:AOTCache=/nonexistent.aot"), "[aot]", 25));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenCacheOptions")
  void stdoutStaysPureJsonRpcWhenTheJvmComplainsAboutItsCache(List<String> jvmOptions, String tag, int minJdk) {
    Assumptions.assumeTrue(Runtime.version().feature() >= minJdk, "needs JDK " + minJdk + "+ for " + jvmOptions);
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.start(jvmOptions, List.of(server.url().toString()), Map.of())) {
      handshake(relay);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
      relay.send(toolsCall(3, "echo"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\"}");
      for (int id = 2; id <= 4; id++) {
        assertThat(response(relay, id).has("result")).isTrue();
      }
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();

      assertEveryStdoutLineIsJsonRpc(relay);
      assertThat(relay.stdout.snapshot()).hasSize(4);
      awaitLog(relay, tag); // the JVM's cache warning goes to stderr
    }
  }

  /**
   * Whatever JVM logging a user asks for through the launcher's MCP_STDIO_JAVA_OPTS (to stdout by
   * the JVM's default), none of it reaches stdout: it goes to stderr.
   */
  @Test
  void jvmLoggingAskedForThroughTheLauncherGoesToStderr() {
    Map<String, String> env = Map.of("MCP_STDIO_NO_CACHE", "1", "MCP_STDIO_NO_BUILD", "1",
        "MCP_STDIO_JAVA_OPTS", "-Xlog:gc -verbose:class -Xlog:safepoint::uptime -Xlog:gc+heap=debug:stdout");
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.launcher(List.of(server.url().toString()), env)) {
      handshake(relay);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      assertThat(response(relay, 2).has("result")).isTrue();
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();
      assertEveryStdoutLineIsJsonRpc(relay);
      assertThat(relay.stdout.snapshot()).hasSize(2);
      awaitLog(relay, "[class,load]"); // the logging is alive, on stderr
    }
  }

  /**
   * The launcher's compile commands (the relay's C2 policy, RelayJitTest) are taken quietly: the
   * JVM echoes each one on its console unless told not to, which would put a line per command on
   * stderr at every start.
   */
  @Test
  void theRelaysCompileCommandsAreTakenQuietly() {
    Map<String, String> env = Map.of("MCP_STDIO_NO_CACHE", "1", "MCP_STDIO_NO_BUILD", "1", "MCP_STDIO_JAVA_OPTS", "-Xlog:gc");
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.launcher(List.of(server.url().toString()), env)) {
      handshake(relay);
      awaitLog(relay, "[gc"); // stderr alive: the collector's line at start
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();
      assertEveryStdoutLineIsJsonRpc(relay);
      assertThat(relay.log()).doesNotContain("CompileCommand").doesNotContain("MaxNodeLimit");
    }
  }

  /**
   * A 2025-era session initializes neither JDK 25's slow BigDecimal (25-40 ms of its initializer)
   * nor a Jackson parser (whose base class initializes BigDecimal): the span helpers run on the
   * gateway's own scanner; nor the java.time and java.sql types picocli would look up for its
   * converters (CliOptions.withoutUnusedConverters). The JVM's class initialization log is alive
   * (the relay's own classes).
   */
  @Test
  void aSessionOfTheRelayInitializesNoBigDecimalNoJacksonParserAndNoConverterTypes() {
    Map<String, String> env = Map.of("MCP_STDIO_NO_CACHE", "1", "MCP_STDIO_NO_BUILD", "1",
        "MCP_STDIO_JAVA_OPTS", "-Xlog:class+init=info");
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.launcher(List.of(server.url().toString()), env)) {
      handshake(relay);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
      assertThat(response(relay, 2).has("result")).isTrue();
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();
      assertEveryStdoutLineIsJsonRpc(relay);
      assertThat(relay.log()).contains("Initializing 'dev/mcpstdio/relay/Relay'")
          .doesNotContain("Initializing 'java/math/BigDecimal'").doesNotContain("ParserMinimalBase")
          .doesNotContain("Initializing 'java/sql/").doesNotContain("Initializing 'java/time/LocalDate'")
          .doesNotContain("Initializing 'java/time/OffsetDateTime'");
    }
  }

  /**
   * A flight recording asked for through MCP_STDIO_JAVA_OPTS: the JVM started with
   * -XX:StartFlightRecording prints "Started recording" on stdout whatever -Xlog says, so the
   * launcher hands the options to the relay, which starts the recording itself and says so on
   * stderr; the recording is written at exit.
   */
  @Test
  void aFlightRecordingAskedForThroughTheLauncherStaysOffStdout(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws IOException {
    java.nio.file.Path recording = dir.resolve("relay.jfr");
    Map<String, String> env = Map.of("MCP_STDIO_NO_CACHE", "1", "MCP_STDIO_NO_BUILD", "1",
        "MCP_STDIO_JAVA_OPTS", "-XX:StartFlightRecording=filename=" + recording + ",settings=default");
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.launcher(List.of(server.url().toString()), env)) {
      handshake(relay);
      awaitLog(relay, "flight recording: Started recording");
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();
      assertEveryStdoutLineIsJsonRpc(relay);
      assertThat(relay.stdout.snapshot()).hasSize(1);
    }
    assertThat(java.nio.file.Files.size(recording)).as("the recording written at exit").isPositive();
  }

  // (b), (c) -------------------------------------------------------------------------------------

  @Test
  void sigtermExitsZeroAndEndsTheSession() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.start(List.of(server.url().toString()))) {
      handshake(relay);
      relay.send(toolsCall(2, "echo"));
      assertThat(response(relay, 2).has("result")).isTrue();

      sigterm(relay);

      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      awaitDelete(server, FakeMcpServer.SESSION);
      awaitLog(relay, "received signal SIGTERM");
      assertEveryStdoutLineIsJsonRpc(relay);
    }
  }

  @Test
  void stdinEofExitsZeroAndEndsTheSession() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.start(List.of(server.url().toString()))) {
      handshake(relay);
      relay.send(toolsCall(2, "echo"));
      assertThat(response(relay, 2).has("result")).isTrue();

      relay.closeStdin();

      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      awaitDelete(server, FakeMcpServer.SESSION);
      assertEveryStdoutLineIsJsonRpc(relay);
    }
  }

  /** Invariant 2 at shutdown: a request still in flight gets an answer before the relay exits. */
  @Test
  void sigtermWithARequestInFlightStillAnswersIt() {
    try (FakeMcpServer server = new FakeMcpServer(e -> e.is("POST", "tools/call") ? Reply.hang() : FakeMcpServer.standard(e));
        JarProcess relay = JarProcess.start(List.of(server.url().toString()))) {
      handshake(relay);
      relay.send(toolsCall(2, "stuck"));
      Await.until("the tools/call to reach the server", WAIT, () -> !server.posts("tools/call").isEmpty());

      sigterm(relay);

      JsonNode answer = response(relay, 2);
      assertThat(answer.has("error")).as(answer.toString()).isTrue();
      assertThat(answer.get("error").get("message").asString()).contains("shutting down");
      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      awaitDelete(server, FakeMcpServer.SESSION);
      assertEveryStdoutLineIsJsonRpc(relay);
    }
  }

  // (d) ------------------------------------------------------------------------------------------

  static final String BODY_MARKER = "BODY-MARKER-7f3a";

  @Test
  void checkAgainstAHealthyServerExitsZeroWithTicksAndNoBodies() {
    String init = "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/check\",\"result\":{\"protocolVersion\":\"2025-11-25\","
        + "\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\",\"version\":\"1.0\"},"
        + "\"instructions\":\"" + BODY_MARKER + "\"}}";
    try (FakeMcpServer server = new FakeMcpServer(e -> e.is("POST", "initialize")
            ? Reply.json(init.replace("\"mcp-stdio/check\"", e.rpcIdJson()), "Mcp-Session-Id", "check-session")
            : FakeMcpServer.standard(e));
        JarProcess relay = JarProcess.start(List.of("--check", server.url().toString()))) {
      relay.closeStdin();

      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      List<String> log = relay.stderr.snapshot();
      assertThat(log).anyMatch(l -> l.startsWith("[mcp-stdio] ✓"));
      assertThat(log).noneMatch(l -> l.startsWith("[mcp-stdio] ✗"));
      assertThat(relay.log()).doesNotContain(BODY_MARKER);
      assertThat(relay.stdout.snapshot()).isEmpty();
      assertThat(server.posts("initialize")).hasSize(1);
      awaitDelete(server, "check-session");
    }
  }

  @Test
  void checkAgainstAServerErrorExitsOneWithoutPrintingTheBody() {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32603,\"message\":\"" + BODY_MARKER
        + " at com.example.Secret(Stack.java:1)\"}}";
    try (FakeMcpServer server = new FakeMcpServer(e -> Reply.body(500, "application/json", body));
        JarProcess relay = JarProcess.start(List.of("--check", server.url().toString()))) {
      relay.closeStdin();

      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isEqualTo(1);
      assertThat(relay.stderr.snapshot()).anyMatch(l -> l.startsWith("[mcp-stdio] ✗") && l.contains("500"));
      assertThat(relay.log()).doesNotContain(BODY_MARKER).doesNotContain("Stack.java");
      assertThat(relay.stdout.snapshot()).isEmpty();
    }
  }

  @Test
  void checkAgainstAClosedPortExitsOne() throws IOException {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    try (JarProcess relay = JarProcess.start(List.of("--check", "http://127.0.0.1:" + port + "/mcp"))) {
      relay.closeStdin();

      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isEqualTo(1);
      assertThat(relay.stderr.snapshot()).anyMatch(l -> l.startsWith("[mcp-stdio] ✗"));
      assertThat(relay.stderr.snapshot()).noneMatch(l -> l.startsWith("[mcp-stdio] ✓"));
      assertThat(relay.stdout.snapshot()).isEmpty();
    }
  }

  // (e), (f) -------------------------------------------------------------------------------------

  static Stream<Arguments> usageErrors() {
    String url = "http://127.0.0.1:9/mcp";
    return Stream.of(
        Arguments.of("no URL", List.of()),
        Arguments.of("not a URL", List.of("not a url")),
        Arguments.of("unsupported scheme", List.of("ftp://127.0.0.1/mcp")),
        Arguments.of("--timeout-read NaN", List.of("--timeout-read", "NaN", url)),
        Arguments.of("--timeout-read -1", List.of("--timeout-read", "-1", url)),
        Arguments.of("--timeout-read 0", List.of("--timeout-read", "0", url)),
        Arguments.of("--timeout-read abc", List.of("--timeout-read", "abc", url)),
        Arguments.of("unknown option", List.of("--no-such-option", url)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("usageErrors")
  void usageErrorsExitTwo(String what, List<String> args) {
    try (JarProcess relay = JarProcess.start(args)) {
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).as(what + "; stderr:\n" + relay.log()).isEqualTo(2);
      assertThat(relay.stderr.snapshot()).as("says what is wrong").isNotEmpty();
      assertThat(relay.stdout.snapshot()).isEmpty();
    }
  }

  static Stream<Arguments> badHeaders() {
    return Stream.of(
        Arguments.of("CR LF in a value", "X-Test: a\r\nInjected: b"),
        Arguments.of("LF in a value", "X-Test: a\nInjected: b"),
        Arguments.of("restricted Host", "Host: evil.example"),
        Arguments.of("restricted Content-Length", "Content-Length: 5"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badHeaders")
  void badHeadersExitOneWithoutContactingTheServer(String what, String header) {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.start(List.of("-H", header, server.url().toString()))) {
      relay.send(INITIALIZE);
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).as(what + "; stderr:\n" + relay.log()).isEqualTo(1);
      assertThat(relay.log()).isNotBlank().doesNotContain("Injected: b");
      assertThat(relay.stdout.snapshot()).isEmpty();
      assertThat(server.exchanges()).isEmpty();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"--version", "-V"})
  void versionExitsZero(String flag) {
    try (JarProcess relay = JarProcess.start(List.of(flag))) {
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      String all = String.join("\n", relay.stdout.snapshot()) + "\n" + relay.log();
      assertThat(all).containsPattern("mcp-stdio \\d+\\.\\d+");
    }
  }

  // (g) ------------------------------------------------------------------------------------------

  @ParameterizedTest(name = "keepalive expected: {0}")
  @ValueSource(booleans = {true, false})
  void upstreamSocketsUseTcpKeepaliveUnlessDisabled(boolean keepalive) throws Exception {
    Assumptions.assumeTrue(System.getProperty("os.name").toLowerCase(Locale.ROOT).contains("linux"), "Linux only");
    Assumptions.assumeTrue(NodePeers.which("ss") != null, "needs ss (iproute2)");
    CountDownLatch release = new CountDownLatch(1);
    try (FakeMcpServer server = new FakeMcpServer(e -> e.is("POST", "tools/call")
            ? Reply.sse(List.of(Step.await(release), Step.message(FakeMcpServer.result(e.rpcIdJson(),
                "{\"content\":[{\"type\":\"text\",\"text\":\"held\"}]}"))))
            : FakeMcpServer.standard(e))) {
      List<String> args = new ArrayList<>();
      if (!keepalive) {
        args.add("--no-tcp-keepalive");
      }
      args.add(server.url().toString());
      try (JarProcess relay = JarProcess.start(args)) {
        handshake(relay);
        relay.send(toolsCall(2, "hold"));
        Await.until("the held tools/call to reach the server", WAIT, () -> !server.posts("tools/call").isEmpty());

        // Java sockets are dual-stack: ss may show the peer as [::ffff:127.0.0.1]:PORT.
        java.util.regex.Pattern peer = java.util.regex.Pattern.compile("127\\.0\\.0\\.1\\]?:" + server.port() + "\\s");
        String sockets = Await.value("an established connection to port " + server.port(), WAIT, () -> {
          String out = ss(server.port());
          return peer.matcher(out).find() ? out : null;
        });
        if (keepalive) {
          assertThat(sockets).as("ss -tnoi for dport %d", server.port()).contains("timer:(keepalive");
        } else {
          assertThat(sockets).as("ss -tnoi for dport %d", server.port()).doesNotContain("keepalive");
        }

        release.countDown();
        assertThat(response(relay, 2).get("result").get("content").get(0).get("text").asString()).isEqualTo("held");
        relay.closeStdin();
        assertThat(relay.awaitExit(WAIT)).isZero();
      } finally {
        release.countDown();
      }
    }
  }

  private static String ss(int port) {
    try {
      Process p = new ProcessBuilder("ss", "-tnoi", "state", "established", "( dport = :" + port + " )")
          .redirectErrorStream(true).start();
      byte[] out = p.getInputStream().readAllBytes();
      if (!p.waitFor(10, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("ss did not finish");
      }
      return new String(out, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new AssertionError("cannot run ss: " + e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }

  // (h) ------------------------------------------------------------------------------------------

  static final String TOKEN = "tok-SECRET-4b1d9e2c";

  @Test
  void bearerTokenFromTheEnvironmentIsSentButNeverLogged() {
    // A careless server that echoes the credential in an error body and a header.
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (e.is("POST", "tools/call") && e.text().contains("\"leak\"")) {
            return Reply.body(500, "application/json",
                "{\"jsonrpc\":\"2.0\",\"id\":" + e.rpcIdJson() + ",\"error\":{\"code\":-32603,\"message\":\"bad token "
                    + e.header("Authorization") + "\"}}", "WWW-Authenticate", "Bearer error=\"" + TOKEN + "\"");
          }
          return FakeMcpServer.standard(e);
        });
        JarProcess relay = JarProcess.start(List.of(), List.of("-v", server.url().toString()), Map.of("MCP_BEARER_TOKEN", TOKEN))) {
      handshake(relay);
      relay.send(toolsCall(2, "echo"));
      assertThat(response(relay, 2).has("result")).isTrue();
      relay.send(toolsCall(3, "leak"));
      assertThat(response(relay, 3).has("error")).isTrue();
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).as(relay.log()).isZero();
      awaitDelete(server, FakeMcpServer.SESSION);
      awaitLog(relay, "session ended"); // the last line it writes with -v

      List<Exchange> sent = server.exchanges();
      assertThat(sent).isNotEmpty();
      assertThat(sent).allSatisfy(e ->
          assertThat(e.header("Authorization")).as(e.method() + " " + e.rpcMethod()).isEqualTo("Bearer " + TOKEN));
      assertThat(relay.log()).as("stderr with -v").isNotBlank().doesNotContain(TOKEN).doesNotContain("4b1d9e2c");
    }
  }

  // (i) ------------------------------------------------------------------------------------------

  /** 1 MiB of text mixing ASCII, JSON escapes and multi-byte UTF-8. */
  static String mebibyteOfText() {
    String pattern = "abc \"quoted\" back\\slash tab\t nl\n é ✓ 𝄞 ";
    StringBuilder sb = new StringBuilder(1 << 20);
    while (sb.length() < (1 << 20)) {
      sb.append(pattern);
    }
    sb.setLength(1 << 20);
    if (Character.isHighSurrogate(sb.charAt(sb.length() - 1))) {
      sb.setCharAt(sb.length() - 1, 'z');
    }
    return sb.toString();
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"json", "sse"})
  void aOneMebibyteResultPassesThroughIntact(String format) {
    String text = mebibyteOfText();
    JsonMapper mapper = JsonMapper.builder().build();
    try (FakeMcpServer server = new FakeMcpServer(e -> {
          if (!e.is("POST", "tools/call")) {
            return FakeMcpServer.standard(e);
          }
          ObjectNode result = mapper.createObjectNode();
          result.put("jsonrpc", "2.0");
          result.set("id", Jsons.parse(e.rpcIdJson()));
          result.putObject("result").putArray("content").addObject().put("type", "text").put("text", text);
          String json = mapper.writeValueAsString(result);
          return format.equals("json") ? Reply.json(json) : Reply.sse(List.of(Step.message(json)));
        });
        JarProcess relay = JarProcess.start(List.of(server.url().toString()))) {
      handshake(relay);
      relay.send(toolsCall(2, "big"));

      JsonNode answer = response(relay, 2);

      assertThat(answer.get("result").get("content").get(0).get("text").asString()).isEqualTo(text);
      relay.send(toolsCall(3, "after"));
      assertThat(response(relay, 3).has("result")).isTrue();
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).isZero();
      assertEveryStdoutLineIsJsonRpc(relay);
    }
  }
}
