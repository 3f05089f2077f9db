package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.stdio.Log;
import java.net.URI;
import java.util.concurrent.Executors;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * {@code mcp-stdio serve}: Jetty wiring and the route table.
 *
 * <p>Every connection counts against {@code --max-connections} ({@link NetworkConnectionLimit}: past
 * it, new connections wait until one closes) and every request head against
 * {@code --header-timeout} ({@link HeadDeadline}, which wraps the routes); a failing accept backs off
 * ({@link GatewayConnector}); bodies are read within their own bounds ({@link RequestBodies}).
 * Every request passes the {@link HostGuard} first (403), then, for the MCP endpoint, the
 * {@link BearerGate} (401 with a {@code WWW-Authenticate} challenge). Health checks
 * ({@code /healthz}, {@code /readyz}) and the protected-resource document need no token. Each
 * request is logged on stderr once it completes, with its query string redacted. Handlers run on
 * virtual threads, so a stream that waits for a slow child costs no platform thread.
 */
public final class ServeGateway implements AutoCloseable {

  private static final String METADATA_PATH = "/.well-known/oauth-protected-resource";

  /** A connection with nothing to read or write this long is closed (event streams excepted). */
  static final long IDLE_TIMEOUT_MILLIS = 30_000;

  private final ServeConfig config;
  private final Log log;
  private final Server server;
  private final GatewayConnector connector;
  private final Sessions sessions;
  private final HostGuard guard;
  private final BearerGate gate;
  private final McpEndpoint endpoint;
  private final LegacySseEndpoint legacy;
  private final CallbackEndpoint callbacks;
  private final Readiness readiness;
  private final RequestBodies bodies;
  private final HeadDeadline heads;
  private final NetworkConnectionLimit limit;

