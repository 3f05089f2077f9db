package dev.mcpstdio.demo;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.StdoutWire;
import dev.mcpstdio.wire.LineReader;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The built-in demo: a small stdio MCP server ({@code mcp-stdio demo}) that {@code serve} runs when
 * given no command, and that tests and newcomers can poke at. It covers what a gateway must carry:
 * plain tool calls, progress, cancellation, and the two server-to-client requests (elicitation and
 * sampling), plus one resource and one prompt.
 *
 * <p>Requests are handled on their own virtual threads, so a slow tool never holds up a ping; the
 * reader thread only parses and dispatches. Requests this server sends to the client carry ids
 * {@code "demo-N"} and wait at most {@link #CLIENT_WAIT} for an answer.
 */
public final class DemoServer {

  /** How long a tool waits for the client to answer an elicitation or sampling request. */
  static final Duration CLIENT_WAIT = Duration.ofMinutes(5);

  /** Versions this server speaks; the client's is accepted when listed, else the newest. */
  static final Set<String> VERSIONS = Set.copyOf(dev.mcpstdio.protocol.McpVersions.ERA_2025);

  static final String NEWEST = "2025-11-25";

  private static final long MAX_MESSAGE = 10L << 20;

  private final StdoutWire out;
  private final Log log;
  private final DemoTools tools;
  private final AtomicLong nextId = new AtomicLong(1);
  private final Map<JsonRpcId, CompletableFuture<JsonRpcMessage.Response>> awaiting = new ConcurrentHashMap<>();
  private final Map<JsonRpcId, Thread> running = new ConcurrentHashMap<>();

  public DemoServer(StdoutWire out, Log log) {
    this.out = out;
    this.log = log;
    this.tools = new DemoTools(this);
  }

  /** Serves until stdin ends; returns the exit code. */
  public int run(InputStream in) throws IOException {
    LineReader reader = new LineReader(in, MAX_MESSAGE);
    for (LineReader.Line line; (line = reader.next()) != null; ) {
      if (line instanceof LineReader.Line.Text text && text.bytes().length > 0) {
        dispatch(text.bytes());
      } else if (line instanceof LineReader.Line.Oversized) {
        send(JsonRpcErrors.error(null, ErrorCodes.INVALID_REQUEST, "message too large"));
      }
    }
    running.values().forEach(Thread::interrupt);
    return 0;
  }

  private void dispatch(byte[] bytes) {
    JsonRpcMessage message;
    try {
      message = JsonRpcCodec.parse(bytes);
    } catch (MalformedMessageException e) {
      send(JsonRpcErrors.error(null, ErrorCodes.PARSE_ERROR, "parse error: " + e.getMessage()));
      return;
    }
    switch (message) {
      case JsonRpcMessage.Request r -> {
        Thread worker = Thread.ofVirtual().unstarted(() -> answer(r));
        running.put(r.id(), worker);
        worker.start();
      }
      case JsonRpcMessage.Response r -> {
        CompletableFuture<JsonRpcMessage.Response> waiter = r.id() == null ? null : awaiting.remove(r.id());
        if (waiter != null) {
          waiter.complete(r);
        }
      }
      case JsonRpcMessage.Notification n -> {
        if (n.method().equals("notifications/cancelled")) {
          JsonRpcId id = Json.id(n.bytes(), Json.field(n.bytes(), n.params(), "requestId"));
          Thread worker = id == null ? null : running.get(id);
          if (worker != null) {
            worker.interrupt();
          }
        }
      }
      case JsonRpcMessage.Batch b ->
          send(JsonRpcErrors.error(null, ErrorCodes.INVALID_REQUEST, "batches are not supported"));
      case JsonRpcMessage.Invalid i -> send(JsonRpcErrors.error(i.id(), ErrorCodes.INVALID_REQUEST, i.reason()));
    }
  }

  private void answer(JsonRpcMessage.Request request) {
    try {
      String result = switch (request.method()) {
        case "initialize" -> initialize(request);
        case "ping", "logging/setLevel" -> "{}";
        case "tools/list" -> DemoCatalog.TOOLS;
        case "tools/call" -> tools.call(request);
        case "resources/list" -> DemoCatalog.RESOURCES;
        case "resources/templates/list" -> "{\"resourceTemplates\":[]}";
        case "resources/read" -> DemoCatalog.read(Json.string(request.bytes(), param(request, "uri")));
        case "prompts/list" -> DemoCatalog.PROMPTS;
        case "prompts/get" -> DemoCatalog.prompt(request.bytes(), request.params());
        default -> throw new DemoError(ErrorCodes.METHOD_NOT_FOUND, "method not found: " + request.method());
      };
      respond(request.id(), result);
    } catch (DemoError e) {
      send(JsonRpcErrors.error(request.id(), e.code, e.getMessage()));
    } catch (InterruptedException e) {
      log.info("request " + request.id() + " cancelled");
    } catch (RuntimeException e) {
      send(JsonRpcErrors.error(request.id(), ErrorCodes.INTERNAL_ERROR, "internal error: " + e));
    } finally {
      running.remove(request.id());
    }
  }

  private static String initialize(JsonRpcMessage.Request request) {
    String asked = Json.string(request.bytes(), param(request, "protocolVersion"));
    String version = asked != null && VERSIONS.contains(asked) ? asked : NEWEST;
    return "{\"protocolVersion\":" + Json.quote(version)
        + ",\"capabilities\":{\"tools\":{},\"resources\":{},\"prompts\":{},\"logging\":{}},"
        + "\"serverInfo\":{\"name\":\"mcp-stdio-demo\",\"version\":\"1.0.0\"},"
        + "\"instructions\":\"A demo server built into mcp-stdio: try the echo, add, slow, ask and summarize tools.\"}";
  }

  static JsonSpan param(JsonRpcMessage.Request request, String name) {
    return Json.field(request.bytes(), request.params(), name);
  }

  void respond(JsonRpcId id, String resultJson) {
    send(("{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"result\":" + resultJson + "}").getBytes(StandardCharsets.UTF_8));
  }

  void notify(String method, String paramsJson) {
    send(("{\"jsonrpc\":\"2.0\",\"method\":" + Json.quote(method) + ",\"params\":" + paramsJson + "}")
        .getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends a request to the client and waits for its answer.
   *
   * @return the response (a result or an error)
   * @throws DemoError when the client does not answer in time
   */
  JsonRpcMessage.Response ask(String method, String paramsJson) throws InterruptedException {
    JsonRpcId id = JsonRpcId.relayOwned("demo-" + nextId.getAndIncrement());
    CompletableFuture<JsonRpcMessage.Response> answer = new CompletableFuture<>();
    awaiting.put(id, answer);
    try {
      send(("{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"method\":" + Json.quote(method) + ",\"params\":"
          + paramsJson + "}").getBytes(StandardCharsets.UTF_8));
      return answer.get(CLIENT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new DemoError(ErrorCodes.INTERNAL_ERROR, "the client did not answer " + method + " in time");
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } finally {
      awaiting.remove(id);
    }
  }

  private void send(byte[] json) {
    out.write(json);
  }

  /** A failure that becomes a JSON-RPC error answer. */
  static final class DemoError extends RuntimeException {
    final int code;

    DemoError(int code, String message) {
      super(message, null, false, false);
      this.code = code;
    }
  }
}
