package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpResults;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import com.fasterxml.jackson.core.JsonToken;

/**
 * {@code server/discover} answered for a 2025-era child, from the InitializeResult it gave the
 * gateway's handshake (mcp-stdio.md 4.6; spec.md 5.5): the revisions the gateway implements for
 * the 2026 era, the child's capabilities as it declared them (an object; anything else becomes
 * {@code {}}), its instructions when it gave any, the caching hints and its {@code serverInfo}.
 * The child's values are spliced in as their bytes.
 */
final class Discovery {

  private Discovery() {}

  /** The whole response to a discover request with id {@code id}. */
  static byte[] result(JsonRpcId id, byte[] initializeResult, long ttlMs) {
    Map<String, JsonSpan> init = Json.fields(initializeResult, whole(initializeResult));
    JsonSpan capabilities = init == null ? null : init.get("capabilities");
    JsonSpan instructions = init == null ? null : init.get("instructions");
    StringBuilder b = new StringBuilder("{\"jsonrpc\":\"2.0\",\"id\":").append(id.json()).append(",\"result\":{\"")
        .append(McpResults.RESULT_TYPE).append("\":\"").append(McpResults.COMPLETE).append("\",\"supportedVersions\":[");
    b.append(String.join(",", McpVersions.IMPLEMENTED_2026.stream().sorted(java.util.Comparator.reverseOrder())
        .map(Json::quote).toList()));
    b.append("],\"capabilities\":").append(capabilities != null && Json.kind(initializeResult, capabilities) == JsonToken.START_OBJECT
        ? capabilities.text(initializeResult) : "{}");
    if (instructions != null && Json.kind(initializeResult, instructions) == JsonToken.VALUE_STRING) {
      b.append(",\"instructions\":").append(instructions.text(initializeResult));
    }
    b.append(",\"").append(McpResults.TTL_MS).append("\":").append(ttlMs).append(",\"").append(McpResults.CACHE_SCOPE)
        .append("\":\"").append(McpResults.PRIVATE).append('"');
    String serverInfo = serverInfo(initializeResult);
    if (serverInfo != null) {
      b.append(",\"_meta\":{").append(Json.quote(MetaKeys.SERVER_INFO)).append(':').append(serverInfo).append('}');
    }
    return b.append("}}").toString().getBytes(StandardCharsets.UTF_8);
  }

  /** The child's {@code serverInfo} as JSON (an object), or null when it gave none. */
  static String serverInfo(byte[] initializeResult) {
    JsonSpan info = Json.field(initializeResult, whole(initializeResult), "serverInfo");
    return info != null && Json.kind(initializeResult, info) == JsonToken.START_OBJECT ? info.text(initializeResult) : null;
  }

  private static JsonSpan whole(byte[] bytes) {
    return new JsonSpan(0, bytes.length);
  }
}
