package dev.mcpstdio.protocol;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import dev.mcpstdio.protocol.ParamHeaders.Invalid;
import dev.mcpstdio.protocol.ParamHeaders.Scan;
import dev.mcpstdio.protocol.ParamHeaders.Type;
import dev.mcpstdio.protocol.ParamHeaders.Valid;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * One walk over a tool's {@code inputSchema} for {@link ParamHeaders#scan}: the rules are stated
 * there. The walk tells three roles apart: a schema (an object whose members are keywords), a map
 * of schemas (the value of {@code properties} and its kin, whose member names are property names,
 * so a property called {@code x-mcp-header} is no annotation), and anything else reached off the
 * {@code properties} chain, where every object counts as a schema and every array as a list of
 * them. The chain (the property names from the root) is carried only while every step so far was a
 * {@code properties} one; an annotation met without it makes the tool invalid.
 */
final class SchemaWalk {

  /** Keywords whose values are data, not schemas. */
  private static final Set<String> DATA = Set.of("const", "enum", "default", "examples");

  /** Keywords whose values map names to schemas, besides {@code properties}. */
  private static final Set<String> SCHEMA_MAPS =
      Set.of("patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies");

  /** Longest location or value quoted in a reason. */
  private static final int SHOWN = 80;

  private final byte[] bytes;
  private final List<String> location = new ArrayList<>();
  private final List<Annotation> found = new ArrayList<>();
  private final Map<String, String> names = new HashMap<>();
  private int nodes;

  private SchemaWalk(byte[] bytes) {
    this.bytes = bytes;
  }

  static Scan run(byte[] bytes, JsonSpan root) {
    SchemaWalk walk = new SchemaWalk(bytes);
    try {
      walk.schema(root, 0, List.of());
      return new Valid(walk.found);
    } catch (Stop stop) {
      return new Invalid(stop.getMessage());
    }
  }

  /** True when the span's bytes contain {@code needle} (ASCII). */
  static boolean contains(byte[] bytes, JsonSpan span, String needle) {
    byte[] n = needle.getBytes(StandardCharsets.US_ASCII);
    outer:
    for (int i = span.start(), last = span.end() - n.length; i <= last; i++) {
      for (int j = 0; j < n.length; j++) {
        if (bytes[i + j] != n[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }

  /** A value in schema position; {@code chain} is null off the properties chain. */
  private void schema(JsonSpan span, int depth, List<String> chain) {
    visit(depth);
    JsonToken kind = Json.kind(bytes, span);
    if (kind == JsonToken.START_OBJECT) {
      keywords(span, depth, chain);
    } else if (kind == JsonToken.START_ARRAY) {
      elements(span, depth);
    }
  }

  /** Any value off the chain: objects are schemas, arrays lists of them. */
  private void any(JsonSpan span, int depth) {
    schema(span, depth, null);
  }

  private void elements(JsonSpan span, int depth) {
    List<JsonSpan> elements = Json.elements(bytes, span);
    for (int i = 0; elements != null && i < elements.size(); i++) {
      location.add(Integer.toString(i));
      any(elements.get(i), depth + 1);
      location.removeLast();
    }
  }

  private void keywords(JsonSpan span, int depth, List<String> chain) {
    Map<String, JsonSpan> fields = Json.fields(bytes, span);
    if (fields == null) {
      return;
    }
    JsonSpan annotation = fields.get(ParamHeaders.ANNOTATION);
    if (annotation != null) {
      annotate(annotation, fields.get("type"), chain);
    }
    for (Map.Entry<String, JsonSpan> member : fields.entrySet()) {
      String keyword = member.getKey();
      if (keyword.equals(ParamHeaders.ANNOTATION) || DATA.contains(keyword)) {
        continue;
      }
      location.add(keyword);
      if (keyword.equals("properties")) {
        properties(member.getValue(), depth + 1, chain);
      } else if (SCHEMA_MAPS.contains(keyword)) {
        properties(member.getValue(), depth + 1, null);
      } else {
        any(member.getValue(), depth + 1);
      }
      location.removeLast();
    }
  }

  /** A map of property names (or definition names) to schemas. */
  private void properties(JsonSpan span, int depth, List<String> chain) {
    visit(depth);
    Map<String, JsonSpan> fields = Json.fields(bytes, span);
    if (fields == null) {
      if (Json.kind(bytes, span) == JsonToken.START_ARRAY) {
        elements(span, depth);
      }
      return;
    }
    for (Map.Entry<String, JsonSpan> property : fields.entrySet()) {
      location.add(property.getKey());
      List<String> next = null;
      if (chain != null) {
        List<String> extended = new ArrayList<>(chain);
        extended.add(property.getKey());
        next = extended;
      }
      schema(property.getValue(), depth + 1, next);
      location.removeLast();
    }
  }

  private void annotate(JsonSpan annotation, JsonSpan typeSpan, List<String> chain) {
    String at = ParamHeaders.ANNOTATION + " at " + shown(pointer());
    if (chain == null || chain.isEmpty()) {
      throw new Stop(at + " is not on a property reached through \"properties\" alone");
    }
    if (Json.kind(bytes, annotation) != JsonToken.VALUE_STRING) {
      throw new Stop(at + " is not a string");
    }
    String name = Json.string(bytes, annotation);
    if (name.isEmpty()) {
      throw new Stop(at + " is empty");
    }
    if (!isToken(name)) {
      throw new Stop(at + ", " + shown(name) + ", is not an RFC 9110 token");
    }
    String typeName = Json.kind(bytes, typeSpan) == JsonToken.VALUE_STRING ? Json.string(bytes, typeSpan) : null;
    Type type = Type.of(typeName);
    if (type == null) {
      throw new Stop(
          at
              + ": the property's type is "
              + (typeName == null ? (typeSpan == null ? "absent" : "not one string") : shown(typeName))
              + ", not \"string\", \"integer\" or \"boolean\"");
    }
    String earlier = names.putIfAbsent(name.toLowerCase(Locale.ROOT), name);
    if (earlier != null) {
      throw new Stop(at + ", " + shown(name) + ", repeats " + shown(earlier) + " (compared ignoring case)");
    }
    found.add(new Annotation(name, chain, type));
  }

  private void visit(int depth) {
    if (++nodes > ParamHeaders.MAX_NODES) {
      throw new Stop("the schema has more than " + ParamHeaders.MAX_NODES + " values");
    }
    if (depth > ParamHeaders.MAX_DEPTH) {
      throw new Stop("the schema nests deeper than " + ParamHeaders.MAX_DEPTH + " levels, at " + shown(pointer()));
    }
  }

  /** RFC 9110 {@code token}: one or more {@code tchar}. */
  static boolean isToken(String s) {
    if (s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean tchar =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!tchar) {
        return false;
      }
    }
    return true;
  }

  /** The current location as a JSON Pointer (RFC 6901). */
  private String pointer() {
    StringBuilder p = new StringBuilder();
    for (String token : location) {
      p.append('/').append(token.replace("~", "~0").replace("/", "~1"));
    }
    return p.isEmpty() ? "/" : p.toString();
  }

  /** {@code text} JSON-quoted (control characters escaped, so a log line stays one line), shortened. */
  private static String shown(String text) {
    return Json.quote(text.length() > SHOWN ? text.substring(0, SHOWN) + "..." : text);
  }

  /** Ends the walk with the reason the tool is invalid. */
  private static final class Stop extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Stop(String reason) {
      super(reason, null, false, false);
    }
  }
}
