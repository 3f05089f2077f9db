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
 * A minimal, fast Streamable HTTP MCP server for benchmarks: initialize with a session id, 202 for
 * notifications, 405 for GET, and {@code tools/call} echoing {@code arguments.text} back, as JSON
 * or (with {@code sse}) as a one-event stream. Fast on purpose: the relay's overhead must show.
 */
final class EchoUpstream implements AutoCloseable {

  private final Server server = new Server();
  private final ServerConnector connector = new ServerConnector(server);
  private final boolean sse;

  EchoUpstream(boolean sse) throws Exception {
    this.sse = sse;
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
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  private void serve(Request request, Response response, Callback callback) throws Exception {
    if (!request.getMethod().equals("POST")) {
      response.setStatus(request.getMethod().equals("DELETE") ? 200 : 405);
      callback.succeeded();
      return;
    }
    byte[] body = Request.asInputStream(request).readAllBytes();
    JsonRpcMessage message = JsonRpcCodec.parse(body);
    if (!(message instanceof JsonRpcMessage.Request r)) {
      response.setStatus(202);
      callback.succeeded();
      return;
    }
    String result;
    if (r.method().equals("initialize")) {
      response.getHeaders().put("Mcp-Session-Id", "bench-session");
      result = "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"echo\",\"version\":\"1\"}}";
    } else if (r.method().equals("tools/call")) {
      JsonSpan args = Json.field(body, r.params(), "arguments");
      JsonSpan text = Json.field(body, args, "text");
      result = "{\"content\":[{\"type\":\"text\",\"text\":" + (text == null ? "\"\"" : text.text(body)) + "}]}";
    } else {
      result = "{}";
    }
    String json = "{\"jsonrpc\":\"2.0\",\"id\":" + r.id().json() + ",\"result\":" + result + "}";
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

  @Override
  public void close() {
    try {
      server.stop();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
