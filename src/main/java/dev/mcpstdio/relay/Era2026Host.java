package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The 2026 era as a 2025-era host sees it: what the 2026 era removed is answered here, never
 * sent. {@code initialize} is answered from {@code server/discover} (the host's own protocol
 * version echoed, so a 2025 host stays; the server's capabilities, identity and instructions);
 * {@code notifications/initialized} is swallowed and opens the listen stream ({@link
 * ListenStreams}); {@code ping} is answered {@code {}}; {@code logging/setLevel} is answered
 * {@code {}} and its level travels in every later request's {@code _meta}; {@code
 * resources/subscribe} and {@code unsubscribe} are answered {@code {}} and change what the
 * resource listen stream asks for; {@code notifications/cancelled} closes the cancelled
 * request's response stream (the only cancellation a 2026 server knows; nothing is POSTed), or
 * ends its round trip in the {@link MrtrBridge}; {@code notifications/roots/list_changed}
 * (removed) is swallowed. A batch (the 2026 era has none) is not sent: each request in it is
 * answered with an error that says so. The host's answers go to the bridge's questions (a 2026 server asks
 * nothing itself); any other is logged and dropped.
 *
 * <p>A host that speaks 2026 itself (a request of its is {@code server/discover}, or carries
 * {@code _meta} with a protocol version) is relayed as it is: nothing is answered here for it,
 * and its cancels still close streams.
 */
final class Era2026Host implements Interceptor {

  /** Methods of the 2025 era a 2026 server does not have, answered here. */
  static final Set<String> ANSWERED_HERE =
      Set.of("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe");

  private final Era2026Session session;
  private final Discovery discovery;
  private final ResponseCloser closer;
  private final MrtrBridge bridge;
  private final ListenStreams listens;
  private final Log log;

  /** Asks the server for {@code server/discover} again, with the host's capabilities. */
  @FunctionalInterface
  interface Discovery {
    /** @return whether it was answered */
    boolean rediscover() throws InterruptedException;
  }

  Era2026Host(Era2026Session session, Discovery discovery, ResponseCloser closer, MrtrBridge bridge,
      ListenStreams listens, Log log) {
    this.session = session;
    this.discovery = discovery;
    this.closer = closer;
    this.bridge = bridge;
    this.listens = listens;
    this.log = log;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    JsonRpcMessage message = call.message();
    if (call.internal()) {
      return chain.proceed(call);
    }
    // The host's era shows in its first requests: once it sent initialize it is a 2025-era host
    // (and a megabyte request is not searched for a _meta it will not have).
    if (message instanceof Request r && !session.hostInitialized() && !session.hostSpeaks2026() && speaks2026(r)) {
      session.hostSpeaks2026(true);
    }
    // instanceof, not a pattern switch: this runs for every 2026-era call (HotPathBootstrapsTest)
    if (message instanceof Notification n) {
      if ("notifications/cancelled".equals(n.method())) {
        return cancel(n);
      }
      if ("notifications/initialized".equals(n.method()) && !session.hostSpeaks2026()) {
        listens.hostInitialized();
      } else {
        log.debug(n.method() + " is not sent: a 2026-era server takes no notifications from the client");
      }
      return new Outcome.Accepted(202, Outcome.NO_HEADERS);
    }
    if (message instanceof Response r) {
      if (!bridge.answered(r)) {
        log.warn("an answer from the host (id " + r.id() + ") to a question no 2026-era server asked; dropped");
      }
      return new Outcome.Accepted(202, Outcome.NO_HEADERS);
    }
    if (message instanceof Request r && !session.hostSpeaks2026() && ANSWERED_HERE.contains(r.method())) {
      return answer(r, call);
    }
    if (message instanceof JsonRpcMessage.Batch b) {
      log.warn("a batch of " + b.members().size() + " messages from the host: the 2026 era has no batches; not sent");
      return Outcome.Failed.of(Outcome.Kind.INTERNAL,
          "JSON-RPC batches do not exist in MCP 2026-07-28 (the server's era); send the messages one by one");
    }
    return chain.proceed(call);
  }

  /** A host that sends {@code server/discover}, or {@code _meta} with a protocol version, speaks 2026. */
  static boolean speaks2026(Request r) {
    if ("server/discover".equals(r.method())) {
      return true;
    }
    byte[] bytes = r.bytes();
    JsonSpan meta = Json.field(bytes, r.params(), "_meta");
    return Json.string(bytes, Json.field(bytes, meta, MetaKeys.PROTOCOL_VERSION)) != null;
  }

  private Outcome cancel(Notification n) {
    JsonRpcId id = Json.id(n.bytes(), Json.field(n.bytes(), n.params(), "requestId"));
    // Relay.cancel named the id as it travels (an alias, a page)
    if (id != null && !bridge.cancelled(id) && !bridge.withdrawn(id)) {
      closer.close(id);
    }
    return new Outcome.Accepted(202, Outcome.NO_HEADERS);
  }

  private Outcome answer(Request r, Call call) throws InterruptedException {
    return switch (r.method()) {
      case "initialize" -> initialize(r);
      case "logging/setLevel" -> {
        JsonSpan level = Json.field(r.bytes(), r.params(), "level");
        if (Json.string(r.bytes(), level) == null) {
          yield Outcome.answeredLocally(r.id(), ErrorCodes.INVALID_PARAMS, "logging/setLevel needs params.level, a string");
        }
        session.logLevel(level.text(r.bytes()));
        yield empty(r);
      }
      case "resources/subscribe", "resources/unsubscribe" -> subscription(r, call);
      default -> empty(r); // ping
    };
  }

