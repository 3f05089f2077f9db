package dev.mcpstdio.host;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.util.Map;

/**
 * One callback a session-scoped server announced (protocol v1, {@code docs/callbacks.md}): its
 * type, id and session, and the whole JSON object as written, for type-specific fields.
 *
 * @param json the object's bytes, exactly as the server wrote them after the prefix
 */
public record Callback(String type, String id, String sessionId, byte[] json) {

  /** The defined types; any other reaches handlers as a generic callback. */
  public static final String AUTH_REQUIRED = "auth_required";
  public static final String PLAN_READY = "plan_ready";
  public static final String CONFIRM = "confirm";
  public static final String NOTIFY = "notify";

  /** A string field of the callback, or null when absent or not a string. */
  public String string(String field) {
    Map<String, JsonSpan> fields = Json.fields(json, new JsonSpan(0, json.length));
    return fields == null ? null : Json.string(json, fields.get(field));
  }

  /** The raw JSON of a field (any kind), or null when absent. */
  public String raw(String field) {
    Map<String, JsonSpan> fields = Json.fields(json, new JsonSpan(0, json.length));
    JsonSpan span = fields == null ? null : fields.get(field);
    return span == null ? null : span.text(json);
  }

  /** True for the types a host acts on without an answer. */
  public boolean isNotification() {
    return NOTIFY.equals(type);
  }
}