  public ServeGateway(ServeConfig config, Log log) {
    this.config = config;
    this.log = log;
    this.sessions = new Sessions(config, log);
    this.guard = new HostGuard(config.host(), config.publicUrl(), config.allowedOrigins());
    this.gate = new BearerGate(config.authToken(), config.publicUrl(), config.path());
    this.bodies = new RequestBodies(config.maxMessageSize(), config.connections().bodyTimeout());
    this.endpoint = new McpEndpoint(config, sessions, bodies);
    this.legacy = new LegacySseEndpoint(config, sessions, bodies);
    this.callbacks = new CallbackEndpoint(sessions, bodies, config.keepAlive().toMillis());
    this.readiness = new Readiness(config, sessions);
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("serve");
    threads.setVirtualThreadsExecutor(Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("serve-", 0).factory()));
    this.server = new Server(threads);
    HttpConfiguration http = new HttpConfiguration();
    http.setSendServerVersion(false);
    http.setSendDateHeader(false);
    AcceptBackoff backoff = new AcceptBackoff(log, () -> System.nanoTime() / 1_000_000);
    this.connector = new GatewayConnector(server, backoff, new HttpConnectionFactory(http));
    connector.setHost(config.host());
    connector.setPort(config.port());
    connector.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
    server.addConnector(connector);
    // past the cap the connector stops accepting: new connections wait in the system's accept
    // queue, established ones go on
    this.limit = new NetworkConnectionLimit(config.connections().max(), connector);
    server.addBean(limit);
    this.heads = new HeadDeadline(config.connections().headerTimeout(), log, new Routes());
    connector.addEventListener(heads);
    server.setHandler(heads);
    server.setStopTimeout(2_000);
  }

  /** Network connections open now. */
  int connections() {
    return limit.getNetworkConnectionCount();
  }

  RequestBodies bodies() {
    return bodies;
  }

  public void start() throws Exception {
    server.start();
  }

  /** The port actually bound (useful with port 0). */
  public int port() {
    return connector.getLocalPort();
  }

  public URI url() {
    String host = config.host().contains(":") ? "[" + config.host() + "]" : config.host();
    return URI.create("http://" + host + ":" + port() + config.path());
  }

  /** Stops accepting, ends every session (their streams end, their children are closed), stops. */
  @Override
  public void close() throws Exception {
    try {
      // an acceptor held back by the connection cap must see the close, or stopping waits for it
      limit.stop();
      connector.setAccepting(true);
      connector.close();
      sessions.shutdown();
    } finally {
      try {
        server.stop();
      } catch (java.util.concurrent.TimeoutException e) {
        // The graceful part ran out of its 2 s; Jetty has stopped everything all the same,
        // closing the connections still open (a client at the connection cap, say).
        log.info("stopped; connections still busy after " + server.getStopTimeout() + " ms were closed");
      }
    }
  }

  public String describe() {
    String auth = gate.enabled() ? "static bearer token" : "no auth";
    String idle = config.sessionIdleTtl().isZero() ? "no idle eviction" : "idle-ttl " + config.sessionIdleTtl().toSeconds() + " s";
    String sse = config.ssePath() == null ? "no HTTP+SSE" : "HTTP+SSE at " + config.ssePath() + " and " + config.messagesPath();
    return "serving " + config.child().describe() + " at " + url() + " (" + auth + "; max " + config.maxSessions()
        + " sessions, " + idle + "; " + sse + "; max " + config.connections().max() + " connections)";
  }

  private final class Routes extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      long started = System.nanoTime();
      Request.addCompletionListener(request, failure -> accessLog(request, response, started, failure));
      String refusal = guard.refusal(request.getHeaders().get(HttpHeader.HOST), request.getHeaders().get(HttpHeader.ORIGIN));
      if (refusal != null) {
        log.warn("refused " + request.getMethod() + " " + request.getHttpURI().getPath() + ": " + refusal);
        // Its body is never read, so the connection cannot carry another request: say so, or a
        // client that reuses it races the close and sees its next request cut off.
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        Replies.error(response, callback, 403, null, ErrorCodes.UPSTREAM_ERROR, "forbidden: " + refusal);
        return true;
      }
      String path = request.getHttpURI().getPath();
      String method = request.getMethod();
      if (path.equals(config.path())) {
        mcp(method, request, response, callback);
      } else if (path.equals(CallbackEndpoint.PATH) || path.startsWith(CallbackEndpoint.PATH + "/")) {
        callbackApi(path, method, request, response, callback);
      } else if (path.startsWith(CallbackEndpoint.CREDENTIALS_PATH + "/")) {
        credentialApi(path.substring(CallbackEndpoint.CREDENTIALS_PATH.length() + 1), method, request, response, callback);
      } else if (config.ssePath() != null && (path.equals(config.ssePath()) || path.equals(config.messagesPath()))) {
        legacy(path.equals(config.ssePath()), method, request, response, callback);
      } else if (path.equals("/healthz") && isRead(method)) {
        Replies.text(response, callback, 200, "application/json", "{\"status\":\"ok\"}");
      } else if (path.equals("/readyz") && isRead(method)) {
        String problem = readiness.problem();
        Replies.text(response, callback, problem == null ? 200 : 503, "application/json",
            problem == null ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\",\"reason\":" + dev.mcpstdio.jsonrpc.Json.quote(problem) + "}");
      } else if (gate.enabled() && isMetadataPath(path) && isRead(method)) {
        response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
        Replies.text(response, callback, 200, "application/json", gate.metadataDocument(Origins.effective(request, config)));
      } else {
        Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "not found");
      }
      return true;
    }

    /** The legacy HTTP+SSE endpoints: GET on the stream path, POST on the messages path. */
    private void legacy(boolean streamPath, String method, Request request, Response response, Callback callback)
        throws Exception {
      if (!authenticated(request, response, callback)) {
        return;
      }
      if (streamPath && method.equals("GET")) {
        legacy.stream(request, response, callback);
      } else if (!streamPath && method.equals("POST")) {
        legacy.post(request, response, callback);
      } else {
        response.getHeaders().put(HttpHeader.ALLOW, streamPath ? "GET" : "POST");
        Replies.error(response, callback, 405, null, ErrorCodes.UPSTREAM_ERROR, "method not allowed");
      }
    }

    /** The callbacks events API: GET /callbacks, POST /callbacks/<id>/reply. */
    private void callbackApi(String path, String method, Request request, Response response, Callback callback)
        throws Exception {
      if (!authenticated(request, response, callback)) {
        return;
      }
      String rest = path.substring(CallbackEndpoint.PATH.length());
      if (rest.isEmpty() && method.equals("GET")) {
        callbacks.watch(request, response, callback);
      } else if (method.equals("POST") && rest.matches("/[\\x21-\\x7e&&[^/]]{1,128}/reply")) {
        callbacks.reply(rest.substring(1, rest.length() - "/reply".length()), request, response, callback);
      } else {
        Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "not found");
      }
    }

    /** The credential handoff: PUT /credentials/<slug>. */
    private void credentialApi(String slug, String method, Request request, Response response, Callback callback)
        throws Exception {
      if (!authenticated(request, response, callback)) {
        return;
      }
      if (!method.equals("PUT")) {
        response.getHeaders().put(HttpHeader.ALLOW, "PUT");
        Replies.error(response, callback, 405, null, ErrorCodes.UPSTREAM_ERROR, "method not allowed");
      } else {
        callbacks.credential(slug, request, response, callback);
      }
    }

    /** The bearer check for MCP traffic; answers 401 itself and returns false when it fails. */
    private boolean authenticated(Request request, Response response, Callback callback) {
      BearerGate.Verdict verdict = gate.check(request.getHeaders().get(HttpHeader.AUTHORIZATION));
      if (verdict == BearerGate.Verdict.ALLOWED) {
        return true;
      }
      response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, gate.challenge(verdict, Origins.effective(request, config)));
      Replies.error(response, callback, 401, null, ErrorCodes.UPSTREAM_ERROR,
          verdict == BearerGate.Verdict.MISSING ? "authentication required" : "invalid access token");
      return false;
    }

    private void mcp(String method, Request request, Response response, Callback callback) throws Exception {
      if (!authenticated(request, response, callback)) {
        return;
      }
      switch (method) {
        case "POST" -> endpoint.post(request, response, callback);
        case "GET" -> endpoint.get(request, response, callback);
        case "DELETE" -> endpoint.delete(request, response, callback);
        default -> {
          response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, DELETE");
          Replies.error(response, callback, 405, null, ErrorCodes.UPSTREAM_ERROR, "method not allowed");
        }
      }
    }

    private boolean isMetadataPath(String path) {
      return path.equals(METADATA_PATH) || path.startsWith(METADATA_PATH + "/");
    }

    private boolean isRead(String method) {
      return method.equals("GET") || method.equals("HEAD");
    }
  }

  private void accessLog(Request request, Response response, long started, Throwable failure) {
    String query = request.getHttpURI().getQuery();
    String target = request.getHttpURI().getPath() + (query == null ? "" : "?<redacted>");
    String session = request.getHeaders().get(McpEndpoint.SESSION_HEADER);
    if (session == null) {
      session = response.getHeaders().get(McpEndpoint.SESSION_HEADER);
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    log.info("http: " + Request.getRemoteAddr(request) + " \"" + request.getMethod() + " " + target + "\" "
        + response.getStatus() + " " + ms + " ms"
        + (session == null ? "" : " session " + Session.shortId(session.replaceAll("[^0-9A-Za-z]", "")))
        + (failure == null ? "" : " (" + failure.getClass().getSimpleName() + ")"));
  }
}
