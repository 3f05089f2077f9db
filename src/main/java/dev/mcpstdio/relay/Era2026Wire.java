package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.List;
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
    if (params != null && meta == null) { // the usual case: _meta goes in as params' last member, one copy
      StringBuilder member = new StringBuilder(params.isEmpty() ? "\"_meta\":{" : ",\"_meta\":{");
      entries.forEach((name, json) -> {
        if (member.charAt(member.length() - 1) != '{') {
          member.append(',');
        }
        member.append(Json.quote(name)).append(':').append(json);
      });
      return (Request) parse(Rewrites.insertBeforeClose(bytes, request.params(), member.append('}').toString()));
    }
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
   * nothing to take out. The members kept keep their bytes, names included, and are copied once
   * (a result is often megabytes).
   */
  static Response withoutResultMembers(Response response, Set<String> names, Set<String> metaKeys) {
    JsonSpan result = response.result();
    byte[] bytes = response.bytes();
    List<Json.Member> members = result == null ? null : Json.members(bytes, result);
    if (members == null) {
      return response;
    }
    boolean edit = false;
    String metaKept = null;
    for (Json.Member m : members) {
      if (names.contains(m.name())) {
        edit = true;
      } else if (m.name().equals("_meta")) {
        metaKept = withoutMembers(bytes, m.value(), metaKeys);
        edit |= metaKept != null;
      }
    }
    if (!edit) {
      return response;
    }
    byte[] meta = metaKept == null || metaKept.equals("{}") ? null : metaKept.getBytes(StandardCharsets.UTF_8);
    int size = 2;
    for (Json.Member m : members) {
      if (!names.contains(m.name())) {
        size += m.value().end() - m.start() + 1;
      }
    }
    byte[] out = new byte[size + (meta == null ? 0 : meta.length)];
    int at = 0;
    out[at++] = '{';
    for (Json.Member m : members) {
      boolean metaEdited = m.name().equals("_meta") && metaKept != null;
      if (names.contains(m.name()) || metaEdited && meta == null) {
        continue;
      }
      if (at > 1) {
        out[at++] = ',';
      }
      if (metaEdited) {
        int head = m.value().start() - m.start(); // the name, the colon and what lies between
        System.arraycopy(bytes, m.start(), out, at, head);
        at += head;
        System.arraycopy(meta, 0, out, at, meta.length);
        at += meta.length;
      } else {
        int length = m.value().end() - m.start();
        System.arraycopy(bytes, m.start(), out, at, length);
        at += length;
      }
    }
    out[at++] = '}';
    return (Response) parse(result.replace(bytes, java.util.Arrays.copyOf(out, at)));
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
