package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders;
import dev.mcpstdio.stdio.Log;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The {@code x-mcp-header} annotations of the tools the server listed (2026 era): learnt from
 * every {@code tools/list} answer that passes, used to put {@code Mcp-Param-*} headers on each
 * {@code tools/call}. A tool whose annotations are invalid is taken out of the list the host
 * sees (the client's duty under 2026-07-28), with a warning.
 *
 * <p>Bounded: at most {@link #MAX_TOOLS} tools are remembered (a server listing more gets no
 * headers for the rest, which it then refuses with -32020: the relay re-lists once and says so).
 */
final class ToolHeaders {

  static final int MAX_TOOLS = 10_000;

  private final Map<String, List<ParamHeaders.Annotation>> byTool = new ConcurrentHashMap<>();
  private final Log log;

  ToolHeaders(Log log) {
    this.log = log;
  }

  /** The {@code Mcp-Param-*} headers of a call to {@code tool} with {@code arguments} (empty when none apply). */
  Map<String, String> paramHeaders(String tool, byte[] bytes, JsonSpan arguments) {
    List<ParamHeaders.Annotation> annotations = tool == null ? null : byTool.get(tool);
    if (annotations == null || annotations.isEmpty()) {
      return Map.of();
    }
    return ParamHeaders.render(bytes, arguments, annotations);
  }

  /**
   * Learns the annotations of every tool in a {@code tools/list} answer and returns the answer
   * without the tools whose annotations are invalid (the same answer when all are valid). A tool
   * listed again replaces what was known of it; tools are never forgotten otherwise (a page holds
   * only some of them).
   */
  Response learn(Response answer) {
    byte[] bytes = answer.bytes();
    Map<String, JsonSpan> result = Json.fields(bytes, answer.result());
    List<JsonSpan> tools = result == null ? null : Json.elements(bytes, result.get("tools"));
    if (tools == null) {
      return answer;
    }
    StringBuilder kept = new StringBuilder("[");
    boolean dropped = false;
    for (JsonSpan tool : tools) {
      Map<String, JsonSpan> fields = Json.fields(bytes, tool);
      String name = fields == null ? null : Json.string(bytes, fields.get("name"));
      ParamHeaders.Scan verdict = fields == null || fields.get("inputSchema") == null
          ? new ParamHeaders.Valid(List.of())
          : ParamHeaders.scan(bytes, fields.get("inputSchema"));
      if (verdict instanceof ParamHeaders.Invalid invalid) {
        log.warn("tool " + (name == null ? "(unnamed)" : Json.quote(name)) + " has an invalid x-mcp-header annotation ("
            + invalid.reason() + "); it is left out of the tools the host sees");
        dropped = true;
        if (name != null) {
          byTool.remove(name);
        }
        continue;
      }
      if (name != null && verdict instanceof ParamHeaders.Valid valid && (byTool.size() < MAX_TOOLS || byTool.containsKey(name))) {
        byTool.put(name, valid.annotations());
      }
      if (kept.length() > 1) {
        kept.append(',');
      }
      kept.append(tool.text(bytes));
    }
    if (!dropped) {
      return answer;
    }
    kept.append(']');
    JsonSpan list = result.get("tools");
    byte[] edited = list.replace(bytes, kept.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
    return (Response) Era2026Wire.parse(edited);
  }
}
