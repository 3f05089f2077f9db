package dev.mcpstdio.serve.era2026;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpResults;
import dev.mcpstdio.protocol.MetaKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What one {@code subscriptions/listen} stream served locally asks for and gets (mcp-stdio.md 4.7;
 * spec.md 5.10), and the frames the stream carries.
 *
 * <p>Honoured: each of {@code toolsListChanged}, {@code promptsListChanged}, {@code
 * resourcesListChanged} that is {@code true} (anything else is "not subscribed"); {@code
 * resourceSubscriptions} only when the child advertises {@code resources.subscribe}: its strings,
 * deduplicated in order, the first {@link #MAX_URIS} kept, each at most {@link #MAX_URI_LENGTH}
 * characters (longer ones are not honoured); the field is omitted (not {@code []}) when the child
 * cannot subscribe or the client did not ask. The acknowledgement names exactly what is
 * honoured, and {@link #matches} passes exactly that: the spec forbids sending what was not
 * requested, and {@code notifications/message} and {@code notifications/progress} never flow on a
 * listen stream.
 *
 * @param tools {@code toolsListChanged} honoured
 * @param prompts {@code promptsListChanged} honoured
 * @param resources {@code resourcesListChanged} honoured
 * @param uris the honoured {@code resourceSubscriptions}, or null when the field is omitted
 */
public record ListenFilter(boolean tools, boolean prompts, boolean resources, List<String> uris) {

  /** Most resource URIs one stream subscribes to. */
  public static final int MAX_URIS = 256;

  /** Longest URI honoured, in UTF-16 units; bounds the stream's memory at MAX_URIS × this. */
  public static final int MAX_URI_LENGTH = 8192;

  public ListenFilter {
    uris = uris == null ? null : List.copyOf(uris);
  }

  /** The outcome of {@link #parse}. */
  public sealed interface Parsed permits Honoured, Invalid {}

  /** A filter to serve. */
  public record Honoured(ListenFilter filter) implements Parsed {}

  /** The listen request is malformed: HTTP 400 with {@code code}. */
  public record Invalid(int code, String message) implements Parsed {}

  /**
   * The filter of {@code listen}: {@code params.notifications} absent counts as {@code {}}, one
   * that is not an object is -32602.
   *
   * @param childSubscribes the child advertises {@code resources.subscribe}
   */
  public static Parsed parse(Request listen, boolean childSubscribes) {
    byte[] bytes = listen.bytes();
    JsonSpan span = Json.field(bytes, listen.params(), "notifications");
    if (span == null) {
      return new Honoured(new ListenFilter(false, false, false, null));
    }
    Map<String, JsonSpan> fields = Json.fields(bytes, span);
    if (fields == null) {
      return new Invalid(ErrorCodes.INVALID_PARAMS, "params.notifications must be an object");
    }
    List<String> uris = null;
    List<JsonSpan> requested = Json.elements(bytes, fields.get("resourceSubscriptions"));
    if (childSubscribes && requested != null) {
      Set<String> kept = new LinkedHashSet<>();
      for (JsonSpan element : requested) {
        if (kept.size() == MAX_URIS) {
          break;
        }
        String uri = Json.string(bytes, element);
        if (uri != null && uri.length() <= MAX_URI_LENGTH) {
          kept.add(uri);
        }
      }
      uris = new ArrayList<>(kept);
    }
    return new Honoured(new ListenFilter(isTrue(bytes, fields.get("toolsListChanged")),
        isTrue(bytes, fields.get("promptsListChanged")), isTrue(bytes, fields.get("resourcesListChanged")), uris));
  }

  private static boolean isTrue(byte[] bytes, JsonSpan value) {
    return value != null && Json.kind(bytes, value) == JsonToken.VALUE_TRUE;
  }

  /** The honoured filter as JSON: only what is honoured, booleans {@code true}. */
  public String honouredJson() {
    List<String> members = new ArrayList<>();
    if (tools) {
      members.add("\"toolsListChanged\":true");
    }
    if (prompts) {
      members.add("\"promptsListChanged\":true");
    }
    if (resources) {
      members.add("\"resourcesListChanged\":true");
    }
    if (uris != null) {
      members.add("\"resourceSubscriptions\":[" + String.join(",", uris.stream().map(Json::quote).toList()) + "]");
    }
    return "{" + String.join(",", members) + "}";
  }

  /** True when a notification from the child is one this stream asked for. */
  public boolean matches(Notification fromChild) {
    return switch (fromChild.method()) {
      case McpMethods.TOOLS_LIST_CHANGED -> tools;
      case McpMethods.PROMPTS_LIST_CHANGED -> prompts;
      case McpMethods.RESOURCES_LIST_CHANGED -> resources;
      case McpMethods.RESOURCES_UPDATED -> uris != null && updatedUri(fromChild) instanceof String uri && uris.contains(uri);
      default -> false;
    };
  }

  /** The {@code params.uri} string of a {@code notifications/resources/updated}, or null. */
  private static String updatedUri(Notification n) {
    return Json.string(n.bytes(), Json.field(n.bytes(), n.params(), "uri"));
  }

  /**
   * The stream's first frame: {@code notifications/subscriptions/acknowledged} with {@code
   * params.notifications} the honoured filter and {@code _meta.subscriptionId} the listen
   * request's id, verbatim.
   */
  public byte[] ack(JsonRpcId listenId) {
    return ("{\"jsonrpc\":\"2.0\",\"method\":\"" + McpMethods.SUBSCRIPTIONS_ACKNOWLEDGED + "\",\"params\":{\"notifications\":"
        + honouredJson() + ",\"_meta\":" + subscriptionMeta(listenId) + "}}").getBytes(StandardCharsets.UTF_8);
  }

  /**
   * A copy of {@code fromChild} with {@code params._meta.subscriptionId} set to the listen id
   * (params and {@code _meta} created when absent, a {@code _meta} that is not an object replaced,
   * an existing {@code subscriptionId} replaced); the other bytes are the child's.
   */
  public static byte[] tag(Notification fromChild, JsonRpcId listenId) {
    byte[] bytes = fromChild.bytes();
    String id = Splice.member(MetaKeys.SUBSCRIPTION_ID, listenId.json());
    List<Json.Member> params = Json.members(bytes, fromChild.params());
    if (params == null) {
      String meta = Splice.member("params", "{" + Splice.member("_meta", "{" + id + "}") + "}");
      if (fromChild.params() != null) { // params that are not an object: replaced
        return new Splice(bytes).replace(fromChild.params(), "{" + Splice.member("_meta", "{" + id + "}") + "}").apply();
      }
      return new Splice(bytes).append(Splice.whole(bytes), List.of(meta)).apply();
    }
    Json.Member meta = Splice.find(params, "_meta");
    if (meta == null) {
      return new Splice(bytes).append(fromChild.params(), List.of(Splice.member("_meta", "{" + id + "}"))).apply();
    }
    List<Json.Member> metaMembers = Json.members(bytes, meta.value());
    if (metaMembers == null) {
      return new Splice(bytes).replace(meta.value(), "{" + id + "}").apply();
    }
    Json.Member existing = Splice.find(metaMembers, MetaKeys.SUBSCRIPTION_ID);
    return existing != null
        ? new Splice(bytes).replace(existing.value(), listenId.json()).apply()
        : new Splice(bytes).append(meta.value(), List.of(id)).apply();
  }

  /**
   * The graceful end of a stream (serve shutting down): the listen request's result, {@code
   * {"resultType":"complete","_meta":{subscriptionId}}}.
   */
  public static byte[] terminal(JsonRpcId listenId) {
    return ("{\"jsonrpc\":\"2.0\",\"id\":" + listenId.json() + ",\"result\":{\"" + McpResults.RESULT_TYPE + "\":\""
        + McpResults.COMPLETE + "\",\"_meta\":" + subscriptionMeta(listenId) + "}}").getBytes(StandardCharsets.UTF_8);
  }

  private static String subscriptionMeta(JsonRpcId listenId) {
    return "{" + Splice.member(MetaKeys.SUBSCRIPTION_ID, listenId.json()) + "}";
  }
}
