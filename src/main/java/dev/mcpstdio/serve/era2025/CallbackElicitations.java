package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.Cancellation;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Routes a session's callbacks to its own MCP client as elicitations (MCP 2025-06-18 and later),
 * when the client declared elicitation: {@code confirm} and {@code plan_ready} as form
 * elicitations, {@code auth_required} as a URL-mode elicitation when the client declared URL mode
 * (2025-11-25), else as a form that names the URL. The client's answer (an elicitation result) is
 * the callback's reply. The request carries a gateway-owned id, so its answer is taken here and
 * never reaches the child. Other types go to the events API only.
 *
 * <p>A URL-mode question is remembered by its source until the client declines it or it is
 * withdrawn. Accepting only means the user went to sign in: when the host later hands that source's
 * credential off, the client is told the sign-in finished ({@code notifications/elicitation/complete}, the callback's id
 * being the elicitation id). At most {@link #MAX_OPEN_SIGN_INS} are remembered; the oldest go first.
 */
final class CallbackElicitations {

  static final String ID_PREFIX = "mcp-stdio-cb-";

  private static final String EMPTY_FORM = "{\"type\":\"object\",\"properties\":{}}";

  private final AtomicLong sequence = new AtomicLong();
  private final Map<String, String> callbackByRequest = new ConcurrentHashMap<>(); // bounded by the registry's

  /** URL-mode sign-ins not known to be finished, at most, per session. */
  static final int MAX_OPEN_SIGN_INS = 64;

  /** Elicitation id (the callback's id) → source slug, oldest first; guarded by itself. */
  private final Map<String, String> openSignIns = new java.util.LinkedHashMap<>() {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
      return size() > MAX_OPEN_SIGN_INS;
    }
  };

  private volatile boolean form;
  private volatile boolean url;

  /** What the client said it supports, from its initialize request. */
  void clientCapabilities(JsonRpcMessage.Request initialize) {
    byte[] b = initialize.bytes();
    JsonSpan elicitation = Json.field(b, Json.field(b, initialize.params(), "capabilities"), "elicitation");
    if (elicitation == null) {
      return;
    }
    Map<String, JsonSpan> modes = Json.fields(b, elicitation);
    url = modes != null && modes.containsKey("url");
    form = modes == null || modes.isEmpty() || modes.containsKey("form"); // {} means form (2025-06-18)
  }

  /** The elicitation request for {@code callback}, or null when it is not routed to the client. */
  byte[] request(Callback callback) {
    if (!form && !url) {
      return null;
    }
    String params = switch (callback.type()) {
      case Callback.CONFIRM -> form ? "{\"message\":" + Json.quote(callback.string("message")) + ",\"requestedSchema\":"
          + (isObject(callback.raw("schema")) ? callback.raw("schema") : EMPTY_FORM) + "}" : null;
      case Callback.PLAN_READY -> form ? "{\"message\":" + Json.quote(orElse(callback.string("message"),
          "Approve the plan at " + callback.string("planPath") + "?")) + ",\"requestedSchema\":" + EMPTY_FORM + "}" : null;
      case Callback.AUTH_REQUIRED -> url
          ? "{\"mode\":\"url\",\"message\":" + Json.quote(orElse(callback.string("message"), "Sign in to "
              + callback.string("sourceSlug"))) + ",\"url\":" + Json.quote(callback.string("authUrl"))
              + ",\"elicitationId\":" + Json.quote(callback.id()) + "}"
          : form ? "{\"message\":" + Json.quote("Sign in to " + callback.string("sourceSlug") + " at "
              + callback.string("authUrl") + ", then accept.") + ",\"requestedSchema\":" + EMPTY_FORM + "}" : null;
      default -> null;
    };
    if (params == null) {
      return null;
    }
    JsonRpcId id = JsonRpcId.relayOwned(ID_PREFIX + sequence.incrementAndGet());
    callbackByRequest.put(id.value(), callback.id());
    if (url && Callback.AUTH_REQUIRED.equals(callback.type()) && callback.string("sourceSlug") != null) {
      synchronized (openSignIns) {
        openSignIns.put(callback.id(), callback.string("sourceSlug"));
      }
    }
    return ("{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"method\":\"elicitation/create\",\"params\":" + params + "}")
        .getBytes(StandardCharsets.UTF_8);
  }

  /** True when {@code response} answers one of these elicitations; its result becomes the reply. */
  boolean answered(JsonRpcMessage.Response response, CallbackRegistry registry) {
    if (response.id() == null || !response.id().isString() || !response.id().value().startsWith(ID_PREFIX)) {
      return false;
    }
    String callbackId = callbackByRequest.remove(response.id().value());
    if (callbackId == null) {
      return true;
    }
    byte[] b = response.bytes();
    String result = response.isError() ? "{\"action\":\"cancel\"}" : response.result().text(b);
    if (response.isError() || !"accept".equals(Json.string(b, Json.field(b, response.result(), "action")))) {
      forget(callbackId); // declined: no sign-in will finish
    }
    if (registry != null) {
      registry.reply(callbackId, result);
    }
    return true;
  }

  /**
   * The host handed off {@code slug}'s credential: a {@code notifications/elicitation/complete} for
   * each URL-mode sign-in to that source the client was asked for, now finished. Those still open
   * are forgotten too, so answering their callbacks withdraws nothing, and a late answer from the
   * client is taken and dropped.
   */
  List<byte[]> signedIn(String slug) {
    List<String> done = new ArrayList<>();
    synchronized (openSignIns) {
      openSignIns.entrySet().removeIf(e -> e.getValue().equals(slug) && done.add(e.getKey()));
    }
    callbackByRequest.values().removeIf(done::contains);
    return done.stream().map(id -> ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/elicitation/complete\","
        + "\"params\":{\"elicitationId\":" + Json.quote(id) + "}}").getBytes(StandardCharsets.UTF_8)).toList();
  }

  private void forget(String callbackId) {
    synchronized (openSignIns) {
      openSignIns.remove(callbackId);
    }
  }

  /**
   * The callback {@code callbackId} was answered elsewhere or given up: the client's question is
   * withdrawn with {@code notifications/cancelled}. Null when no question is open for it.
   */
  byte[] withdraw(String callbackId) {
    for (Map.Entry<String, String> e : callbackByRequest.entrySet()) {
      if (e.getValue().equals(callbackId) && callbackByRequest.remove(e.getKey(), callbackId)) {
        forget(callbackId); // the client never accepted: nothing to complete
        return Cancellation.notification(Json.quote(e.getKey()), "the question was answered or timed out");
      }
    }
    return null;
  }

  private static boolean isObject(String raw) {
    return raw != null && raw.startsWith("{");
  }

  private static String orElse(String value, String fallback) {
    return value == null ? fallback : value;
  }
}
