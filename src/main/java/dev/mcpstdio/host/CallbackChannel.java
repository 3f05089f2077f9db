package dev.mcpstdio.host;

import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The reply channel of session-scoped children (docs/callbacks.md): a loopback HTTP listener on a
 * random port where a child waits for the host's decision on a callback it announced.
 *
 * <p>Each session registers with its {@link CallbackRegistry} and gets a base URL and a secret for
 * its child's environment ({@code MCP_STDIO_CALLBACK_URL}, {@code MCP_STDIO_CALLBACK_TOKEN}; never
 * argv). {@code GET <url>/<id>} long-polls: 200 {@code {"id":...,"reply":...}}, 408 at the
 * callback's deadline, 404 for an id never announced (after a short grace, since the GET may race
 * the stderr line). {@code POST <url>} announces the callback in its body and waits the same way.
 * A wrong or missing secret is 401; secrets are compared as digests in constant time.
 */
public final class CallbackChannel implements AutoCloseable {

  private static final SecureRandom RANDOM = new SecureRandom();

  /** What a session's child is told, in its environment. */
  public record Credentials(String url, String token) {
    public Map<String, String> env() {
      return Map.of("MCP_STDIO_CALLBACK_URL", url, "MCP_STDIO_CALLBACK_TOKEN", token);
    }
  }

  private record Registration(byte[] tokenDigest, CallbackRegistry registry, Consumer<Callback> announced) {}

  private final Server server;
  private final ServerConnector connector;
  private final Map<String, Registration> sessions = new ConcurrentHashMap<>();
  private final CallbackParser parser = new CallbackParser();

  public CallbackChannel() throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("callbacks");
    threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("callback-", 0).factory()));
    this.server = new Server(threads);
    this.connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setIdleTimeout(30_000);
    server.addConnector(connector);
    server.setHandler(new Routes());
    server.setStopTimeout(0); // waiting children are told by their sessions' ends, not by a grace
    server.start();
  }

  /** The base of every session's URL. */
  public URI base() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/callbacks/");
  }

  /**
   * Registers a session under its public id; {@code announced} receives the callbacks POSTed to it
   * and must register them with {@code registry} (the host handles them like those from stderr).
   */
  public Credentials register(String sessionId, CallbackRegistry registry, Consumer<Callback> announced) {
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    String token = HexFormat.of().formatHex(raw);
    sessions.put(sessionId, new Registration(digest(token), registry, announced));
    return new Credentials(base() + sessionId, token);
  }

  public void unregister(String sessionId) {
    sessions.remove(sessionId);
  }

  @Override
  public void close() throws Exception {
    sessions.clear();
    server.stop();
  }

  private final class Routes extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, org.eclipse.jetty.util.Callback callback) throws Exception {
      String path = request.getHttpURI().getPath();
      String[] parts = path.startsWith("/callbacks/") ? path.substring("/callbacks/".length()).split("/", -1) : new String[0];
      Registration session = parts.length >= 1 ? sessions.get(parts[0]) : null;
      String auth = request.getHeaders().get(HttpHeader.AUTHORIZATION);
      String token = auth != null && auth.regionMatches(true, 0, "Bearer ", 0, 7) ? auth.substring(7).trim() : "";
      // 401 alike for an unknown session and a wrong secret: the answer does not tell which ids exist
      if (session == null || !MessageDigest.isEqual(digest(token), session.tokenDigest())) {
        reply(response, callback, 401, "{\"error\":\"wrong or missing secret\"}");
        return true;
      }
      request.addIdleTimeoutListener(timeout -> false); // the callback's own deadline governs the wait
      if (parts.length == 2 && request.getMethod().equals("GET") && !parts[1].isEmpty()) {
        answer(parts[1], session.registry().await(parts[1]), response, callback);
      } else if (parts.length == 1 && request.getMethod().equals("POST")) {
        byte[] body = Request.asInputStream(request).readNBytes(CallbackParser.DEFAULT_MAX_LINE + 1);
        byte[] line = new byte[CallbackParser.PREFIX.length() + body.length];
        System.arraycopy(CallbackParser.PREFIX.getBytes(StandardCharsets.US_ASCII), 0, line, 0, CallbackParser.PREFIX.length());
        System.arraycopy(body, 0, line, CallbackParser.PREFIX.length(), body.length);
        switch (parser.parse(line)) {
          case CallbackParser.Parsed.Valid valid -> {
            if (!valid.callback().isNotification() && session.registry().waiting().size() >= CallbackRegistry.MAX_PENDING) {
              reply(response, callback, 429, "{\"error\":\"too many callbacks waiting\"}");
              return true;
            }
            session.announced().accept(valid.callback()); // the host registers, shows and routes it
            if (valid.callback().isNotification()) {
              reply(response, callback, 202, "{\"accepted\":true}");
            } else {
              answer(valid.callback().id(), session.registry().await(valid.callback().id()), response, callback);
            }
          }
          case CallbackParser.Parsed.Rejected rejected ->
              reply(response, callback, 400, "{\"error\":" + dev.mcpstdio.jsonrpc.Json.quote(rejected.reason()) + "}");
          case CallbackParser.Parsed.Plain plain -> reply(response, callback, 400, "{\"error\":\"not a callback\"}");
        }
      } else {
        reply(response, callback, 405, "{\"error\":\"GET <url>/<id> or POST <url>\"}");
      }
      return true;
    }
  }

  private void answer(String id, CallbackRegistry.Answer answer, Response response, org.eclipse.jetty.util.Callback callback) {
    switch (answer) {
      case CallbackRegistry.Answer.Replied r ->
          reply(response, callback, 200, "{\"id\":" + dev.mcpstdio.jsonrpc.Json.quote(id) + ",\"reply\":" + r.replyJson() + "}");
      case CallbackRegistry.Answer.TimedOut t -> reply(response, callback, 408, "{\"error\":\"no decision in time\"}");
      case CallbackRegistry.Answer.Unknown u -> reply(response, callback, 404, "{\"error\":\"unknown callback\"}");
    }
  }

  private static void reply(Response response, org.eclipse.jetty.util.Callback callback, int status, String json) {
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
