package dev.mcpstdio.jsonrpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Span-level JSON access on top of Jackson's streaming core (no data binding: it stays off the
 * start-up path, and nothing is re-serialised that does not have to be).
 *
 * <p>Every method that takes a span only looks inside it; offsets returned are absolute offsets in
 * the same byte array.
 */
public final class Json {

  /**
   * Deepest nesting accepted. Scanning costs a parser context per level, so an unbounded depth
   * would let a few megabytes of brackets exhaust the heap; no real message comes near this.
   */
  public static final int MAX_NESTING = 10_000;

  /**
   * One factory for the process. The gateway only scans and copies values, never materialises
   * them, so Jackson's limits on strings, numbers and names (meant for consumers that build
   * trees) are lifted: the message size bound is enforced by the framing layer instead.
   */
  static final JsonFactory FACTORY =
      JsonFactory.builder()
          .streamReadConstraints(
              StreamReadConstraints.builder()
                  .maxNestingDepth(MAX_NESTING)
                  .maxStringLength(Integer.MAX_VALUE)
                  .maxNumberLength(Integer.MAX_VALUE)
                  .maxNameLength(Integer.MAX_VALUE)
                  .build())
          .disable(JsonFactory.Feature.INTERN_FIELD_NAMES)
          // Parsers' buffers are pooled across threads, bounded: the default keeps one set per
          // thread, and every exchange runs on a fresh virtual thread, so nothing was reused.
          .recyclerPool(JsonRecyclerPools.newBoundedPool(64))
          .build();

  private Json() {}

  static JsonParser parser(byte[] bytes, int start, int length) throws IOException {
    return FACTORY.createParser(bytes, start, length);
  }

  /** Absolute start offset of the current token. */
  static int tokenStart(JsonParser p, int base) {
    return base + (int) p.currentTokenLocation().getByteOffset();
  }

  /**
   * Absolute end offset of the current value: call after {@link #finishValue}. For containers the
   * parser sits on the closing bracket; for scalars the token has been read to its end.
   */
  static int valueEnd(JsonParser p, int base) {
    return base + (int) p.currentLocation().getByteOffset();
  }

  /** Consumes the rest of the current value so that {@link #valueEnd} is its end. */
  static void finishValue(JsonParser p) throws IOException {
    JsonToken t = p.currentToken();
    if (t == JsonToken.START_OBJECT || t == JsonToken.START_ARRAY) {
      p.skipChildren();
    } else {
      p.finishToken();
    }
  }

  /**
   * The members of the JSON object in {@code span}, in order, as spans of their values. Returns
   * null when the span does not hold an object. A repeated name keeps its last value, as most JSON
   * readers do.
   */
  public static Map<String, JsonSpan> fields(byte[] bytes, JsonSpan span) {
    java.util.List<Member> members = members(bytes, span);
    if (members == null) {
      return null;
    }
    Map<String, JsonSpan> fields = new LinkedHashMap<>();
    for (Member m : members) {
      fields.put(m.name(), m.value());
    }
    return fields;
  }

  /**
   * One member of an object: its name (decoded), where its name token starts, and its value.
   *
   * @param start the offset of the name's opening quote
   */
  public record Member(String name, int start, JsonSpan value) {}

