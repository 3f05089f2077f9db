package dev.mcpstdio.conformance;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * A small, careful MCP host for the conformance suite's client scenarios, driven through the
 * relay.
 *
 * <p>The conformance harness starts this program with the mock server's URL as the last argument
 * and the scenario name in {@code MCP_CONFORMANCE_SCENARIO}. It spawns the packaged relay ({@code
 * java -jar mcp-stdio.jar URL}) as its stdio MCP server and speaks newline-delimited JSON-RPC to
 * it: {@code initialize}, {@code notifications/initialized}, {@code tools/list}, the scenario's
 * {@code tools/call}s, answering every server-to-client request on the way (elicitation with the
 * schema's defaults, {@code ping}, anything else -32601). It then closes the relay's stdin, waits
 * (bounded) for it to exit and exits 0, or non-zero on any protocol error or timeout.
 *
 * <p>The host always speaks the 2025 era to the relay, also for the 2026-07-28 scenarios ({@code
 * request-metadata}, {@code sep-2322-client-request-state}, {@code http-standard-headers}, {@code
 * http-custom-headers} (the calls of the scenario's {@code toolCalls} context), {@code
 * http-invalid-tool-headers}, {@code json-schema-ref-no-deref}): there the suite grades how the
 * relay speaks 2026 upstream on a 2025 host's behalf.
 *
 * <p>The relay's stderr goes to a file, never to the harness's pipes (a child holding those pipes
 * open would keep the harness waiting after a kill). System properties: {@code mcpstdio.jar} (the
 * relay jar), {@code conformance.logdir} (where {@code <scenario>-relay.log} is written), {@code
 * conformance.relayArgs} (extra relay flags, default {@code -v}).
 */
public final class ConformanceHost {

  static final String PROTOCOL_VERSION = "2025-11-25";
  static final Set<String> SUPPORTED_VERSIONS =
      Set.of("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05");

  /** Bound on each request's answer. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(20);

  /** Bound on the relay's exit after its stdin is closed. */
  static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);

  /** Bound on draining the relay's stdout after it exited. */
  static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(5);

  static final int EXIT_OK = 0;
  static final int EXIT_PROTOCOL_ERROR = 1;
  static final int EXIT_USAGE = 2;

  private static final JsonMapper JSON = JsonMapper.builder().build();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private final String scenario;
  /** The scenario's MCP_CONFORMANCE_CONTEXT (an empty object when there is none). */
  private final JsonNode context;
  private final Process relay;
  private final OutputStream relayStdin;
  private final Map<String, CompletableFuture<JsonNode>> pending = new ConcurrentHashMap<>();
  private final List<String> problems = new CopyOnWriteArrayList<>();
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final AtomicInteger elicitations = new AtomicInteger();
  /** sep-2322-client-request-state: whether test_mrtr_unrelated ran while the first elicitation waited. */
  private final java.util.concurrent.atomic.AtomicBoolean unrelatedCalled = new java.util.concurrent.atomic.AtomicBoolean();
  private final CompletableFuture<Void> stdoutEnded = new CompletableFuture<>();
  private final long started = System.nanoTime();

  private ConformanceHost(String scenario, JsonNode context, Process relay) {
    this.scenario = scenario;
    this.context = context;
    this.relay = relay;
    this.relayStdin = relay.getOutputStream();
  }

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: ConformanceHost [relay flags...] <server-url>");
      System.exit(EXIT_USAGE);
    }
    String url = args[args.length - 1];
    String scenario = System.getenv("MCP_CONFORMANCE_SCENARIO");
    if (scenario == null || scenario.isBlank()) {
      scenario = System.getProperty("conformance.scenario", "");
    }
    System.exit(run(scenario, url));
  }

  static int run(String scenario, String url) {
    Process relay;
    Path relayLog;
    try {
      relayLog = relayLog(scenario);
      relay = startRelay(scenario, url, relayLog);
    } catch (IOException | RuntimeException e) {
      log("cannot start the relay: " + e);
      return EXIT_PROTOCOL_ERROR;
    }
    log("scenario " + scenario + ", server " + url + ", relay pid " + relay.pid() + ", relay log " + relayLog);
    ConformanceHost host = new ConformanceHost(scenario, context(), relay);
    int code;
    try {
      code = host.drive();
    } catch (RuntimeException e) {
      host.problem("internal host error: " + e);
      code = EXIT_PROTOCOL_ERROR;
    } finally {
      relay.destroyForcibly(); // no-op when it already exited
    }
    return code;
  }

  /** The scenario's context (MCP_CONFORMANCE_CONTEXT), or an empty object. */
  private static JsonNode context() {
    String context = System.getenv("MCP_CONFORMANCE_CONTEXT");
    return context == null || context.isBlank() ? NODES.objectNode() : JSON.readTree(context);
  }

  private static Path relayLog(String scenario) throws IOException {
    Path dir = Path.of(System.getProperty("conformance.logdir", "target/conformance"));
    Files.createDirectories(dir);
    String name = scenario.isBlank() ? "unknown" : scenario.replaceAll("[^A-Za-z0-9._-]", "_");
    return dir.resolve(name + "-relay.log");
  }

  private static Process startRelay(String scenario, String url, Path relayLog) throws IOException {
    String jar = System.getProperty("mcpstdio.jar");
    if (jar == null || !Files.isRegularFile(Path.of(jar))) {
      throw new IOException("relay jar not found (system property mcpstdio.jar = " + jar + ")");
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>();
    command.add(java);
    command.addAll(List.of("-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr"));
    command.add("-jar");
    command.add(jar);
    for (String flag : System.getProperty("conformance.relayArgs", "-v").trim().split("\\s+")) {
      if (!flag.isEmpty()) {
        command.add(flag);
      }
    }
    ProcessBuilder builder = new ProcessBuilder(command);
    if (scenario.startsWith("auth/")) {
      // The relay signs in itself, with a browser that follows the authorization server's redirect
      // (the suite's servers approve at once), a token store of its own, and the client ID metadata
      // document URL the suite's authorization servers expect when they accept one.
      Path store = relayLog.resolveSibling(relayLog.getFileName().toString().replace("-relay.log", "-tokens.json"));
      Files.deleteIfExists(store);
      command.addAll(List.of("--oauth", "--token-store", store.toString(),
          "--client-metadata-url", "https://conformance-test.local/client-metadata.json"));
      if (scenario.startsWith("auth/client-credentials")) {
        command.add("--client-credentials"); // the operator runs this relay as a machine client
      }
      builder.environment().put("BROWSER", "curl -s -L -o /dev/null");
    }
    command.add(url);
    JsonNode c = context(); // a scenario's client settings, e.g. a pre-registered client
    if (!c.isEmpty()) {
      log("scenario context fields: " + c.propertyNames());
      int at = command.size() - 1; // before the URL
      if (c.hasNonNull("client_id")) {
        command.add(at, c.get("client_id").asString());
        command.add(at, "--client-id");
      }
      if (c.hasNonNull("client_secret")) {
        builder.environment().put("MCP_OAUTH_CLIENT_SECRET", c.get("client_secret").asString());
      }
    }
    log("starting " + String.join(" ", command));
    return builder.command(command)
        .redirectError(ProcessBuilder.Redirect.to(relayLog.toFile()))
        .start();
  }

  // ---------------------------------------------------------------- the scenario

  private int drive() {
    Thread.ofPlatform().daemon().name("relay-stdout").start(this::readLoop);
    try {
      JsonNode init = request("initialize", initializeParams());
      String version = init.path("protocolVersion").asString("");
      if (!SUPPORTED_VERSIONS.contains(version)) {
        throw new ProtocolError("server chose unsupported protocolVersion '" + version + "'");
      }
      if (!init.path("serverInfo").isObject()) {
        problem("initialize result has no serverInfo (tolerated)");
      }
      log("initialized: protocolVersion " + version + ", server " + init.path("serverInfo"));
      notify("notifications/initialized", null);

      JsonNode tools = listTools();
      switch (scenario) {
        case "initialize" -> {}
        case "tools_call" -> {
          requireTool(tools, "add_numbers");
          ObjectNode arguments = NODES.objectNode().put("a", 5).put("b", 3);
          JsonNode result = callTool("add_numbers", arguments);
          String text = firstText(result);
          if (!text.contains("8")) {
            throw new ProtocolError("add_numbers(5, 3) answered '" + text + "'");
          }
        }
        case "elicitation-sep1034-client-defaults" -> {
          requireTool(tools, "test_client_elicitation_defaults");
          callTool("test_client_elicitation_defaults", NODES.objectNode());
          if (elicitations.get() == 0) {
            throw new ProtocolError("the tool call completed without an elicitation/create request");
          }
        }
        case "sse-retry" -> {
          requireTool(tools, "test_reconnection");
          callTool("test_reconnection", NODES.objectNode());
        }
        // 2026-07-28 scenarios: the host speaks the 2025 era to the relay; what the suite checks is
        // how the relay speaks 2026 upstream (envelope, headers, MRTR) on the host's behalf.
        case "request-metadata", "json-schema-ref-no-deref" -> {} // initialize and tools/list are what is checked
        case "sep-2322-client-request-state" -> {
          requireTool(tools, "test_mrtr_echo_state");
          // The first elicitation (the echo_state round) is answered only after test_mrtr_unrelated
          // has completed, so that call happens between the MRTR rounds (parallel isolation).
          callTool("test_mrtr_echo_state", NODES.objectNode());
          if (!unrelatedCalled.get()) {
            throw new ProtocolError("test_mrtr_echo_state completed without an elicitation/create request");
          }
          callTool("test_mrtr_no_state", NODES.objectNode());
          callTool("test_mrtr_no_result_type", NODES.objectNode());
        }
        case "http-standard-headers" -> {
          for (JsonNode tool : tools) {
            callTool(tool.path("name").asString(""), NODES.objectNode());
          }
          for (JsonNode resource : listAll("resources/list", "resources")) {
            request("resources/read", NODES.objectNode().put("uri", resource.path("uri").asString("")));
          }
          for (JsonNode prompt : listAll("prompts/list", "prompts")) {
            request("prompts/get", NODES.objectNode().put("name", prompt.path("name").asString("")));
          }
        }
        case "http-custom-headers" -> {
          JsonNode calls = context.path("toolCalls");
          if (!calls.isArray() || calls.isEmpty()) {
            throw new ProtocolError("the scenario context has no toolCalls: " + context);
          }
          for (JsonNode call : calls) {
            String name = call.path("name").asString("");
            requireTool(tools, name);
            callTool(name, (ObjectNode) call.path("arguments").deepCopy());
          }
        }
        case "http-invalid-tool-headers" -> {
          // every tool the relay lists is called: a tool with an invalid x-mcp-header must not be listed
          for (JsonNode tool : tools) {
            callTool(tool.path("name").asString(""), argumentsFor(tool.path("inputSchema")));
          }
        }
        default -> {
          if (!scenario.startsWith("auth/")) {
            throw new ProtocolError("unknown scenario '" + scenario + "' (MCP_CONFORMANCE_SCENARIO)");
          }
          // an authorization scenario: the sign-in is the relay's; use what the server offers
          // (a scenario whose server must be refused ends in an initialize error, reported above)
          for (JsonNode tool : tools) {
            callTool(tool.path("name").asString(""), NODES.objectNode());
          }
        }
      }
    } catch (ProtocolError e) {
      problem(e.getMessage());
    }
    shutdownRelay();
    if (!pending.isEmpty()) {
      problem("requests never answered: " + pending.keySet());
    }
    if (problems.isEmpty()) {
      log("done in " + elapsed() + " ms: OK");
      return EXIT_OK;
    }
    log("done in " + elapsed() + " ms with " + problems.size() + " problem(s):");
    for (String p : problems) {
      log("  - " + p);
    }
    return EXIT_PROTOCOL_ERROR;
  }

  private static ObjectNode initializeParams() {
    ObjectNode params = NODES.objectNode();
    params.put("protocolVersion", PROTOCOL_VERSION);
    ObjectNode capabilities = params.putObject("capabilities");
    capabilities.putObject("elicitation");
    ObjectNode clientInfo = params.putObject("clientInfo");
    clientInfo.put("name", "mcp-stdio-conformance-host");
    clientInfo.put("version", "1.0.0");
    return params;
  }

  /** Lists every tool, following {@code nextCursor} (bounded). */
  private JsonNode listTools() {
    ArrayNode all = NODES.arrayNode();
    String cursor = null;
    for (int page = 0; page < 50; page++) {
      ObjectNode params = NODES.objectNode();
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode result = request("tools/list", params);
      JsonNode tools = result.path("tools");
      if (!tools.isArray()) {
        throw new ProtocolError("tools/list result has no tools array: " + result);
      }
      tools.forEach(all::add);
      JsonNode next = result.path("nextCursor");
      if (!next.isString() || next.asString().isEmpty()) {
        log("tools/list: " + names(all));
        return all;
      }
      cursor = next.asString();
    }
    throw new ProtocolError("tools/list did not end after 50 pages");
  }

  /** Lists every item of a paginated list method, following {@code nextCursor} (bounded). */
  private JsonNode listAll(String method, String field) {
    ArrayNode all = NODES.arrayNode();
    String cursor = null;
    for (int page = 0; page < 50; page++) {
      ObjectNode params = NODES.objectNode();
      if (cursor != null) {
        params.put("cursor", cursor);
      }
      JsonNode result = request(method, params);
      if (!result.path(field).isArray()) {
        throw new ProtocolError(method + " result has no " + field + " array: " + result);
      }
      result.path(field).forEach(all::add);
      JsonNode next = result.path("nextCursor");
      if (!next.isString() || next.asString().isEmpty()) {
        return all;
      }
      cursor = next.asString();
    }
    throw new ProtocolError(method + " did not end after 50 pages");
  }

  /** Arguments that satisfy a tool's required top-level properties, a plain value of each type. */
  static ObjectNode argumentsFor(JsonNode schema) {
    ObjectNode arguments = NODES.objectNode();
    for (JsonNode required : schema.path("required")) {
      String name = required.asString("");
      switch (schema.path("properties").path(name).path("type").asString("string")) {
        case "integer" -> arguments.put(name, 1);
        case "number" -> arguments.put(name, 1.5);
        case "boolean" -> arguments.put(name, true);
        case "object" -> arguments.putObject(name);
        case "array" -> arguments.putArray(name);
        case "null" -> arguments.putNull(name);
        default -> arguments.put(name, "value");
      }
    }
    return arguments;
  }

  private static List<String> names(JsonNode tools) {
    List<String> names = new ArrayList<>();
    tools.forEach(t -> names.add(t.path("name").asString("?")));
    return names;
  }

  private static void requireTool(JsonNode tools, String name) {
    if (!names(tools).contains(name)) {
      throw new ProtocolError("tools/list does not offer '" + name + "': " + names(tools));
    }
  }

  private JsonNode callTool(String name, ObjectNode arguments) {
    ObjectNode params = NODES.objectNode();
    params.put("name", name);
    params.set("arguments", arguments);
    JsonNode result = request("tools/call", params);
    if (!result.path("content").isArray()) {
      throw new ProtocolError("tools/call " + name + " result has no content array: " + result);
    }
    if (result.path("isError").asBoolean(false)) {
      throw new ProtocolError("tools/call " + name + " reported a tool error: " + result);
    }
    log("tools/call " + name + " -> " + result);
    return result;
  }

  private static String firstText(JsonNode result) {
    for (JsonNode c : result.path("content")) {
      if ("text".equals(c.path("type").asString(""))) {
        return c.path("text").asString("");
      }
    }
    throw new ProtocolError("result has no text content: " + result);
  }

  /** Closes the relay's stdin, waits for it to exit and for its stdout to end. */
  private void shutdownRelay() {
    try {
      relayStdin.close();
    } catch (IOException e) {
      problem("closing the relay's stdin failed: " + e.getMessage());
    }
    try {
      if (!relay.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        problem("relay did not exit within " + EXIT_TIMEOUT.toSeconds() + " s of its stdin closing");
        relay.destroyForcibly();
        relay.waitFor(EXIT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        return;
      }
      log("relay exited with " + relay.exitValue() + " " + elapsed() + " ms after start");
      if (relay.exitValue() != 0) {
        problem("relay exited with code " + relay.exitValue());
      }
      stdoutEnded.get(DRAIN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      problem("interrupted waiting for the relay");
    } catch (ExecutionException | TimeoutException e) {
      problem("relay stdout did not end after it exited");
    }
  }

  // ---------------------------------------------------------------- JSON-RPC

  private JsonNode request(String method, JsonNode params) {
    int id = nextId.getAndIncrement();
    String key = String.valueOf(id);
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    pending.put(key, answer);
    ObjectNode message = NODES.objectNode();
    message.put("jsonrpc", "2.0");
    message.put("id", id);
    message.put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    send(message);
    JsonNode response;
    try {
      response = answer.get(REQUEST_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      pending.remove(key);
      throw new ProtocolError(method + " (id " + id + ") not answered within " + REQUEST_TIMEOUT.toSeconds() + " s");
    } catch (ExecutionException e) {
      pending.remove(key);
      throw new ProtocolError(method + " (id " + id + ") failed: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ProtocolError("interrupted waiting for " + method);
    }
    if (response.has("error")) {
      throw new ProtocolError(method + " (id " + id + ") answered with an error: " + response.get("error"));
    }
    JsonNode result = response.get("result");
    if (result == null || !result.isObject()) {
      throw new ProtocolError(method + " (id " + id + ") answered without a result object: " + response);
    }
    return result;
  }

  private void notify(String method, JsonNode params) {
    ObjectNode message = NODES.objectNode();
    message.put("jsonrpc", "2.0");
    message.put("method", method);
    if (params != null) {
      message.set("params", params);
    }
    send(message);
  }

  private synchronized void send(JsonNode message) {
    String line = JSON.writeValueAsString(message);
    log("-> " + line);
    try {
      relayStdin.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      relayStdin.flush();
    } catch (IOException e) {
      throw new ProtocolError("writing to the relay's stdin failed: " + e.getMessage());
    }
  }

  private void readLoop() {
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(relay.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        log("<- " + line);
        onLine(line);
      }
    } catch (IOException e) {
      problem("reading the relay's stdout failed: " + e.getMessage());
    } catch (RuntimeException e) {
      problem("internal error handling relay output: " + e);
    } finally {
      stdoutEnded.complete(null);
      for (Map.Entry<String, CompletableFuture<JsonNode>> p : pending.entrySet()) {
        p.getValue().completeExceptionally(new IOException("relay stdout ended"));
      }
    }
  }

  private void onLine(String line) {
    if (line.isBlank()) {
      problem("relay wrote a blank line to stdout");
      return;
    }
    JsonNode message;
    try {
      message = JSON.readTree(line);
    } catch (JacksonException e) {
      problem("relay wrote a line that is not JSON: " + line);
      return;
    }
    if (!message.isObject() || !"2.0".equals(message.path("jsonrpc").asString(""))) {
      problem("relay wrote something that is not a JSON-RPC 2.0 message: " + line);
      return;
    }
    boolean hasId = message.has("id") && !message.get("id").isNull();
    if (message.has("method")) {
      if (hasId) {
        answerServerRequest(message);
      } else {
        log("server notification " + message.path("method").asString());
      }
      return;
    }
    if (!message.has("result") && !message.has("error")) {
      problem("relay wrote a JSON-RPC message that is neither request, notification nor response: " + line);
      return;
    }
    if (!hasId) {
      problem("relay wrote a response without an id: " + line);
      return;
    }
    String key = message.get("id").toString();
    CompletableFuture<JsonNode> waiting = pending.remove(key);
    if (waiting == null) {
      problem("relay wrote a response for id " + key + ", which is not a pending request (duplicate or unknown): " + line);
      return;
    }
    waiting.complete(message);
  }

  /** Answers a server-to-client request the relay passed on. */
  private void answerServerRequest(JsonNode request) {
    String method = request.path("method").asString();
    if (scenario.equals("sep-2322-client-request-state") && method.equals("elicitation/create")
        && unrelatedCalled.compareAndSet(false, true)) {
      // Off the reader thread: the unrelated call's answer arrives on this same stdout.
      Thread.ofVirtual().name("unrelated-call").start(() -> {
        try {
          callTool("test_mrtr_unrelated", NODES.objectNode());
        } catch (ProtocolError e) {
          problem("test_mrtr_unrelated between MRTR rounds: " + e.getMessage());
        }
        answerNow(request, method);
      });
      return;
    }
    answerNow(request, method);
  }

  private void answerNow(JsonNode request, String method) {
    ObjectNode response = NODES.objectNode();
    response.put("jsonrpc", "2.0");
    response.set("id", request.get("id"));
    switch (method) {
      case "elicitation/create" -> {
        elicitations.incrementAndGet();
        response.set("result", elicitationAnswer(request.path("params")));
      }
      case "ping" -> response.putObject("result");
      default -> {
        ObjectNode error = response.putObject("error");
        error.put("code", -32601);
        error.put("message", "Method not found: " + method);
      }
    }
    try {
      send(response);
    } catch (ProtocolError e) {
      problem(e.getMessage());
    }
  }

  /**
   * Form-mode elicitation answered the way a user who accepts every suggestion would: each
   * property takes its schema {@code default}. When a required property has no default there is
   * nothing sensible to accept, so the request is declined. URL-mode elicitation is declined.
   */
  static ObjectNode elicitationAnswer(JsonNode params) {
    ObjectNode result = NODES.objectNode();
    String mode = params.path("mode").asString("form");
    JsonNode schema = params.path("requestedSchema");
    if (!"form".equals(mode) || !schema.path("properties").isObject()) {
      result.put("action", "decline");
      return result;
    }
    ObjectNode content = NODES.objectNode();
    for (Map.Entry<String, JsonNode> property : schema.path("properties").properties()) {
      JsonNode defaultValue = property.getValue().get("default");
      if (defaultValue != null && !defaultValue.isNull()) {
        content.set(property.getKey(), defaultValue);
      }
    }
    for (JsonNode required : schema.path("required")) {
      if (!content.has(required.asString(""))) {
        result.put("action", "decline");
        return result;
      }
    }
    result.put("action", "accept");
    result.set("content", content);
    return result;
  }

  // ---------------------------------------------------------------- reporting

  private void problem(String message) {
    problems.add(message);
    log("PROBLEM: " + message);
  }

  private long elapsed() {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
  }

  private static void log(String message) {
    System.err.println(Instant.now() + " [host] " + message);
    System.err.flush();
  }

  /** A violation that ends the scenario. */
  static final class ProtocolError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ProtocolError(String message) {
      super(message);
    }
  }
}
