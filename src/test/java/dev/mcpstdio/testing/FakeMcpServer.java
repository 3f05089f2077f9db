package dev.mcpstdio.testing;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A scriptable MCP server on a loopback port, for exact fault injection: each HTTP exchange is
 * recorded and answered by a {@link Reply} the test chooses (JSON, an event stream with pauses,
 * any status, a hang, an abrupt disconnect). {@link #mcp()} answers like a well-behaved
 * Streamable HTTP server, so a script only overrides what it is about.
 */
public final class FakeMcpServer implements AutoCloseable {

  /** One recorded HTTP exchange. Header names are lower case. */
  public record Exchange(int seq, String method, String path, Map<String, String> headers, byte[] body, String query) {

    public String header(String name) {
      return headers.get(name.toLowerCase(Locale.ROOT));
    }

    public String text() {
      return new String(body, StandardCharsets.UTF_8);
    }

    /** The JSON-RPC message in the body, or null (GET, DELETE, bad JSON). */
    public JsonRpcMessage message() {
      if (body.length == 0) {
        return null;
      }
      try {
        return JsonRpcCodec.parse(body);
      } catch (MalformedMessageException e) {
        return null;
      }
    }

    /** The JSON-RPC method of the body, or null. */
    public String rpcMethod() {
      return switch (message()) {
        case JsonRpcMessage.Request r -> r.method();
        case JsonRpcMessage.Notification n -> n.method();
        case null, default -> null;
      };
    }

    public JsonRpcId rpcId() {
      return message() instanceof JsonRpcMessage.Request r ? r.id() : null;
    }

    /** The raw JSON of the request id, e.g. {@code 7} or {@code "abc"}. */
    public String rpcIdJson() {
      JsonRpcId id = rpcId();
      return id == null ? "null" : id.json();
    }

    public boolean is(String httpMethod, String rpc) {
      return method.equals(httpMethod) && (rpc == null || rpc.equals(rpcMethod()));
    }

    /** A member of the request's params as raw JSON, or null. */
    public String param(String name) {
      JsonRpcMessage m = message();
      var params = switch (m) {
        case JsonRpcMessage.Request r -> r.params();
        case JsonRpcMessage.Notification n -> n.params();
        case null, default -> null;
      };
      if (params == null) {
        return null;
      }
      var span = Json.field(m.bytes(), params, name);
      return span == null ? null : span.text(m.bytes());
    }
  }

  /** How the server answers one exchange. */
  public sealed interface Reply {

    static Reply json(String body, String... headers) {
      return new Body(200, "application/json", body, headers);
    }

    /** A body of arbitrary bytes (compressed, invalid UTF-8...). */
    static Reply bytes(int code, String contentType, byte[] body, String... headers) {
      return new Bytes(code, contentType, body, headers);
    }

    static Reply status(int code, String... headers) {
      return new Body(code, null, "", headers);
    }

    static Reply body(int code, String contentType, String body, String... headers) {
      return new Body(code, contentType, body, headers);
    }

    static Reply sse(List<Step> steps, String... headers) {
      return new Events(200, steps, false, headers);
    }

    static Reply sseThenDrop(List<Step> steps, String... headers) {
      return new Events(200, steps, true, headers);
    }

    /** Reads the request, then never answers (until the server stops). */
    static Reply hang() {
      return new Hang();
    }

    /** Reads the request, then drops the connection without a response. */
    static Reply drop() {
      return new Drop();
    }

    /** A complete response with a body. */
    record Body(int status, String contentType, String body, String[] headers) implements Reply {}

    /** An event stream; {@code drop} ends it by cutting the connection. */
    record Events(int status, List<Step> steps, boolean drop, String[] headers) implements Reply {}

    record Bytes(int status, String contentType, byte[] body, String[] headers) implements Reply {}

    record Hang() implements Reply {}

    record Drop() implements Reply {}
  }

  /** One step of an event stream. */
  public sealed interface Step {

    /** {@code event: message} with the given data. */
    static Step message(String data) {
      return new Raw("event: message\ndata: " + data + "\n\n");
    }

    /** A message event with an id. */
    static Step message(String id, String data) {
      return new Raw("id: " + id + "\nevent: message\ndata: " + data + "\n\n");
    }

    /** The 2025-11-25 priming event: an id, empty data and a reconnection delay. */
    static Step prime(String id, long retryMillis) {
      return new Raw("id: " + id + "\nretry: " + retryMillis + "\ndata: \n\n");
    }

    static Step raw(String text) {
      return new Raw(text);
    }

    static Step pause(Duration duration) {
      return new Pause(duration);
    }

    /** Blocks the stream until the latch opens (bounded by 30 s). */
    static Step await(CountDownLatch latch) {
      return new Await(latch);
    }

    record Raw(String text) implements Step {}

    record Pause(Duration duration) implements Step {}

    record Await(CountDownLatch latch) implements Step {}
  }

  private final Server server;
  private final ServerConnector connector;
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final AtomicInteger seq = new AtomicInteger();
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final BlockingQueue<String> pushes = new LinkedBlockingQueue<>();
  private volatile Function<Exchange, Reply> script;
  private final String path;
  private final String scheme;

  public FakeMcpServer(Function<Exchange, Reply> script) {
    this("/mcp", script);
  }

  public FakeMcpServer(String path, Function<Exchange, Reply> script) {
    this(path, null, script);
  }

  /** A server on https with the key in {@code keyStore} (PKCS12, password "changeit"). */
  public static FakeMcpServer tls(java.nio.file.Path keyStore, Function<Exchange, Reply> script) {
    return new FakeMcpServer("/mcp", keyStore, script);
  }

  private FakeMcpServer(String path, java.nio.file.Path keyStore, Function<Exchange, Reply> script) {
    this.path = path;
    this.script = script;
    this.scheme = keyStore == null ? "http" : "https";
    QueuedThreadPool pool = new QueuedThreadPool(256, 4);
    pool.setName("fake-mcp");
    server = new Server(pool);
    if (keyStore == null) {
      connector = new ServerConnector(server);
    } else {
      org.eclipse.jetty.util.ssl.SslContextFactory.Server ssl = new org.eclipse.jetty.util.ssl.SslContextFactory.Server();
      ssl.setKeyStorePath(keyStore.toString());
      ssl.setKeyStorePassword("changeit");
      ssl.setKeyStoreType("PKCS12");
      org.eclipse.jetty.server.HttpConfiguration https = new org.eclipse.jetty.server.HttpConfiguration();
      https.addCustomizer(new org.eclipse.jetty.server.SecureRequestCustomizer(false));
      connector = new ServerConnector(server, new org.eclipse.jetty.server.SslConnectionFactory(ssl, "http/1.1"),
          new org.eclipse.jetty.server.HttpConnectionFactory(https));
    }
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
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A server with the default well-behaved MCP script. */
  public static FakeMcpServer mcp() {
    return new FakeMcpServer(FakeMcpServer::standard);
  }

  public void script(Function<Exchange, Reply> newScript) {
    this.script = newScript;
  }

  public URI url() {
    return URI.create(scheme + "://" + (scheme.equals("https") ? "localhost" : "127.0.0.1") + ":" + connector.getLocalPort() + path);
  }

  public int port() {
    return connector.getLocalPort();
  }

  public List<Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  /** Recorded exchanges whose JSON-RPC method is {@code rpc} (POSTs). */
  public List<Exchange> posts(String rpc) {
    return exchanges.stream().filter(e -> e.is("POST", rpc)).toList();
  }

  public List<Exchange> requests(String httpMethod) {
    return exchanges.stream().filter(e -> e.method().equals(httpMethod)).toList();
  }

  /** Queues a message for the GET stream opened with {@link #getStream()}. */
  public void push(String json) {
    pushes.add(json);
  }

  /** A GET reply that streams whatever {@link #push} queues, until the server stops. */
  public Reply getStream() {
    return new Reply.Events(200, List.of(new PushSource()), false, new String[0]);
  }

  /**
   * As {@link #getStream()}, after the steps {@code first} (an HTTP+SSE {@code endpoint} event,
   * say); the stream ends cleanly at {@link #endStream()}.
   */
  public Reply getStream(Step... first) {
    List<Step> steps = new ArrayList<>(List.of(first));
    steps.add(new PushSource());
    return new Reply.Events(200, List.copyOf(steps), false, new String[0]);
  }

  /** Ends the pushed stream that is open now (or the next one to open), after what was pushed before. */
  public void endStream() {
    pushes.add(END_OF_STREAM);
  }

  /** Queued by {@link #endStream()}; never JSON, so never a message. */
  private static final String END_OF_STREAM = "\u0000end of stream";

  /** Marker step: stream pushed messages. */
  private record PushSource() implements Step {}

  public static final String SESSION = "session-1";

  /** The default script: initialize with a session, 202 for notifications, echo tools, 405 GET. */
  public static Reply standard(Exchange e) {
    switch (e.method()) {
      case "GET" -> {
        return Reply.status(405);
      }
      case "DELETE" -> {
        return Reply.status(200);
      }
      default -> {}
    }
    JsonRpcMessage m = e.message();
    if (!(m instanceof JsonRpcMessage.Request r)) {
      return Reply.status(202);
    }
    String id = r.id().json();
    return switch (r.method()) {
      case "initialize" -> Reply.json(initializeResult(id, "2025-11-25"), "Mcp-Session-Id", SESSION);
      case "tools/list" ->
          Reply.json("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}}");
      case "tools/call" ->
          Reply.json("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}");
      case "ping" -> Reply.json("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{}}");
      default ->
          Reply.json("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-32601,\"message\":\"Method not found\"}}");
    };
  }

  public static String initializeResult(String idJson, String version) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":{\"protocolVersion\":\"" + version
        + "\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"fake\",\"version\":\"1.0\"}}}";
  }

  public static String result(String idJson, String resultJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":" + resultJson + "}";
  }

  private void serve(Request request, Response response, Callback callback) throws Exception {
    byte[] body = Request.asInputStream(request).readAllBytes();
    Map<String, String> headers = new LinkedHashMap<>();
    for (HttpField f : request.getHeaders()) {
      headers.merge(f.getLowerCaseName(), f.getValue(), (a, b) -> a + ", " + b);
    }
    Exchange exchange =
        new Exchange(seq.incrementAndGet(), request.getMethod(), request.getHttpURI().getPath(), Map.copyOf(headers), body,
            request.getHttpURI().getQuery());
    exchanges.add(exchange);
    Reply reply = script.apply(exchange);
    switch (reply) {
      case Reply.Body b -> {
        response.setStatus(b.status());
        headers(response, b.headers());
        if (b.contentType() != null) {
          response.getHeaders().put("Content-Type", b.contentType());
        }
        byte[] bytes = b.body().getBytes(StandardCharsets.UTF_8);
        response.getHeaders().put("Content-Length", String.valueOf(bytes.length));
        response.write(true, java.nio.ByteBuffer.wrap(bytes), callback);
      }
      case Reply.Bytes b -> {
        response.setStatus(b.status());
        headers(response, b.headers());
        response.getHeaders().put("Content-Type", b.contentType());
        response.getHeaders().put("Content-Length", String.valueOf(b.body().length));
        response.write(true, java.nio.ByteBuffer.wrap(b.body()), callback);
      }
      case Reply.Events ev -> stream(response, callback, ev);
      case Reply.Hang h -> {
        stopping.await(60, TimeUnit.SECONDS);
        callback.failed(new IOException("hang ended"));
      }
      case Reply.Drop d -> {
        request.getConnectionMetaData().getConnection().getEndPoint().close();
        callback.failed(new IOException("dropped"));
      }
    }
  }

  private void stream(Response response, Callback callback, Reply.Events ev) throws Exception {
    response.setStatus(ev.status());
    headers(response, ev.headers());
    response.getHeaders().put("Content-Type", "text/event-stream");
    response.getHeaders().put("Cache-Control", "no-cache");
    OutputStream out = Content.Sink.asOutputStream(response);
    try {
      out.flush(); // commit headers now: the client must see the stream open
      for (Step step : ev.steps()) {
        switch (step) {
          case Step.Raw raw -> {
            out.write(raw.text().getBytes(StandardCharsets.UTF_8));
            out.flush();
          }
          case Step.Pause p -> {
            if (stopping.await(p.duration().toMillis(), TimeUnit.MILLISECONDS)) {
              throw new IOException("server stopping");
            }
          }
          case Step.Await a -> {
            if (!a.latch().await(30, TimeUnit.SECONDS)) {
              throw new IOException("latch never opened");
            }
          }
          case PushSource p -> {
            while (stopping.getCount() > 0) {
              String json = pushes.poll(50, TimeUnit.MILLISECONDS);
              if (END_OF_STREAM.equals(json)) {
                break;
              }
              if (json != null) {
                out.write(("event: message\ndata: " + json + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
              }
            }
          }
        }
      }
      if (ev.drop()) {
        response.getRequest().getConnectionMetaData().getConnection().getEndPoint().close();
        callback.failed(new IOException("dropped"));
        return;
      }
      out.close();
      callback.succeeded();
    } catch (IOException e) {
      callback.failed(e);
    }
  }

  private static void headers(Response response, String[] pairs) {
    for (int i = 0; i + 1 < pairs.length; i += 2) {
      response.getHeaders().put(pairs[i], pairs[i + 1]);
    }
  }

  @Override
  public void close() {
    stopping.countDown();
    try {
      server.stop();
    } catch (Exception ignored) {
      // best effort
    }
  }

  /** The exchanges so far, one line each, for assertion messages. */
  public String describe() {
    List<String> lines = new ArrayList<>();
    for (Exchange e : exchanges) {
      lines.add(e.seq() + " " + e.method() + " " + e.path() + " " + (e.rpcMethod() == null ? "" : e.rpcMethod()));
    }
    return String.join("\n", lines);
  }
}
