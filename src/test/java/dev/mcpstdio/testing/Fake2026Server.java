package dev.mcpstdio.testing;

import dev.mcpstdio.testing.Fake2026Ladder.Check;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Predicate;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A scriptable MCP 2026-07-28 server on a loopback port (a Jetty 12 core handler), for component
 * tests of the relay's 2026 era.
 *
 * <p>Out of the box it answers like the TypeScript SDK v2 HTTP server in its 2026-only mode: POST
 * only (GET and DELETE get 405), every request through {@link Fake2026Ladder}'s validation (each
 * rung can be {@link #disable switched off}), notifications 202, removed and unknown methods 404
 * -32601, every error echoing the request id, {@code Mcp-Session-Id} and {@code Last-Event-ID}
 * never read (only recorded). It serves {@code server/discover} from its configuration, a paged
 * {@code tools/list} with cache hints ({@link Fake2026Catalog}), resources, prompts, and
 * {@code subscriptions/listen} streams the test pushes into ({@link Fake2026Listen}). Every result
 * carries {@code resultType} and {@code _meta.serverInfo}.
 *
 * <p>Scripting, in order of precedence for each POST: a one-shot {@link #interceptNext}, a
 * standing {@link #intercept} (returning null passes), the ladder, then a handler by method
 * ({@link #on}) or, for {@code tools/call}, by tool ({@link #tool}); MRTR tools come from {@link
 * #mrtr()}. Replies are {@link Fake2026Reply}s: JSON, an event stream with pauses, a hang, a cut.
 *
 * <p>Every exchange is recorded ({@link #exchanges()}); {@link Fake2026Exchange#awaitClientClosed}
 * waits for the client to close a held response (cancellation). Waits are bounded ({@link Await}).
 * Bounds: bodies are read whole (test traffic only), at most 256 exchanges are served at once
 * (the thread pool), and an idle connection is closed after {@value #IDLE_TIMEOUT_MS} ms.
 */
public final class Fake2026Server implements AutoCloseable {

  /** Connector idle timeout: longer than any test waits on a quiet listen stream. */
  public static final long IDLE_TIMEOUT_MS = 120_000;

  /** Freshness hints of a cacheable result. */
  public record CacheHints(long ttlMs, String cacheScope) {}

  private final Server server;
  private final ServerConnector connector;
  private final CountDownLatch stopping = new CountDownLatch(1);
  private final Fake2026Wire wire = new Fake2026Wire(stopping);
  private final List<Fake2026Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final AtomicInteger seq = new AtomicInteger();
  private final List<Throwable> failures = new CopyOnWriteArrayList<>();
  private final Map<String, Function<Fake2026Exchange, Fake2026Reply>> handlers = new ConcurrentHashMap<>();
  private final ConcurrentLinkedQueue<Function<Fake2026Exchange, Fake2026Reply>> oneShots = new ConcurrentLinkedQueue<>();
  private final List<Fake2026Listen> listens = new CopyOnWriteArrayList<>();
  private final Fake2026Catalog catalog = new Fake2026Catalog(this);

  private volatile Set<Check> checks = EnumSet.allOf(Check.class);
  private volatile Function<Fake2026Exchange, Fake2026Reply> interceptor;
  private volatile List<String> supportedVersions = List.of(Fake2026Json.VERSION);
  private volatile String capabilities =
      "{\"tools\":{\"listChanged\":true},\"prompts\":{\"listChanged\":true},\"resources\":{\"subscribe\":true,\"listChanged\":true}}";
  private volatile String instructions = "A scriptable 2026-07-28 test server.";
  private volatile String serverInfo = "{\"name\":\"fake-2026\",\"version\":\"1.0.0\"}";
  private volatile CacheHints discoverHints = new CacheHints(60_000, "public");
  private volatile boolean serverInfoOnResults = true;
  private volatile Function<JsonNode, JsonNode> listenHonour = Fake2026Server::honourAsked;

  public Fake2026Server() {
    QueuedThreadPool pool = new QueuedThreadPool(256, 4);
    pool.setName("fake-2026");
    server = new Server(pool);
    connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    connector.setIdleTimeout(IDLE_TIMEOUT_MS);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        serve(request, response, callback);
        return true;
      }
    });
    handlers.put("server/discover", this::discover);
    handlers.put("subscriptions/listen", this::listen);
    catalog.install(handlers);
    try {
      server.start();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  public URI url() {
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/mcp");
  }

  public int port() {
    return connector.getLocalPort();
  }

  // ---- configuration -------------------------------------------------------------------------

  /** Versions listed by discover and accepted by the ladder (default {@code ["2026-07-28"]}). */
  public Fake2026Server supportedVersions(String... versions) {
    this.supportedVersions = List.of(versions);
    return this;
  }

  /** ServerCapabilities JSON of the discover result. */
  public Fake2026Server capabilities(String json) {
    this.capabilities = Fake2026Json.object(json).toString();
    return this;
  }

  /** The discover result's instructions; null omits them. */
  public Fake2026Server instructions(String text) {
    this.instructions = text;
    return this;
  }

  /** The Implementation JSON put in {@code _meta.serverInfo} of every result. */
  public Fake2026Server serverInfo(String json) {
    this.serverInfo = Fake2026Json.object(json).toString();
    return this;
  }

  /** Leaves {@code _meta.serverInfo} off results (it is a SHOULD). */
  public Fake2026Server withoutServerInfoOnResults() {
    this.serverInfoOnResults = false;
    return this;
  }

  /** ttlMs and cacheScope of the discover result (default 60000, public). */
  public Fake2026Server discoverCache(long ttlMs, String cacheScope) {
    this.discoverHints = new CacheHints(ttlMs, cacheScope);
    return this;
  }

  /** Switches ladder rungs off. */
  public Fake2026Server disable(Check... off) {
    EnumSet<Check> next = EnumSet.noneOf(Check.class);
    next.addAll(checks);
    next.removeAll(List.of(off));
    this.checks = next;
    return this;
  }

  /** Switches ladder rungs (back) on. */
  public Fake2026Server enable(Check... on) {
    EnumSet<Check> next = EnumSet.noneOf(Check.class);
    next.addAll(checks);
    next.addAll(List.of(on));
    this.checks = next;
    return this;
  }

  /** A standing script run before the ladder on every POST; it returns null to let the fake go on. */
  public Fake2026Server intercept(Function<Fake2026Exchange, Fake2026Reply> script) {
    this.interceptor = script;
    return this;
  }

  /** Answers the next JSON-RPC request (not a notification) with {@code script}, before the ladder; queued in order. */
  public Fake2026Server interceptNext(Function<Fake2026Exchange, Fake2026Reply> script) {
    oneShots.add(script);
    return this;
  }

  /**
   * Answers the next request 400 -32022 with {@code data.supported} = {@code supported} and {@code
   * requested} = the request's {@code _meta} version (the conformance {@code request-metadata}
   * scenario's first answer).
   */
  public Fake2026Server rejectNextVersion(String... supported) {
    return interceptNext(e -> {
      JsonNode v = e.meta(Fake2026Json.PROTOCOL_VERSION);
      return Fake2026Ladder.unsupported(e.idJson(), List.of(supported), v.isString() ? v.stringValue() : null).reply();
    });
  }

  /** Handles a JSON-RPC method (request or notification), replacing the default; null restores 404/202. */
  public Fake2026Server on(String method, Function<Fake2026Exchange, Fake2026Reply> handler) {
    if (handler == null) {
      handlers.remove(method);
    } else {
      handlers.put(method, handler);
    }
    return this;
  }

  /** Adds or replaces a tool: {@code toolJson} is its whole Tool object (name, inputSchema...). */
  public Fake2026Server tool(String toolJson, Function<Fake2026Exchange, Fake2026Reply> handler) {
    catalog.tool(Fake2026Json.object(toolJson), handler);
    return this;
  }

  /** Adds or replaces a tool by name and inputSchema. */
  public Fake2026Server tool(String name, String inputSchemaJson, Function<Fake2026Exchange, Fake2026Reply> handler) {
    ObjectNode tool = Fake2026Json.object();
    tool.put("name", name);
    tool.set("inputSchema", Fake2026Json.object(inputSchemaJson));
    catalog.tool(tool, handler);
    return this;
  }

  public Fake2026Server removeTool(String name) {
    catalog.removeTool(name);
    return this;
  }

  /** Tools per {@code tools/list} page (default {@value Fake2026Catalog#DEFAULT_PAGE_SIZE}). */
  public Fake2026Server toolsPageSize(int size) {
    catalog.pageSize(size);
    return this;
  }

  /** Cache hints of every page of every list, and of resources/read. */
  public Fake2026Server listCache(CacheHints hints) {
    catalog.hints(page -> hints);
    return this;
  }

  /** Cache hints per page index (0-based), for the merge rules (smallest ttl, narrowest scope). */
  public Fake2026Server listCache(java.util.function.IntFunction<CacheHints> perPage) {
    catalog.hints(perPage);
    return this;
  }

  /** A new MRTR script; bind it with {@link #tool} or {@link #on}. */
  public Fake2026Mrtr mrtr() {
    return new Fake2026Mrtr(this);
  }

  /**
   * What a listen acknowledges, from the filter asked (default: every known type asked for, so a
   * test of the ack's subset passes e.g. {@code f -> filter without toolsListChanged}).
   */
  public Fake2026Server listenHonour(Function<JsonNode, JsonNode> honour) {
    this.listenHonour = honour;
    return this;
  }

  // ---- replies a script builds ---------------------------------------------------------------

  /**
   * The JSON-RPC response to {@code call} carrying {@code resultJson} with {@code resultType:
   * "complete"} (unless it names one) and {@code _meta.serverInfo} added.
   */
  public String completeJson(Fake2026Exchange call, String resultJson) {
    ObjectNode result = Fake2026Json.object(resultJson);
    if (!result.has("resultType")) {
      result.put("resultType", "complete");
    }
    if (serverInfoOnResults) {
      ObjectNode meta = result.has("_meta") ? (ObjectNode) result.get("_meta") : result.putObject("_meta");
      if (!meta.has(Fake2026Json.SERVER_INFO)) {
        meta.set(Fake2026Json.SERVER_INFO, Fake2026Json.parse(serverInfo));
      }
    }
    return Fake2026Json.result(call.idJson(), result.toString());
  }

  /** {@link #completeJson} as a 200 JSON reply. */
  public Fake2026Reply complete(Fake2026Exchange call, String resultJson) {
    return Fake2026Reply.json(completeJson(call, resultJson));
  }

  /** A JSON-RPC error for {@code call} (id echoed) with HTTP 200; {@code dataJson} may be null. */
  public Fake2026Reply error(Fake2026Exchange call, int code, String message, String dataJson) {
    return Fake2026Reply.json(Fake2026Json.error(call.idJson(), code, message, dataJson));
  }

  /** A JSON-RPC error for {@code call} with any HTTP status. */
  public Fake2026Reply error(int status, Fake2026Exchange call, int code, String message, String dataJson) {
    return Fake2026Reply.json(status, Fake2026Json.error(call.idJson(), code, message, dataJson));
  }

  /** 400 -32021 for {@code call}: {@code data.requiredCapabilities} is the ClientCapabilities object given. */
  public Fake2026Reply missingCapability(Fake2026Exchange call, String requiredCapabilitiesJson) {
    return error(400, call, Fake2026Json.MISSING_CLIENT_CAPABILITY, "Missing required client capability",
        "{\"requiredCapabilities\":" + Fake2026Json.object(requiredCapabilitiesJson) + "}");
  }

  String serverInfoJson() {
    return serverInfo;
  }

  // ---- recording -----------------------------------------------------------------------------

  public List<Fake2026Exchange> exchanges() {
    return List.copyOf(exchanges);
  }

  /** Recorded POSTs whose JSON-RPC method is {@code rpc} (any method when null). */
  public List<Fake2026Exchange> posts(String rpc) {
    return exchanges.stream().filter(e -> e.method().equals("POST") && (rpc == null || rpc.equals(e.rpcMethod())))
        .toList();
  }

  /** Waits (bounded) for the {@code n}th POST of {@code rpc} and returns all of them. */
  public List<Fake2026Exchange> awaitPosts(String rpc, int n) {
    Await.until(n + " POST(s) of " + rpc + "; seen:\n" + describe(), () -> posts(rpc).size() >= n);
    return posts(rpc);
  }

  /** Waits (bounded) for the first POST of {@code rpc}. */
  public Fake2026Exchange awaitPost(String rpc) {
    return awaitPosts(rpc, 1).get(0);
  }

  /** Waits (bounded) for an exchange matching {@code test}. */
  public Fake2026Exchange awaitExchange(String what, Predicate<Fake2026Exchange> test) {
    return Await.value(what + "; seen:\n" + describe(), Await.DEFAULT,
        () -> exchanges.stream().filter(test).findFirst().orElse(null));
  }

  /** True if any exchange carried {@code Mcp-Session-Id}. */
  public boolean anySessionIdSent() {
    return exchanges.stream().anyMatch(Fake2026Exchange::sentSessionId);
  }

  /** True if any exchange carried {@code Last-Event-ID}. */
  public boolean anyLastEventIdSent() {
    return exchanges.stream().anyMatch(Fake2026Exchange::sentLastEventId);
  }

  /** Exceptions thrown by scripts (answered 500 -32603); a test should assert this is empty. */
  public List<Throwable> failures() {
    return List.copyOf(failures);
  }

  /** The exchanges so far, one line each, for assertion messages. */
  public String describe() {
    List<String> lines = new ArrayList<>();
    for (Fake2026Exchange e : exchanges) {
      lines.add(e.toString());
    }
    return String.join("\n", lines);
  }

  // ---- listens -------------------------------------------------------------------------------

  /** Every listen accepted so far, open or not, in order. */
  public List<Fake2026Listen> listens() {
    return List.copyOf(listens);
  }

  public List<Fake2026Listen> openListens() {
    return listens.stream().filter(Fake2026Listen::isOpen).toList();
  }

  /** Waits (bounded) until {@code n} listens are open at once, and returns the open ones. */
  public List<Fake2026Listen> awaitOpenListens(int n) {
    Await.until(n + " open listen(s); have " + listens, () -> openListens().size() == n);
    return openListens();
  }

  /** Waits (bounded) until {@code n} listens were accepted in all, and returns them all. */
  public List<Fake2026Listen> awaitListens(int n) {
    Await.until(n + " listen(s) in all; have " + listens, () -> listens.size() >= n);
    return listens();
  }

  /** Pushes {@code tools/list_changed} to every open listen that acknowledged it; returns how many. */
  public int pushToolsListChanged() {
    return (int) openListens().stream().filter(Fake2026Listen::toolsListChanged).count();
  }

  public int pushPromptsListChanged() {
    return (int) openListens().stream().filter(Fake2026Listen::promptsListChanged).count();
  }

  public int pushResourcesListChanged() {
    return (int) openListens().stream().filter(Fake2026Listen::resourcesListChanged).count();
  }

  /** Pushes {@code resources/updated} to every open listen subscribed to {@code uri}; returns how many. */
  public int pushResourceUpdated(String uri) {
    return (int) openListens().stream().filter(l -> l.resourceUpdated(uri)).count();
  }

  // ---- serving -------------------------------------------------------------------------------

  private void serve(Request request, Response response, Callback callback) throws Exception {
    byte[] body = Request.asInputStream(request).readAllBytes();
    Map<String, String> headers = new LinkedHashMap<>();
    for (HttpField f : request.getHeaders()) {
      headers.merge(f.getLowerCaseName(), f.getValue(), (a, b) -> a + ", " + b);
    }
    Fake2026Exchange exchange = new Fake2026Exchange(seq.incrementAndGet(), request.getMethod(),
        request.getHttpURI().getPath(), Map.copyOf(headers), body, Fake2026Json.tryParse(body));
    exchanges.add(exchange);
    Fake2026Reply reply;
    try {
      reply = answer(exchange);
    } catch (RuntimeException | Error e) {
      failures.add(e);
      reply = Fake2026Reply.json(500, Fake2026Json.error(exchange.idJson(), Fake2026Json.INTERNAL_ERROR,
          "fake script failed: " + e, null));
    }
    wire.write(request, response, callback, exchange, reply);
  }

  private Fake2026Reply answer(Fake2026Exchange e) {
    if (!e.method().equals("POST")) {
      return Fake2026Reply.json(405, Fake2026Json.error(null, -32000, "Method not allowed.", null), "Allow", "POST");
    }
    if (e.isRequest()) {
      Function<Fake2026Exchange, Fake2026Reply> once = oneShots.poll();
      if (once != null) {
        return once.apply(e);
      }
    }
    Function<Fake2026Exchange, Fake2026Reply> standing = interceptor;
    if (standing != null) {
      Fake2026Reply r = standing.apply(e);
      if (r != null) {
        return r;
      }
    }
    Fake2026Ladder.Rejection rejected = Fake2026Ladder.check(e, checks, supportedVersions, catalog::inputSchema);
    if (rejected != null) {
      return rejected.reply();
    }
    Function<Fake2026Exchange, Fake2026Reply> handler = handlers.get(e.rpcMethod());
    if (e.isNotification()) {
      return handler == null ? Fake2026Reply.status(202) : handler.apply(e);
    }
    if (handler == null) {
      return Fake2026Reply.json(404, Fake2026Json.error(e.idJson(), Fake2026Json.METHOD_NOT_FOUND,
          "Method not found: " + e.rpcMethod(), null));
    }
    return handler.apply(e);
  }

  private Fake2026Reply discover(Fake2026Exchange call) {
    ObjectNode result = Fake2026Json.object();
    var versions = result.putArray("supportedVersions");
    supportedVersions.forEach(versions::add);
    result.set("capabilities", Fake2026Json.parse(capabilities));
    if (instructions != null) {
      result.put("instructions", instructions);
    }
    CacheHints hints = discoverHints;
    result.put("ttlMs", hints.ttlMs());
    result.put("cacheScope", hints.cacheScope());
    return complete(call, result.toString());
  }

  private Fake2026Reply listen(Fake2026Exchange call) {
    JsonNode honoured = listenHonour.apply(call.params().path("notifications"));
    Fake2026Listen l = new Fake2026Listen(call, honoured, serverInfo);
    listens.add(l);
    return l.reply();
  }

  /**
   * An honour for {@link #listenHonour}: of what the client asked, only these filter members
   * (e.g. {@code honourOnly("toolsListChanged")} drops the resource subscriptions).
   */
  public static Function<JsonNode, JsonNode> honourOnly(String... members) {
    return asked -> {
      ObjectNode all = (ObjectNode) honourAsked(asked);
      all.retain(members);
      return all;
    };
  }

  /** The default honour: each known filter member the client asked for. */
  static JsonNode honourAsked(JsonNode asked) {
    ObjectNode out = Fake2026Json.object();
    for (String flag : List.of("toolsListChanged", "promptsListChanged", "resourcesListChanged")) {
      if (asked.path(flag).asBoolean(false)) {
        out.put(flag, true);
      }
    }
    if (asked.path("resourceSubscriptions").isArray() && !asked.get("resourceSubscriptions").isEmpty()) {
      out.set("resourceSubscriptions", asked.get("resourceSubscriptions").deepCopy());
    }
    return out;
  }

  /** Stops the server: every held stream and hang ends, connections close. */
  @Override
  public void close() {
    stopping.countDown();
    try {
      server.stop();
    } catch (Exception ignored) {
      // best effort: the test is over
    }
  }
}
