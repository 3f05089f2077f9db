package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Byte splices into one message: a set of edits (replace a value, insert members before an
 * object's closing brace), applied in one copy; every byte outside the edits stays as it was.
 *
 * <p>Invariant: edits never overlap (callers edit distinct values, or insert at distinct closing
 * braces); {@link #apply} checks it. (The relay's {@code Rewrites} and {@code Era2026Wire} do the
 * same for relay-side edits, package-private there; the two could meet in {@code jsonrpc}.)
 */
final class Splice {

  private record Edit(int start, int end, byte[] replacement) {}

  private final byte[] bytes;
  private final List<Edit> edits = new ArrayList<>();

  Splice(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Replaces the value in {@code span} with {@code json}. */
  Splice replace(JsonSpan span, String json) {
    edits.add(new Edit(span.start(), span.end(), json.getBytes(StandardCharsets.UTF_8)));
    return this;
  }

  /**
   * Adds {@code members} (each {@code "name":value}) at the end of the object in {@code object},
   * with the commas it needs; nothing when {@code members} is empty.
   */
  Splice append(JsonSpan object, List<String> members) {
    if (members.isEmpty()) {
      return this;
    }
    List<Json.Member> existing = Json.members(bytes, object);
    if (existing == null) {
      throw new IllegalArgumentException("not an object");
    }
    int close = object.end() - 1;
    while (bytes[close] != '}') {
      close--;
    }
    String text = (existing.isEmpty() ? "" : ",") + String.join(",", members);
    edits.add(new Edit(close, close, text.getBytes(StandardCharsets.UTF_8)));
    return this;
  }

  /** True when no edit was asked for. */
  boolean isEmpty() {
    return edits.isEmpty();
  }

  /** The edited bytes. */
  byte[] apply() {
    List<Edit> sorted = new ArrayList<>(edits);
    sorted.sort(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::end));
    int size = bytes.length;
    for (int i = 0; i < sorted.size(); i++) {
      Edit e = sorted.get(i);
      if (i > 0 && e.start() < sorted.get(i - 1).end()) {
        throw new IllegalStateException("overlapping edits");
      }
      size += e.replacement().length - (e.end() - e.start());
    }
    byte[] out = new byte[size];
    int from = 0;
    int at = 0;
    for (Edit e : sorted) {
      System.arraycopy(bytes, from, out, at, e.start() - from);
      at += e.start() - from;
      System.arraycopy(e.replacement(), 0, out, at, e.replacement().length);
      at += e.replacement().length;
      from = e.end();
    }
    System.arraycopy(bytes, from, out, at, bytes.length - from);
    return out;
  }

  /** {@code "name":json}. */
  static String member(String name, String json) {
    return Json.quote(name) + ":" + json;
  }

  /**
   * The member {@code name} among {@code members}, or null; of a repeated name the last, the one
   * {@link Json#fields} and the codec read.
   */
  static Json.Member find(List<Json.Member> members, String name) {
    Json.Member found = null;
    if (members != null) {
      for (Json.Member m : members) {
        if (m.name().equals(name)) {
          found = m;
        }
      }
    }
    return found;
  }

  /** Re-reads an edited message (the edits keep it well-formed). */
  static JsonRpcMessage parse(byte[] bytes) {
    try {
      return JsonRpcCodec.parse(bytes);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException("an edit produced malformed JSON", e);
    }
  }

  /** The span of the whole message. */
  static JsonSpan whole(byte[] bytes) {
    return new JsonSpan(0, bytes.length);
  }
}
