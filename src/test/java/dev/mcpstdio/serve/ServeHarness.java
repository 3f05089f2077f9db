package dev.mcpstdio.serve;

import dev.mcpstdio.testing.SyncBuffer;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A running {@link ServeGateway} on a free loopback port, an HTTP client for it, and the gateway's
 * log. Children are real processes: the demo server (a JVM) or small shell scripts for faults.
 */
final class ServeHarness implements AutoCloseable {

  static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{\"elicitation\":{},\"sampling\":{}},\"clientInfo\":{\"name\":\"test\",\"version\":\"1\"}}}";

  static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

  /** A short ladder so tests about stubborn children finish quickly. */
  static final ChildProcess.Ladder QUICK = new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300));

  final ServeGateway gateway;
  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final SyncBuffer log;
  final URI url;

  private ServeHarness(ServeGateway gateway, SyncBuffer log) {
    this.gateway = gateway;
    this.log = log;
    this.url = gateway.url();
  }

  static ServeHarness start(ServeConfig config) throws Exception {
    return startOn(config, 0);
  }

  /** {@link #start} on this port (0: any free one). */
  static ServeHarness startOn(ServeConfig config, int port) throws Exception {
    return startOn(config, port, Log.Format.TEXT);
  }

  /** {@link #startOn} with the gateway's log in {@code format}. */
  static ServeHarness startOn(ServeConfig config, int port, Log.Format format) throws Exception {
    SyncBuffer buffer = new SyncBuffer();
    Redactor redactor = new Redactor();
    if (config.authToken() != null) {
      redactor.addSecret(config.authToken());
    }
    ServeGateway gateway = new ServeGateway(config.withPort(port), new Log(buffer, Log.Level.DEBUG, redactor, format));
    try {
      gateway.start();
    } catch (Exception e) {
      gateway.close();
      throw e;
    }
    return new ServeHarness(gateway, buffer);
  }

  /** The demo server in a JVM of its own, started the way {@code serve} starts it without a launcher. */
  static ChildSpec demo() {
    String java = ProcessHandle.current().info().command().orElseThrow();
    return new ChildSpec(List.of(java, "-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        "dev.mcpstdio.cli.Main", "demo"));
  }

  /** A child that is a shell script (the gateway spawns {@code sh} directly; the script is its argument). */
  static ChildSpec sh(String script) {
    return new ChildSpec(List.of("/bin/sh", "-c", script));
  }

  /** A shell child that answers initialize (id 1) and then runs {@code then}. */
  static ChildSpec shAfterInit(String then) {
    return sh("read init; echo '" + initResult("sh-child") + "'; " + then);
  }

  static String initResult(String name) {
    return "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},"
        + "\"serverInfo\":{\"name\":\"" + name + "\",\"version\":\"1\"}}}";
  }

  static ServeConfig config(ChildSpec child) {
    return ServeConfig.defaults(child).withChild(child, QUICK);
  }

  String log() {
    return log.text();
  }

  void awaitLog(String text) {
    Await.until("the gateway log to contain '" + text + "'; log:\n" + log(), Duration.ofSeconds(20),
        () -> log().contains(text));
  }

  HttpRequest.Builder request(String session) {
    HttpRequest.Builder b = HttpRequest.newBuilder(url).timeout(Duration.ofSeconds(30));
    if (session != null) {
      b.header("Mcp-Session-Id", session);
    }
    return b;
  }

  HttpResponse<String> post(String session, String json, boolean sse, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = request(session)
        .header("Content-Type", "application/json")
        .header("Accept", sse ? "application/json, text/event-stream" : "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** A POST whose event stream is read line by line as it arrives. */
  HttpResponse<Stream<String>> postStreaming(String session, String json) throws IOException, InterruptedException {
    HttpRequest r = request(session)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build();
    return http.send(r, HttpResponse.BodyHandlers.ofLines());
  }

  HttpResponse<Stream<String>> openStream(String session) throws IOException, InterruptedException {
    HttpRequest r = request(session).header("Accept", "text/event-stream").GET().build();
    return http.send(r, HttpResponse.BodyHandlers.ofLines());
  }

  HttpResponse<String> delete(String session) throws IOException, InterruptedException {
    return http.send(request(session).DELETE().build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Initializes a session (JSON reply) and sends notifications/initialized; returns the session id. */
  String initialize() throws IOException, InterruptedException {
    return initialize(INIT);
  }

  /** The same with an initialize request of the test's own (other capabilities). */
  String initialize(String init) throws IOException, InterruptedException {
    HttpResponse<String> r = post(null, init, false);
    if (r.statusCode() != 200) {
      throw new AssertionError("initialize: " + r.statusCode() + " " + r.body() + "\nlog:\n" + log());
    }
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    HttpResponse<String> n = post(session, INITIALIZED, false);
    if (n.statusCode() != 202) {
      throw new AssertionError("initialized: " + n.statusCode() + " " + n.body());
    }
    return session;
  }

  /** The data of every event in a complete event-stream body (priming events skipped). */
  static List<String> events(String body) {
    List<String> data = new ArrayList<>();
    for (String block : body.split("\n\n")) {
      StringBuilder joined = null;
      for (String line : block.split("\n")) {
        if (line.startsWith("data:")) {
          String value = line.substring(5).startsWith(" ") ? line.substring(6) : line.substring(5);
          joined = joined == null ? new StringBuilder(value) : joined.append('\n').append(value);
        }
      }
      if (joined != null && !joined.isEmpty()) { // an event with empty data is a priming event, not a message
        data.add(joined.toString());
      }
    }
    return data;
  }

  /** The next event's data from a stream read line by line; comment lines are skipped. */
  static String nextEvent(Iterator<String> lines) {
    StringBuilder data = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data != null && !data.isEmpty()) {
          return data.toString();
        }
        data = null; // a priming event (empty data) carries no message
      } else if (line.startsWith("data:")) {
        String value = line.substring(5).startsWith(" ") ? line.substring(6) : line.substring(5);
        data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
      }
    }
    return data == null ? null : data.toString();
  }

  /** The pid in the log line "started ... (pid N)" of the given session. */
  long childPid(String session) {
    Matcher m = Pattern.compile("\\[session " + session.substring(0, 8) + "\\] started .* \\(pid (\\d+)\\)").matcher(log());
    if (!m.find()) {
      throw new AssertionError("no start line for session " + session + " in:\n" + log());
    }
    return Long.parseLong(m.group(1));
  }

  @Override
  public void close() throws Exception {
    gateway.close();
  }
}
