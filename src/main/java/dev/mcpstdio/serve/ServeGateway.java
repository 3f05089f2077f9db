package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.era2025.CallbackEndpoint;
import dev.mcpstdio.serve.era2025.LegacySseEndpoint;
import dev.mcpstdio.serve.era2025.McpEndpoint;
import dev.mcpstdio.serve.era2025.Sessions;
import dev.mcpstdio.serve.era2026.ChildPool;
import dev.mcpstdio.serve.era2026.Era2026Endpoint;
import dev.mcpstdio.serve.auth.AccessTokens;
import dev.mcpstdio.serve.auth.AuthorizationEndpoints;
import dev.mcpstdio.serve.auth.ExternalTokens;
import dev.mcpstdio.serve.auth.GrantSettings;
import dev.mcpstdio.serve.auth.GrantStore;
import dev.mcpstdio.serve.auth.Grants;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.http.RequestBodies;
import dev.mcpstdio.stdio.Log;
import java.net.URI;
import java.util.concurrent.Executors;
import dev.mcpstdio.process.ChildCensus;
import dev.mcpstdio.serve.metrics.MetricsEndpoint;
import dev.mcpstdio.serve.metrics.RequestMetrics;
import dev.mcpstdio.serve.metrics.ServeMetrics;
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
 * {@code mcp-stdio serve}: Jetty wiring and the handler tree ({@link #tree}; the route table is {@link Routes}).
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
  private static final String AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
  /** The metrics, in the Prometheus text format; protected like the MCP endpoint. */
  static final String METRICS_PATH = "/metrics";

  /** Jetty's system property for its padding of contended fields (see the static block). */
  static final String REFERENCES_PER_CACHE_LINE = "org.eclipse.jetty.util.referencesPerCacheLine";

  static {
    // Unless told, Jetty's MemoryUtils asks the HotSpotDiagnostic MBean whether object references
    // are compressed, which starts the whole JMX platform server: about 150 ms of serve's start-up
    // (measured on 12.1.14). The answer follows from the heap's bound (compressed below 32 GiB,
    // the JVM's default), and a wrong one (-XX:-UseCompressedOops) costs padding, not correctness.
    if (System.getProperty(REFERENCES_PER_CACHE_LINE) == null) {
      int lineBytes = Integer.getInteger("org.eclipse.jetty.util.cacheLineBytes", 64);
      int referenceBytes = Runtime.getRuntime().maxMemory() < (32L << 30) ? 4 : 8;
      System.setProperty(REFERENCES_PER_CACHE_LINE, String.valueOf(lineBytes / referenceBytes));
    }
  }

  /** A connection with nothing to read or write this long is closed (event streams excepted). */
  static final long IDLE_TIMEOUT_MILLIS = 30_000;

  private final ServeConfig config;
  private final Log log;
  private final Server server;
  private final GatewayConnector connector;
  private final Sessions sessions;
  private final Era2026Endpoint era2026;

  /** How long a pooled child may take to answer the gateway's initialize. */
  static final java.time.Duration HANDSHAKE_TIMEOUT = java.time.Duration.ofSeconds(60);
  private final HostGuard guard;
  private final BearerGate gate;
  private final AuthorizationEndpoints oauth; // null without --enable-oauth
  private final Grants grants; // null without --enable-oauth
  private GrantStore grantStore; // opened by start() with --token-store
  /** Who vouches for access tokens: the embedded server, an external provider ({@code --oauth-issuer}), or null. */
  private final AccessTokens tokens;
  private final ExternalTokens provider; // null without --oauth-issuer
  private final McpEndpoint endpoint;
  private final McpPost post;
  private final LegacySseEndpoint legacy;
  private final CallbackEndpoint callbacks;
  private final Readiness readiness;
  private final RequestBodies bodies;
  private final HeadDeadline heads;
  private final NetworkConnectionLimit limit;
  /** Tokens that could not be checked (the provider unreachable): one log line, then counts. */
  private final dev.mcpstdio.serve.http.RepeatedFailures uncheckedTokens;
  private final ChildCensus census = new ChildCensus();
  private final ServeMetrics metrics;

  public ServeGateway(ServeConfig config, Log log) {
    this.config = config;
    this.log = log;
    this.sessions = new Sessions(config, log, census);
    this.guard = new HostGuard(config.host(), config.publicUrl(), config.allowedOrigins());
    this.gate = new BearerGate(config.authToken(), config.publicUrl(), config.path());
    this.grants = config.oauth().enabled() ? new Grants(GrantSettings.DEFAULTS.withAccessTokenTtl(config.oauth().accessTokenTtl()),
        config.oauth().allowedRedirectUris(), System::currentTimeMillis) : null;
    this.oauth = config.oauth().enabled() ? new AuthorizationEndpoints(grants,
        config.connections().bodyTimeout(), request -> Origins.effective(request, config) + config.pathPrefix(),
        new SignedInUser(config.oauth())::of, config.path(), log.tagged("oauth"), config.oauth().login(), providerHttp()) : null;
    this.provider = config.identityProvider() == null ? null
        : new ExternalTokens(config.identityProvider(), providerHttp(), System::currentTimeMillis, log.tagged("oauth"));
    this.tokens = oauth != null ? oauth : provider;
    this.uncheckedTokens = new dev.mcpstdio.serve.http.RepeatedFailures(log::warn, log, () -> System.nanoTime() / 1_000_000);
    this.bodies = new RequestBodies(config.maxMessageSize(), config.connections().bodyTimeout());
    this.era2026 = new Era2026Endpoint(new ChildPool.Settings(config.child(), config.maxMessageSize(), config.ladder(),
        config.launch().stderrLimit(), config.era2026().perPrincipal(), config.era2026().total(), config.era2026().idleTtl(),
        HANDSHAKE_TIMEOUT, config.owners().userEnv(), census), config.backendTimeout(), config.keepAlive(), config.era2026().cacheTtlMs(), log);
    this.endpoint = new McpEndpoint(config, sessions);
    this.metrics = new ServeMetrics(dev.mcpstdio.Version.get(), new ServeMetrics.State(sessions::open,
        () -> sessions.opened(false), () -> sessions.opened(true), census::alive, census::started, this::connections));
    this.post = new McpPost(bodies, endpoint, era2026, config.era2026().modernOnly(), metrics);
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
    this.heads = new HeadDeadline(config.connections().headerTimeout(), log, tree());
    connector.addEventListener(heads);
    server.setHandler(heads);
    server.setStopTimeout(2_000);
  }

  /** Requests to the identity provider: the OAuth client's HTTP (no redirects, no cookies, bounded bodies). */
  private static dev.mcpstdio.oauth.OAuthHttp providerHttp() {
    try {
      return new dev.mcpstdio.oauth.OAuthHttp(dev.mcpstdio.net.OutboundHttp.createWithoutCookies(new dev.mcpstdio.net.OutboundHttp.Settings(
          PROVIDER_TIMEOUT, java.util.List.of(), System.getenv())), PROVIDER_TIMEOUT);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** How long a request to the identity provider (metadata, keys, introspection) may take. */
  static final java.time.Duration PROVIDER_TIMEOUT = java.time.Duration.ofSeconds(10);

  /** Network connections open now. */
  int connections() {
    return limit.getNetworkConnectionCount();
  }

  RequestBodies bodies() {
    return bodies;
  }

  /** The gateway cannot start for a reason of its configuration's (not the port): the message says which. */
  public static final class StartRefused extends Exception {
    StartRefused(String message, Throwable cause) {
      super(message, cause);
    }
  }

  public void start() throws Exception {
    if (grants != null && config.oauth().tokenStore() != null) {
      try {
        grantStore = GrantStore.open(config.oauth().tokenStore(), grants, log.tagged("oauth"));
      } catch (java.io.IOException e) {
        throw new StartRefused(e.getMessage(), e);
      }
    }
    server.start();
    sessions.start(); // warm children, if any, once the port is bound: they never delay listening
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
      era2026.close();
    } finally {
      try {
        server.stop();
      } catch (java.util.concurrent.TimeoutException e) {
        // The graceful part ran out of its 2 s; Jetty has stopped everything all the same,
        // closing the connections still open (a client at the connection cap, say).
        log.info("stopped; connections still busy after " + server.getStopTimeout() + " ms were closed");
      } finally {
        if (grantStore != null) {
          grantStore.close(); // after the last request: a token issued while stopping is written too
        }
      }
    }
  }

  public String describe() {
    String tokensBy = oauth != null ? "embedded OAuth" : provider != null ? "tokens of " + provider.issuer() : null;
    String auth = gate.enabled() && tokensBy != null ? "static bearer token and " + tokensBy
        : gate.enabled() ? "static bearer token" : tokensBy != null ? tokensBy : "no auth";
    String idle = config.sessionIdleTtl().isZero() ? "no idle eviction" : "idle-ttl " + config.sessionIdleTtl().toSeconds() + " s";
    String sse = config.ssePath() == null ? "no HTTP+SSE" : "HTTP+SSE at " + config.ssePath() + " and " + config.messagesPath();
    String warm = config.warm() == 0 ? "" : ", " + config.warm() + " warm";
    String perOwner = config.owners().maxSessionsPerOwner() == 0 ? "" : ", max " + config.owners().maxSessionsPerOwner() + "/owner";
    return "serving " + config.child().describe() + " at " + url() + " (" + auth + "; max " + config.maxSessions()
        + " sessions" + perOwner + warm + ", " + idle + "; " + sse + "; max " + config.connections().max() + " connections)";
  }

  /**
   * The handler tree, outermost first: the head deadline ({@link HeadDeadline}), the access log,
   * the Host/Origin guard (every request), then the route table; each protected endpoint sits
   * inside an authentication gate of its own. Health checks and the protected-resource document
   * need no token.
   */
  private Handler tree() {
    Routes routes = new Routes();
    routes.exact(config.path(), protect(MethodHandler.on("GET", endpoint::get).on("POST", post::post)
        .on("DELETE", endpoint::delete).build()));
    routes.subtree(CallbackEndpoint.PATH, protect(new CallbackApi()));
    routes.below(CallbackEndpoint.CREDENTIALS_PATH, protect(MethodHandler.on("PUT", (request, response, callback) ->
        callbacks.credential(request.getHttpURI().getPath().substring(CallbackEndpoint.CREDENTIALS_PATH.length() + 1),
            request, response, callback)).build()));
    if (config.ssePath() != null) {
      routes.exact(config.ssePath(), protect(MethodHandler.on("GET", legacy::stream).build()));
      routes.exact(config.messagesPath(), protect(MethodHandler.on("POST", legacy::post).build()));
    }
    MetricsEndpoint scrapes = new MetricsEndpoint(metrics);
    routes.exact(METRICS_PATH, protect(MethodHandler.on("GET", scrapes::scrape).on("HEAD", scrapes::scrape).build()));
    routes.exact("/healthz", MethodHandler.on("GET", ServeGateway::healthy).on("HEAD", ServeGateway::healthy).elseNotFound());
    routes.exact("/readyz", MethodHandler.on("GET", this::ready).on("HEAD", this::ready).elseNotFound());
    if (gate.enabled() || tokens != null) {
      routes.subtree(METADATA_PATH, MethodHandler.on("GET", this::metadata).on("HEAD", this::metadata).elseNotFound());
    }
    if (oauth != null) {
      routes.subtree(AS_METADATA_PATH, MethodHandler.on("GET", oauth::metadata).on("HEAD", oauth::metadata).elseNotFound());
      routes.exact(AuthorizationEndpoints.AUTHORIZE, MethodHandler.on("GET", oauth::authorize).build());
      routes.exact(AuthorizationEndpoints.TOKEN, MethodHandler.on("POST", oauth::token).build());
      routes.exact(AuthorizationEndpoints.REGISTER, MethodHandler.on("POST", oauth::register).build());
      routes.exact(AuthorizationEndpoints.REVOKE, MethodHandler.on("POST", oauth::revoke).build());
      if (config.oauth().login() != null) {
        routes.exact(AuthorizationEndpoints.OIDC_CALLBACK, MethodHandler.on("GET", oauth::oidcCallback).build());
      }
    }
    java.util.Map<String, String> oauthPaths = oauth == null ? java.util.Map.of() : java.util.Map.of(
        AuthorizationEndpoints.AUTHORIZE, "authorize", AuthorizationEndpoints.TOKEN, "token",
        AuthorizationEndpoints.REGISTER, "register", AuthorizationEndpoints.REVOKE, "revoke",
        AuthorizationEndpoints.OIDC_CALLBACK, "oidc_callback");
    return new AccessLog(log, new RequestMetrics(metrics, oauthPaths, new HostOriginGuard(guard, log, routes)));
  }

  private Handler protect(Handler endpointHandler) {
    return new AuthGate(gate, tokens, this::resourceOf, config, uncheckedTokens, metrics, log, endpointHandler);
  }

  /**
   * The resource (RFC 8707) a request's access token must be for: for the embedded server, the
   * endpoint as this request reached it (its tokens are bound to the URL they were issued at); for
   * an external provider, the {@code --oauth-audience} (in its settings) or this endpoint's fixed
   * URL, the {@code --public-url}'s or the bound address's, never one built from a request's
   * {@code Host}, which a client chooses.
   */
  private String resourceOf(Request request) {
    if (provider == null) {
      return Origins.effective(request, config) + config.pathPrefix() + config.path();
    }
    return config.publicUrl() != null ? HostGuard.origin(config.publicUrl()) + config.pathPrefix() + config.path() : url().toString();
  }

  private static void healthy(Request request, Response response, Callback callback) {
    Replies.text(response, callback, 200, "application/json", "{\"status\":\"ok\"}");
  }

  private void ready(Request request, Response response, Callback callback) {
    String problem = readiness.problem();
    Replies.text(response, callback, problem == null ? 200 : 503, "application/json",
        problem == null ? "{\"status\":\"ready\"}" : "{\"status\":\"not ready\",\"reason\":" + dev.mcpstdio.jsonrpc.Json.quote(problem) + "}");
  }

  private void metadata(Request request, Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    if (tokens != null) { // the static bearer's document is the frozen 2025-era wire (golden tests)
      AuthorizationEndpoints.discoveryHeaders(response);
    }
    String authorizationServer = oauth != null ? oauth.issuer(request) : provider != null ? provider.issuer() : null;
    Replies.text(response, callback, 200, "application/json", gate.metadataDocument(Origins.effective(request, config),
        authorizationServer, tokens == null ? java.util.List.of() : tokens.requiredScopes()));
  }

  /** The callbacks events API: {@code GET /callbacks}, {@code POST /callbacks/<id>/reply}; anything else there is 404. */
  private final class CallbackApi extends Handler.Abstract {
    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
      String rest = request.getHttpURI().getPath().substring(CallbackEndpoint.PATH.length());
      String method = request.getMethod();
      if (rest.isEmpty() && method.equals("GET")) {
        callbacks.watch(request, response, callback);
      } else if (method.equals("POST") && rest.matches("/[\\x21-\\x7e&&[^/]]{1,128}/reply")) {
        callbacks.reply(rest.substring(1, rest.length() - "/reply".length()), request, response, callback);
      } else {
        Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "not found");
      }
      return true;
    }
  }
}