  /**
   * The host's {@code initialize}, answered from what {@code server/discover} said. When the
   * server's capabilities are unknown or empty and the host declared some, the server is asked
   * once more with the host's real capabilities (a server may advertise by what its client can).
   */
  private Outcome initialize(Request r) throws InterruptedException {
    boolean firstTime = !session.hostInitialized();
    session.hostInitialized(r);
    String caps = session.serverCapabilities();
    if (firstTime && (caps == null || caps.equals("{}")) && !session.hostCapabilities().equals("{}")) {
      if (!discovery.rediscover()) {
        log.warn("server/discover with the host's capabilities failed; answering initialize with what is known");
      }
      caps = session.serverCapabilities();
    }
    caps = advertised(caps);
    byte[] bytes = r.bytes();
    JsonSpan asked = Json.field(bytes, r.params(), "protocolVersion");
    String version = Json.string(bytes, asked) != null ? asked.text(bytes) : Json.quote(session.version());
    String serverInfo = session.serverInfo() != null ? session.serverInfo()
        : "{\"name\":\"mcp-stdio (upstream identity unknown)\",\"version\":" + Json.quote(dev.mcpstdio.Version.get()) + "}";
    String result = "{\"protocolVersion\":" + version
        + ",\"capabilities\":" + (caps == null ? "{}" : caps)
        + ",\"serverInfo\":" + serverInfo
        + (session.instructions() == null ? "" : ",\"instructions\":" + session.instructions())
        + "}";
    return answer(r.id(), result);
  }

  /**
   * The capabilities a 2025-era host is told of: the server's, with {@code listChanged: true} on
   * each of its tools, prompts and resources families and {@code subscribe: true} on its resources
   * family (the relay provides both through its listen streams; the server's acknowledgement
   * decides what is delivered), never a family the server does not have; null when unknown.
   */
  static String advertised(String capabilities) {
    if (capabilities == null) {
      return null;
    }
    byte[] bytes = capabilities.getBytes(StandardCharsets.UTF_8);
    Map<String, JsonSpan> families = Json.fields(bytes, new JsonSpan(0, bytes.length));
    if (families == null) {
      return capabilities;
    }
    Map<String, String> edited = new java.util.LinkedHashMap<>();
    for (String family : List.of("tools", "prompts", "resources")) {
      JsonSpan caps = families.get(family);
      String added = caps == null ? null : Era2026Wire.withMembers(bytes, caps, family.equals("resources")
          ? Map.of("listChanged", "true", "subscribe", "true") : Map.of("listChanged", "true"));
      if (added != null) {
        edited.put(family, added);
      }
    }
    return edited.isEmpty() ? capabilities : Era2026Wire.withMembers(bytes, new JsonSpan(0, bytes.length), edited);
  }

  /**
   * A subscription changes what the resource listen stream asks for; a subscribe is answered once
   * the stream asking for the new set is acknowledged (bounded), so that the host's subscription
   * holds, as in the 2025 era, from its answer on.
   */
  private Outcome subscription(Request r, Call call) throws InterruptedException {
    String uri = Json.string(r.bytes(), Json.field(r.bytes(), r.params(), "uri"));
    if (uri == null || uri.isEmpty()) {
      return Outcome.answeredLocally(r.id(), ErrorCodes.INVALID_PARAMS, r.method() + " needs params.uri, a string");
    }
    String caps = advertised(session.serverCapabilities());
    byte[] bytes = caps == null ? new byte[0] : caps.getBytes(StandardCharsets.UTF_8);
    JsonSpan subscribe = caps == null ? null
        : Json.field(bytes, Json.field(bytes, new JsonSpan(0, bytes.length), "resources"), "subscribe");
    if (subscribe == null || !subscribe.is(bytes, "true")) {
      return Outcome.answeredLocally(r.id(), ErrorCodes.METHOD_NOT_FOUND, "the server does not offer resource subscriptions");
    }
    if (r.method().equals("resources/unsubscribe")) {
      listens.unsubscribe(uri);
    } else if (!listens.subscribe(uri)) {
      log.warn("resources/subscribe refused: " + ListenStreams.MAX_SUBSCRIPTIONS + " subscriptions already");
      return Outcome.answeredLocally(r.id(), ErrorCodes.UPSTREAM_ERROR,
          "the relay keeps at most " + ListenStreams.MAX_SUBSCRIPTIONS + " resource subscriptions");
    } else {
      call.handover().complete(null); // nothing goes upstream for it: what the host sends next need not wait
      if (!listens.awaitSubscribed(ListenStreams.SUBSCRIBE_ACK_WAIT)) {
        log.debug("resources/subscribe " + uri + " answered before the server acknowledged the resource listen stream");
      }
    }
    return empty(r);
  }

  private static Outcome empty(Request r) {
    return answer(r.id(), "{}");
  }

  private static Outcome answer(JsonRpcId id, String resultJson) {
    String json = "{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"result\":" + resultJson + "}";
    return Outcome.answeredLocally((Response) Era2026Wire.parse(json.getBytes(StandardCharsets.UTF_8)));
  }

}
