package dev.mcpstdio.protocol;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.math.BigDecimal;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SequencedMap;

/**
 * The {@code Mcp-Param-*} headers of the 2026 era (SEP-2243; spec.md 5.8; mcp-stdio.md 2.11,
 * "Mcp-Param-&lt;Name&gt;"): which tool arguments a tool's {@code inputSchema} asks to see mirrored
 * into headers ({@link #scan}), and the headers a {@code tools/call} then carries ({@link #render}).
 *
 * <p>A client on Streamable HTTP must support them, and must drop a tool whose annotations are
 * invalid from the {@code tools/list} it exposes: {@link Invalid} says so, with a reason for the log
 * line.
 */
public final class ParamHeaders {

  /** The annotation's member name inside a property's schema. */
  public static final String ANNOTATION = "x-mcp-header";

  /**
   * Deepest JSON nesting the scan walks: the root schema is level 0, a value inside k objects or
   * arrays is at level k; a value deeper than this makes the tool invalid.
   */
  public static final int MAX_DEPTH = 64;

  /** Most JSON values the scan visits in one schema; more makes the tool invalid. */
  public static final int MAX_NODES = 10_000;

  /** Largest integer a header may carry, ±(2^53−1): what every JSON peer reads exactly. */
  public static final long MAX_SAFE_INTEGER = (1L << 53) - 1;

  /**
   * Longest number text {@link #render} considers; a longer one is omitted. The bound keeps the
   * arithmetic on a hostile number small; an integer within ±(2^53−1) needs 17 characters, so only a
   * number padded with dozens of zeros (42.000...) is affected.
   */
  public static final int MAX_NUMBER_TEXT = 100;

  private static final BigDecimal MAX_SAFE = BigDecimal.valueOf(MAX_SAFE_INTEGER);

  private ParamHeaders() {}

  /** The property types an annotation may sit on: exactly these JSON Schema {@code type} strings. */
  public enum Type {
    STRING("string"),
    INTEGER("integer"),
    BOOLEAN("boolean");

    private final String schemaName;

    Type(String schemaName) {
      this.schemaName = schemaName;
    }

    /** The {@code type} string of the schema. */
    public String schemaName() {
      return schemaName;
    }

    static Type of(String schemaName) {
      for (Type t : values()) {
        if (t.schemaName.equals(schemaName)) {
          return t;
        }
      }
      return null;
    }
  }

  /**
   * One valid annotation.
   *
   * @param name the annotation's value as written (an RFC 9110 token)
   * @param path the property names from the root schema down to the annotated property, one per
   *     {@code properties} level; also the keys from {@code arguments} down to its value
   * @param type the property's declared type
   */
  public record Annotation(String name, List<String> path, Type type) {

    public Annotation {
      Objects.requireNonNull(name);
      Objects.requireNonNull(type);
      path = List.copyOf(path);
    }

    /** The header this annotation names: {@code Mcp-Param-<name>}. */
    public String headerName() {
      return McpHeaders.PARAM_PREFIX + name;
    }
  }

  /** The outcome of {@link #scan}: a tool's annotations, or why the tool must be dropped. */
  public sealed interface Scan permits Valid, Invalid {}

  /** Every annotation of the schema is valid; in the schema's order (possibly none). */
  public record Valid(List<Annotation> annotations) implements Scan {
    public Valid {
      annotations = List.copyOf(annotations);
    }
  }

  /**
   * The tool must be dropped from the host's {@code tools/list}.
   *
   * @param reason one line for the log; names and locations from the schema are JSON-quoted
   *     (control characters escaped) and shortened
   */
  public record Invalid(String reason) implements Scan {}