  /**
   * The members of the JSON object in {@code span}, in order, with where each begins (so a member
   * can be cut out as bytes); null when the span does not hold an object. The project's own
   * scanner, not Jackson: it crosses the long strings that make up nearly all of a large message
   * eight bytes at a time and builds no tokens (2026-era links look members up in megabyte
   * requests and results several times per call).
   */
  public static java.util.List<Member> members(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    JsonScanner s = new JsonScanner(bytes, span.start(), span.end());
    try {
      s.skipWhitespace();
      if (s.atEnd() || s.peek() != '{') {
        return null;
      }
      java.util.List<Member> members = new java.util.ArrayList<>();
      if (s.enterEmpty('}')) {
        return members;
      }
      do {
        int nameStart = s.position();
        int nameEnd = s.skipString();
        boolean escaped = s.lastStringEscaped();
        s.skipWhitespace();
        s.expect(':', "':'");
        s.skipWhitespace();
        int start = s.position();
        s.skipValue();
        members.add(new Member(JsonScanner.decode(bytes, nameStart, nameEnd, escaped), nameStart,
            new JsonSpan(start, s.position())));
      } while (s.nextMember('}'));
      return members;
    } catch (MalformedMessageException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The span of the literal {@code null} when it is the value of the first member {@code name} of
   * the object in {@code span}; else (another value, no such member, not an object) null. Reads
   * the object only up to that member, so a large value after it costs nothing (a {@code tools/call}
   * whose arguments are megabytes is judged by its first bytes).
   */
  public static JsonSpan nullMember(byte[] bytes, JsonSpan span, String name) {
    if (span == null) {
      return null;
    }
    try (JsonParser p = parser(bytes, span.start(), span.length())) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return null;
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        boolean wanted = name.equals(p.currentName());
        JsonToken value = p.nextToken();
        if (wanted) {
          return value == JsonToken.VALUE_NULL
              ? new JsonSpan(tokenStart(p, span.start()), valueEnd(p, span.start()))
              : null;
        }
        finishValue(p);
      }
      return null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The member {@code name} of the object in {@code span}, or null. */
  public static JsonSpan field(byte[] bytes, JsonSpan span, String name) {
    Map<String, JsonSpan> fields = fields(bytes, span);
    return fields == null ? null : fields.get(name);
  }

  /** The elements of the JSON array in {@code span}, or null when it is not an array. */
  public static List<JsonSpan> elements(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    try (JsonParser p = parser(bytes, span.start(), span.length())) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        return null;
      }
      List<JsonSpan> elements = new ArrayList<>();
      while (p.nextToken() != JsonToken.END_ARRAY) {
        int start = tokenStart(p, span.start());
        finishValue(p);
        elements.add(new JsonSpan(start, valueEnd(p, span.start())));
      }
      return elements;
    } catch (IOException e) {
      return null;
    }
  }

  /** The decoded text of the JSON string in {@code span}, or null when it is not a string. */
  public static String string(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    try (JsonParser p = parser(bytes, span.start(), span.length())) {
      return p.nextToken() == JsonToken.VALUE_STRING ? p.getText() : null;
    } catch (IOException e) {
      return null;
    }
  }

  /** The token kind of the value in {@code span}, or null. */
  public static JsonToken kind(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    try (JsonParser p = parser(bytes, span.start(), span.length())) {
      return p.nextToken();
    } catch (IOException e) {
      return null;
    }
  }

  /** Reads the scalar id in {@code span}; null when it is not a string or a number. */
  public static JsonRpcId id(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    try (JsonParser p = parser(bytes, span.start(), span.length())) {
      return readId(p, bytes, span.start());
    } catch (IOException e) {
      return null;
    }
  }

  static JsonRpcId readId(JsonParser p, byte[] bytes, int base) throws IOException {
    JsonToken t = p.currentToken() == null ? p.nextToken() : p.currentToken();
    int start = tokenStart(p, base);
    return switch (t) {
      case VALUE_STRING -> {
        String value = p.getText();
        yield JsonRpcId.ofString(new JsonSpan(start, valueEnd(p, base)).text(bytes), value);
      }
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> {
        String text = p.getText();
        yield JsonRpcId.ofNumber(text);
      }
      default -> null;
    };
  }

  /**
   * True when {@code bytes} (valid UTF-8) hold exactly one well-formed JSON object, whitespace
   * around it allowed; nesting is bounded by {@link #MAX_NESTING}.
   */
  public static boolean isOneObject(byte[] bytes) {
    try {
      JsonScanner s = new JsonScanner(bytes, 0, bytes.length);
      s.skipWhitespace();
      if (s.atEnd() || s.peek() != '{') {
        return false;
      }
      s.skipValue();
      s.skipWhitespace();
      return s.atEnd();
    } catch (MalformedMessageException e) {
      return false;
    }
  }

  /** Serialises {@code text} as a JSON string literal, quotes included. */
  public static String quote(String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(text.length() + 16);
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      g.writeString(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}
