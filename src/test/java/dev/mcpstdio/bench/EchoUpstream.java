package dev.mcpstdio.bench;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;

/**
 * A minimal, fast MCP server for benchmarks: initialize with a session id, 202 for notifications,
 * and {@code tools/call} echoing {@code arguments.text} back. Over Streamable HTTP the answer is
 * JSON or (with {@code sse}) a one-event stream, and GET is 405; with {@code httpSse} it speaks the
 * 2024-11-05 HTTP+SSE transport instead ({@code GET /sse}, {@code POST /messages?sessionId=}); with
 * {@code era2026} it is a 2026-07-28 server (no sessions: {@code server/discover}, {@code
 * resultType} on results, {@code initialize} refused with 404 -32601).
 * Fast on purpose: the relay's overhead must show.
 */
final class EchoUpstream implements AutoCloseable {

  private final Server server = new Server();
  private final ServerConnector connector = new ServerConnector(server);
  private final boolean sse;
  private final boolean httpSse;
  private final boolean era2026;
  private final java.util.Map<String, java.util.concurrent.LinkedBlockingQueue<byte[]>> streams =
      new java.util.concurrent.ConcurrentHashMap<>();
  private final java.util.concurrent.atomic.AtomicLong sessions = new java.util.concurrent.atomic.AtomicLong();

  EchoUpstream(boolean sse) throws Exception {
    this(sse, false);
  }

  EchoUpstream(boolean sse, boolean httpSse) throws Exception {
    this(sse, httpSse, false);
  }

  EchoUpstream(boolean sse, boolean httpSse, boolean era2026) throws Exception {
    this.sse = sse;
    this.httpSse = httpSse;
    this.era2026 = era2026;
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        serve(request, response, callback);
        return true;
      }
    });
    server.start();
  }

  URI url() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + (httpSse ? "/sse" : "/mcp"));
  }

  private void serve(Request request, Response response, Callback callback) throws Exception {
    if (httpSse) {
      serveHttpSse(request, response, callback);
      return;
    }
    if (!request.getMethod().equals("POST")) {
      response.setStatus(request.getMethod().equals("DELETE") ? 200 : 405);
      callback.succeeded();
      return;
    }
    byte[] body = Request.asInputStream(request).readAllBytes();
    String json = era2026 ? answer2026(body) : answer(body);
    if (json == null) {
      response.setStatus(202);
      callback.succeeded();
      return;
    }
    if (era2026 && json.contains("-32601")) {
      response.setStatus(404);
    }
    if (!era2026 && json.contains("\"protocolVersion\"")) {
      response.getHeaders().put("Mcp-Session-Id", "bench-session");
    }
    byte[] out;
    if (sse) {
      response.getHeaders().put("Content-Type", "text/event-stream");
      out = ("event: message\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8);
    } else {
      response.getHeaders().put("Content-Type", "application/json");
      out = json.getBytes(StandardCharsets.UTF_8);
    }
    response.getHeaders().put("Content-Length", String.valueOf(out.length));
    response.write(true, ByteBuffer.wrap(out), callback);
  }

  /** The answer to a request, or null for anything that is not a request. */
  private static String answer(byte[] body) throws Exception {
    JsonRpcMessage message = JsonRpcCodec.parse(body);
    if (!(message instanceof JsonRpcMessage.Request r)) {
      return null;
    }
    String result;
    if (r.method().equals("initialize")) {
      result = "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"echo\",\"version\":\"1\"}}";
    } else if (r.method().equals("tools/call")) {
      JsonSpan args = Json.field(body, r.params(), "arguments");
      JsonSpan text = Json.field(body, args, "text");
      result = "{\"content\":[{\"type\":\"text\",\"text\":" + (text == null ? "\"\"" : text.text(body)) + "}]}";
    } else {
      result = "{}";
    }
    return "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json() + ",\"result\":" + result + "}";
  }

  /** The 2026 era's answer to a request, or null for anything that is not a request. */
  private static String answer2026(byte[] body) throws Exception {
    JsonRpcMessage message = JsonRpcCodec.parse(body);
    if (!(message instanceof JsonRpcMessage.Request r)) {
      return null;
    }
    String result;
    if (r.method().equals("server/discover")) {
      result = "{\"resultType\":\"complete\",\"supportedVersions\":[\"2026-07-28\"],\"capabilities\":{\"tools\":{}},"
          + "\"ttlMs\":0,\"cacheScope\":\"public\",\"_meta\":{\"io.modelcontextprotocol/serverInfo\":{\"name\":\"echo\",\"version\":\"1\"}}}";
    } else if (r.method().equals("tools/call")) {
      JsonSpan args = Json.field(body, r.params(), "arguments");
      JsonSpan text = Json.field(body, args, "text");
      result = "{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":" + (text == null ? "\"\"" : text.text(body)) + "}]}";
    } else if (r.method().equals("initialize") || r.method().equals("ping")) {
      return "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json() + ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}";
    } else {
      result = "{\"resultType\":\"complete\"}";
    }
    return "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json() + ",\"result\":" + result + "}";
  }

  private void serveHttpSse(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    if (request.getMethod().equals("GET") && path.equals("/sse")) {
      String id = "s" + sessions.incrementAndGet();
      java.util.concurrent.LinkedBlockingQueue<byte[]> queue = new java.util.concurrent.LinkedBlockingQueue<>();
      streams.put(id, queue);
      response.getHeaders().put("Content-Type", "text/event-stream");
      try {
        write(response, ("event: endpoint\ndata: /messages?sessionId=" + id + "\n\n").getBytes(StandardCharsets.UTF_8));
        while (true) {
          byte[] json = queue.take();
          ByteBuffer event = ByteBuffer.allocate(json.length + 24);
          event.put("event: message\ndata: ".getBytes(StandardCharsets.US_ASCII)).put(json).put((byte) '\n').put((byte) '\n').flip();
          try (org.eclipse.jetty.util.Blocker.Callback done = org.eclipse.jetty.util.Blocker.callback()) {
            response.write(false, event, done);
            done.block();
          }
        }
      } catch (java.io.IOException | InterruptedException e) {
        streams.remove(id);
        callback.succeeded();
      }
      return;
    }
    if (request.getMethod().equals("POST") && path.equals("/messages")) {
      String id = Request.extractQueryParameters(request).getValue("sessionId");
      java.util.concurrent.LinkedBlockingQueue<byte[]> queue = id == null ? null : streams.get(id);
      if (queue == null) {
        response.setStatus(404);
        callback.succeeded();
        return;
      }
      String json = answer(Request.asInputStream(request).readAllBytes());
      if (json != null) {
        queue.add(json.getBytes(StandardCharsets.UTF_8));
      }
      response.setStatus(202);
      callback.succeeded();
      return;
    }
    response.setStatus(405);
    callback.succeeded();
  }

  private static void write(Response response, byte[] bytes) throws java.io.IOException {
    try (org.eclipse.jetty.util.Blocker.Callback done = org.eclipse.jetty.util.Blocker.callback()) {
      response.write(false, ByteBuffer.wrap(bytes), done);
      done.block();
    }
  }

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