  /**
   * The {@code x-mcp-header} annotations of a tool's {@code inputSchema}, or why they are invalid.
   *
   * <p>An annotation is valid only when all of these hold:
   *
   * <ul>
   *   <li>it sits on a property reached from the root through {@code properties} alone
   *       ({@code /properties/a/properties/b}): one found anywhere else ({@code items},
   *       {@code prefixItems}, {@code contains}, {@code anyOf}, {@code oneOf}, {@code allOf},
   *       {@code not}, {@code if}/{@code then}/{@code else}, {@code additionalProperties},
   *       {@code patternProperties}, {@code $defs}, {@code definitions}, {@code dependentSchemas},
   *       any unknown keyword, or the root itself) makes the tool invalid; {@code $ref} is never
   *       followed, so a property that is only a {@code $ref} has no annotation;
   *   <li>its value is a non-empty string of RFC 9110 {@code tchar}s (so no space, no colon, no
   *       control character, no non-ASCII);
   *   <li>the property's {@code type} is exactly the string {@code "string"}, {@code "integer"} or
   *       {@code "boolean"} (not {@code "number"}, not an array of types, not absent);
   *   <li>no other annotation of the schema has the same value, compared ignoring ASCII case.
   * </ul>
   *
   * <p>The values of {@code const}, {@code enum}, {@code default} and {@code examples} are data,
   * not schemas: an {@code x-mcp-header} member inside them is no annotation. The walk is bounded
   * ({@link #MAX_DEPTH}, {@link #MAX_NODES}); a schema past either bound is invalid, but only when
   * it can hold an annotation at all: a schema whose bytes contain neither {@code x-mcp-header} nor
   * a backslash-u escape (through which a member name could spell it) is valid without a walk, so a
   * large schema without annotations is never dropped and costs one byte search.
   *
   * @param inputSchema the span of the tool's {@code inputSchema}; a schema that is not a JSON
   *     object has no annotations
   */
  public static Scan scan(byte[] bytes, JsonSpan inputSchema) {
    if (inputSchema == null
        || !(SchemaWalk.contains(bytes, inputSchema, ANNOTATION) || SchemaWalk.contains(bytes, inputSchema, "\\u"))) {
      return new Valid(List.of());
    }
    return SchemaWalk.run(bytes, inputSchema);
  }

  /**
   * The {@code Mcp-Param-*} headers of a {@code tools/call}, in the order of {@code annotations}:
   * header name → value. Each value is rendered from the argument's JSON type (not the declared
   * one): a string with {@link McpName#encodeParam} (so an empty or unsafe one is base64-encoded),
   * {@code true}/{@code false}, an integer in decimal, a number with no fraction as an integer
   * ({@code 42.0} and {@code 4.2e1} as {@code 42}). Omitted: an absent or {@code null} argument (the
   * specification's rule), and a value no header can carry exactly: an integer beyond
   * ±(2^53−1), a fraction, an object, an array, a number text longer than {@link
   * #MAX_NUMBER_TEXT}. A server that sees such a value in the body without its header answers
   * -32020, which is then the call's clear error.
   *
   * @param arguments the span of {@code params.arguments}; null or not an object gives no headers
   */
  public static SequencedMap<String, String> render(byte[] bytes, JsonSpan arguments, List<Annotation> annotations) {
    SequencedMap<String, String> headers = new LinkedHashMap<>();
    Map<String, JsonSpan> top = Json.fields(bytes, arguments);
    if (top != null) {
      for (Annotation annotation : annotations) {
        String value = render(bytes, lookup(bytes, top, annotation.path()));
        if (value != null) {
          headers.put(annotation.headerName(), value);
        }
      }
    }
    return Collections.unmodifiableSequencedMap(headers);
  }

  private static JsonSpan lookup(byte[] bytes, Map<String, JsonSpan> top, List<String> path) {
    if (path.isEmpty()) {
      return null;
    }
    JsonSpan value = top.get(path.getFirst());
    for (int i = 1; i < path.size() && value != null; i++) {
      value = Json.field(bytes, value, path.get(i));
    }
    return value;
  }

  /** The header value for one argument, or null when it is omitted. */
  static String render(byte[] bytes, JsonSpan value) {
    JsonToken kind = Json.kind(bytes, value);
    if (kind == null) {
      return null;
    }
    return switch (kind) {
      case VALUE_STRING -> McpName.encodeParam(Json.string(bytes, value));
      case VALUE_TRUE -> "true";
      case VALUE_FALSE -> "false";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> integer(value.text(bytes));
      default -> null;
    };
  }

  /** {@code text} (a JSON number) as a decimal integer, or null when it is not one within ±(2^53−1). */
  private static String integer(String text) {
    if (text.length() > MAX_NUMBER_TEXT) {
      return null;
    }
    BigDecimal number;
    try {
      number = new BigDecimal(text);
    } catch (NumberFormatException e) {
      return null;
    }
    // Range first: the comparison looks at exponents, so 1e999999999 costs nothing; then the
    // fraction, on a number whose magnitude is now small.
    if (number.abs().compareTo(MAX_SAFE) > 0) {
      return null;
    }
    BigDecimal stripped = number.stripTrailingZeros();
    if (stripped.scale() > 0) {
      return null;
    }
    return stripped.toBigIntegerExact().toString();
  }
}
