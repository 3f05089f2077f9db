package dev.mcpstdio.serve.era2026;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpResults;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * {@code server/discover} answered for a 2025-era child from its {@code InitializeResult}
 * (mcp-stdio.md 4.6; spec.md 5.5): {@code resultType: "complete"}, {@code supportedVersions} the
 * gateway's 2026 revisions, the child's {@code capabilities} (one that is not an object counts as
 * {@code {}}) without {@code resources.subscribe} unless it is {@code true}, {@code instructions}
 * when the child gave a string, {@code ttlMs}, {@code cacheScope: "private"}, and {@code
 * _meta.serverInfo} when the child named itself.
 *
 * <p>The child's values keep their bytes (capabilities are copied member by member); only the
 * envelope is new. {@link #childSubscribes} and {@link #serverInfo} read the same result for the
 * listen hub and {@link ResultStamp}, so all three agree on what the child is.
 */
public final class Discover {

  private Discover() {}

  /**
   * The full response to a client's {@code server/discover} with id {@code clientId}.
   *
   * @param init the bytes holding the child's {@code InitializeResult}
   * @param result the span of that result (an object; anything else counts as {@code {}})
   * @param ttlMs the freshness to advertise, at least 0
   */
  public static byte[] response(JsonRpcId clientId, byte[] init, JsonSpan result, long ttlMs) {
    if (ttlMs < 0) {
      throw new IllegalArgumentException("ttlMs must be at least 0");
    }
    List<Json.Member> members = Json.members(init, result);
    StringBuilder out = new StringBuilder(256).append("{\"jsonrpc\":\"2.0\",\"id\":").append(clientId.json())
        .append(",\"result\":{\"").append(McpResults.RESULT_TYPE).append("\":\"").append(McpResults.COMPLETE).append('"');
    out.append(",\"supportedVersions\":[")
        .append(String.join(",", McpVersions.IMPLEMENTED_2026.stream().sorted(Comparator.reverseOrder()).map(Json::quote).toList()))
        .append(']');
    Json.Member capabilities = Splice.find(members, "capabilities");
    out.append(",\"capabilities\":").append(capabilities(init, capabilities == null ? null : capabilities.value()));
    Json.Member instructions = Splice.find(members, "instructions");
    if (instructions != null && Json.kind(init, instructions.value()) == JsonToken.VALUE_STRING) {
      out.append(",\"instructions\":").append(instructions.value().text(init));
    }
    out.append(",\"").append(McpResults.TTL_MS).append("\":").append(ttlMs)
        .append(",\"").append(McpResults.CACHE_SCOPE).append("\":\"").append(McpResults.PRIVATE).append('"');
    String info = serverInfo(init, result);
    if (info != null) {
      out.append(",\"_meta\":{").append(Splice.member(MetaKeys.SERVER_INFO, info)).append('}');
    }
    return out.append("}}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The child's {@code serverInfo} as JSON when it is an object, else null. */
  public static String serverInfo(byte[] init, JsonSpan result) {
    Json.Member info = Splice.find(Json.members(init, result), "serverInfo");
    return info != null && Json.kind(init, info.value()) == JsonToken.START_OBJECT ? info.value().text(init) : null;
  }

  /** True when the child's {@code capabilities.resources.subscribe} is {@code true}. */
  public static boolean childSubscribes(byte[] init, JsonSpan result) {
    JsonSpan resources = Json.field(init, Json.field(init, result, "capabilities"), "resources");
    JsonSpan subscribe = Json.field(init, resources, "subscribe");
    return subscribe != null && subscribe.is(init, "true");
  }

  /** The capabilities to advertise: the child's, {@code resources.subscribe} kept only when {@code true}. */
  static String capabilities(byte[] init, JsonSpan span) {
    List<Json.Member> members = Json.members(init, span);
    if (members == null) {
      return "{}";
    }
    Json.Member resources = Splice.find(members, "resources");
    String edited = resources == null ? null : withoutFalseSubscribe(init, resources.value());
    if (edited == null) {
      return span.text(init); // nothing to take out: the child's bytes
    }
    List<String> out = new ArrayList<>();
    for (Json.Member m : members) {
      if (m == resources) {
        out.add(Json.quote(m.name()) + ":" + edited);
      } else if (!m.name().equals("resources")) { // an earlier, repeated resources is dropped
        out.add(raw(init, m));
      }
    }
    return "{" + String.join(",", out) + "}";
  }

  /** The resources object without a {@code subscribe} that is not {@code true}; null when there is nothing to take out. */
  private static String withoutFalseSubscribe(byte[] init, JsonSpan resources) {
    List<Json.Member> members = Json.members(init, resources);
    Json.Member subscribe = Splice.find(members, "subscribe"); // the last, as childSubscribes reads it
    if (subscribe == null || subscribe.value().is(init, "true")) {
      return null;
    }
    List<String> kept = new ArrayList<>();
    for (Json.Member m : members) {
      if (!m.name().equals("subscribe")) {
        kept.add(raw(init, m));
      }
    }
    return "{" + String.join(",", kept) + "}";
  }

  /** A member's bytes as written: name, colon, value. */
  private static String raw(byte[] bytes, Json.Member m) {
    return new String(bytes, m.start(), m.value().end() - m.start(), StandardCharsets.UTF_8);
  }
}
