package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Surgical edits of a message: one value swapped or one member added, every other byte kept.
 *
 * <p>Each edit re-classifies the result, so callers always hold a consistent message and spans.
 */
final class Rewrites {

  /** Relay-owned request ids start with this; their answers never reach the host. */
  static final String RELAY_ID_PREFIX = "mcp-stdio/";

  private Rewrites() {}

  static boolean isRelayOwned(JsonRpcId id) {
    return id != null && id.isString() && id.value().startsWith(RELAY_ID_PREFIX);
  }

  static Request withId(Request request, JsonRpcId id) {
    return (Request) parse(request.idSpan().replace(request.bytes(), id.jsonBytes()));
  }

  static Response withId(Response response, JsonRpcId id) {
    JsonSpan idSpan = Json.field(response.bytes(), new JsonSpan(0, response.bytes().length), "id");
    return (Response) parse(idSpan.replace(response.bytes(), id.jsonBytes()));
  }

  /**
   * Sets member {@code name} of the request's {@code params} to {@code valueJson}: replaced when
   * present, appended when not, and {@code params} created when absent (or replaced when it is not
   * an object).
   */
  static Request withParam(Request request, String name, String valueJson) {
    return (Request) parse(withParamBytes(request.bytes(), request.params(), name, valueJson));
  }

  private static byte[] withParamBytes(byte[] bytes, JsonSpan params, String name, String valueJson) {
    String member = Json.quote(name) + ":" + valueJson;
    if (params == null) {
      return insertBeforeClose(bytes, new JsonSpan(0, bytes.length), ",\"params\":{" + member + "}");
    }
    Map<String, JsonSpan> fields = Json.fields(bytes, params);
    if (fields == null) {
      // params is not an object (null, an array): an object with the one member replaces it
      return params.replace(bytes, ("{" + member + "}").getBytes(StandardCharsets.UTF_8));
    }
    JsonSpan existing = fields.get(name);
    if (existing != null) {
      return existing.replace(bytes, valueJson.getBytes(StandardCharsets.UTF_8));
    }
    return insertBeforeClose(bytes, params, (fields.isEmpty() ? "" : ",") + member);
  }

  /** A batch of {@code members}, each with its own bytes. */
  static JsonRpcMessage batchOf(List<JsonRpcMessage> members) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write('[');
    for (int i = 0; i < members.size(); i++) {
      if (i > 0) {
        out.write(',');
      }
      out.writeBytes(members.get(i).bytes());
    }
    out.write(']');
    return parse(out.toByteArray());
  }

  /**
   * Sets member {@code name} of a notification's {@code params} to {@code valueJson} (as {@link
   * #withParam(Request, String, String)} does for requests).
   */
  static Notification withParam(Notification notification, String name, String valueJson) {
    byte[] edited = withParamBytes(notification.bytes(), notification.params(), name, valueJson);
    return (Notification) parse(edited);
  }

  /** Inserts text just before the closing brace of the object in {@code span}. */
  static byte[] insertBeforeClose(byte[] bytes, JsonSpan object, String text) {
    int close = object.end() - 1;
    while (bytes[close] != '}') {
      close--; // trailing whitespace after a top-level object
    }
    return new JsonSpan(close, close).replace(bytes, text.getBytes(StandardCharsets.UTF_8));
  }

  private static JsonRpcMessage parse(byte[] bytes) {
    try {
      return JsonRpcCodec.parse(bytes);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException("an edit produced malformed JSON", e);
    }
  }
}
