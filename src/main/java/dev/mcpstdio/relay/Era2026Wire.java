package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;

/**
 * Byte-level edits the 2026 era needs on messages: {@code _meta} merged into a request's params,
 * members taken out of a result. Everything not named in an edit keeps its bytes; an object that
 * is edited is written anew member by member (its members' values keep their bytes).
 */
final class Era2026Wire {

  private Era2026Wire() {}

  /**
   * The request with {@code entries} (key → JSON value) set in {@code params._meta}: keys already
   * there with other names (a {@code progressToken}, say) are kept, the entries replace their own
   * names; {@code params} and {@code _meta} are created when absent.
   */
  static Request withMeta(Request request, Map<String, String> entries) {
    byte[] bytes = request.bytes();
    Map<String, JsonSpan> params = request.params() == null ? null : Json.fields(bytes, request.params());
    if (request.params() != null && params == null) {
      return request; // params that are not an object are no MCP request's: the server says so, nothing is lost here
    }
    JsonSpan meta = params == null ? null : params.get("_meta");
    Map<String, JsonSpan> existing = meta == null ? null : Json.fields(bytes, meta);
    StringBuilder out = new StringBuilder("{");
    if (existing != null) {
      existing.forEach((name, value) -> {
        if (!entries.containsKey(name)) {
          member(out, name, value.text(bytes));
        }
      });
    }
    entries.forEach((name, json) -> member(out, name, json));
    out.append('}');
    return Rewrites.withParam(request, "_meta", out.toString());
  }

  /**
   * The object in {@code span} with {@code entries} (name → JSON value) set: a member already
   * there keeps its place with the new value, the others are added at the end; null when {@code
   * span} is not an object.
   */
  static String withMembers(byte[] bytes, JsonSpan span, Map<String, String> entries) {
    Map<String, JsonSpan> fields = Json.fields(bytes, span);
    if (fields == null) {
      return null;
    }
    StringBuilder out = new StringBuilder("{");
    fields.forEach((name, value) -> member(out, name, entries.getOrDefault(name, value.text(bytes))));
    entries.forEach((name, json) -> {
      if (!fields.containsKey(name)) {
        member(out, name, json);
      }
    });
    return out.append('}').toString();
  }

  /**
   * The object in {@code span} without the members named in {@code names}, or null when it has
   * none of them (nothing to edit).
   */
  static String withoutMembers(byte[] bytes, JsonSpan span, Set<String> names) {
    Map<String, JsonSpan> fields = Json.fields(bytes, span);
    if (fields == null || fields.keySet().stream().noneMatch(names::contains)) {
      return null;
    }
    StringBuilder out = new StringBuilder("{");
    fields.forEach((name, value) -> {
      if (!names.contains(name)) {
        member(out, name, value.text(bytes));
      }
    });
    return out.append('}').toString();
  }

  /**
   * The response with the result members {@code names} taken out, and {@code metaKeys} out of the
   * result's {@code _meta} (an {@code _meta} left empty goes too); the same response when there is
   * nothing to take out.
   */
  static Response withoutResultMembers(Response response, Set<String> names, Set<String> metaKeys) {
    JsonSpan result = response.result();
    byte[] bytes = response.bytes();
    Map<String, JsonSpan> fields = result == null ? null : Json.fields(bytes, result);
    if (fields == null) {
      return response;
    }
    JsonSpan meta = fields.get("_meta");
    Map<String, JsonSpan> metaFields = meta == null ? null : Json.fields(bytes, meta);
    boolean metaEdit = metaFields != null && metaFields.keySet().stream().anyMatch(metaKeys::contains);
    if (!metaEdit && fields.keySet().stream().noneMatch(names::contains)) {
      return response;
    }
    // Written as bytes: a result is often megabytes, and its members keep their bytes.
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(result.length());
    out.write('{');
    fields.forEach((name, value) -> {
      if (names.contains(name)) {
        return;
      }
      byte[] member = value.slice(bytes);
      if (name.equals("_meta") && metaEdit) {
        String kept = withoutMembers(bytes, value, metaKeys);
        if ("{}".equals(kept)) {
          return;
        }
        member = kept.getBytes(StandardCharsets.UTF_8);
      }
      if (out.size() > 1) {
        out.write(',');
      }
      out.writeBytes(Json.quote(name).getBytes(StandardCharsets.UTF_8));
      out.write(':');
      out.writeBytes(member);
    });
    out.write('}');
    return (Response) parse(result.replace(bytes, out.toByteArray()));
  }

  /** The response with its result replaced by {@code resultJson}. */
  static Response withResult(Response response, String resultJson) {
    return (Response) parse(response.result().replace(response.bytes(), resultJson.getBytes(StandardCharsets.UTF_8)));
  }

  private static void member(StringBuilder out, String name, String json) {
    if (out.length() > 1) {
      out.append(',');
    }
    out.append(Json.quote(name)).append(':').append(json);
  }

  static JsonRpcMessage parse(byte[] bytes) {
    try {
      return JsonRpcCodec.parse(bytes);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException("an edit produced malformed JSON", e);
    }
  }
}
