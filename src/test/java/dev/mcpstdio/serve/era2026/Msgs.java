package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Test helpers: messages from JSON text (single quotes for double ones), headers from pairs, a pooled child's events ignored. */
final class Msgs {

  /** A pooled child's events, all ignored (a test that watches the child's calls and answers only). */
  static final PooledChild.Events NO_EVENTS = new PooledChild.Events() {
    @Override
    public void notification(PooledChild child, JsonRpcMessage.Notification notification) {}

    @Override
    public void request(PooledChild child, JsonRpcMessage.Request request, PooledChild.Call during) {}
  };

  static final String META = "{'io.modelcontextprotocol/protocolVersion':'2026-07-28','io.modelcontextprotocol/clientCapabilities':{}}";

  private Msgs() {}

  static String json(String singleQuoted) {
    return singleQuoted.replace('\'', '"');
  }

  static JsonRpcMessage parse(String singleQuoted) {
    try {
      return JsonRpcCodec.parse(json(singleQuoted).getBytes(StandardCharsets.UTF_8));
    } catch (MalformedMessageException e) {
      throw new AssertionError(e);
    }
  }

  static JsonRpcMessage parseRaw(String json) {
    try {
      return JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
    } catch (MalformedMessageException e) {
      throw new AssertionError(e);
    }
  }

  static JsonRpcMessage.Request request(String singleQuoted) {
    return (JsonRpcMessage.Request) parse(singleQuoted);
  }

  static JsonRpcMessage.Response response(String singleQuoted) {
    return (JsonRpcMessage.Response) parse(singleQuoted);
  }

  static JsonRpcMessage.Notification notification(String singleQuoted) {
    return (JsonRpcMessage.Notification) parse(singleQuoted);
  }

  static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.UTF_8);
  }

  /** Headers from name, value, name, value...; a name given twice makes a repeated header. */
  static HeaderLines headers(String... pairs) {
    Map<String, List<String>> map = new LinkedHashMap<>();
    for (int i = 0; i < pairs.length; i += 2) {
      map.computeIfAbsent(pairs[i], n -> new java.util.ArrayList<>()).add(pairs[i + 1]);
    }
    return HeaderLines.of(map);
  }
}
