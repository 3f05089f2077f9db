package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code x-mcp-header} annotations of one child's tools, learnt from every {@code tools/list}
 * result it gives (the gateway's own listing after the handshake, and the clients' lists passing
 * through): what the ladder's rung 2d checks each {@code tools/call}'s {@code Mcp-Param-*} headers
 * against (spec.md 5.8, "Server validation"). A tool whose annotations are invalid is remembered
 * as having none (the child judges its calls); a tool listed again replaces what was known.
 *
 * <p>Bounded: at most {@link #MAX_TOOLS} tools (a child listing more gets rung 2d for the first
 * ones only; the rest are judged by the child).
 */
final class ToolIndex implements ValidationLadder.ToolAnnotations {

  static final int MAX_TOOLS = 10_000;

  private final Map<String, List<ParamHeaders.Annotation>> byTool = new ConcurrentHashMap<>();

  /** Learns the tools of a {@code tools/list} result ({@code result} spans the result object in {@code bytes}). */
  void learn(byte[] bytes, JsonSpan result) {
    List<JsonSpan> tools = Json.elements(bytes, Json.field(bytes, result, "tools"));
    if (tools == null) {
      return;
    }
    for (JsonSpan tool : tools) {
      Map<String, JsonSpan> fields = Json.fields(bytes, tool);
      String name = fields == null ? null : Json.string(bytes, fields.get("name"));
      if (name == null || (byTool.size() >= MAX_TOOLS && !byTool.containsKey(name))) {
        continue;
      }
      JsonSpan schema = fields.get("inputSchema");
      byTool.put(name, schema == null ? List.of()
          : ParamHeaders.scan(bytes, schema) instanceof ParamHeaders.Valid valid ? valid.annotations() : List.of());
    }
  }

  /** The annotations of {@code toolName}, or null when the child never listed it. */
  @Override
  public List<ParamHeaders.Annotation> of(String toolName) {
    return toolName == null ? null : byTool.get(toolName);
  }
}
