package dev.mcpstdio.jsonrpc;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import java.io.IOException;
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
   * the object only up to that member's first byte, so a large value after it, or the member's own
   * large value, costs nothing (a {@code tools/call} whose arguments are megabytes is judged by its
   * first bytes).
   */
  public static JsonSpan nullMember(byte[] bytes, JsonSpan span, String name) {
    JsonScanner s = valueAt(bytes, span);
    try {
      if (s == null || s.peek() != '{' || s.enterEmpty('}')) {
        return null;
      }
      do {
        int nameStart = s.position();
        int nameEnd = s.skipString();
        boolean wanted = JsonScanner.decode(bytes, nameStart, nameEnd, s.lastStringEscaped()).equals(name);
        s.skipWhitespace();
        s.expect(':', "':'");
        s.skipWhitespace();
        if (wanted) {
          int start = s.position();
          if (s.atEnd() || s.peek() != 'n') {
            return null;
          }
          s.skipValue();
          return new JsonSpan(start, s.position());
        }
        s.skipValue();
      } while (s.nextMember('}'));
      return null;
    } catch (MalformedMessageException | RuntimeException e) {
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
    JsonScanner s = valueAt(bytes, span);
    try {
      if (s == null || s.peek() != '[') {
        return null;
      }
      List<JsonSpan> elements = new ArrayList<>();
      if (s.enterEmpty(']')) {
        return elements;
      }
      do {
        int start = s.position();
        s.skipValue();
        elements.add(new JsonSpan(start, s.position()));
      } while (s.nextMember(']'));
      return elements;
    } catch (MalformedMessageException | RuntimeException e) {
      return null;
    }
  }

  /** The decoded text of the JSON string in {@code span}, or null when it is not a string. */
  public static String string(byte[] bytes, JsonSpan span) {
    JsonScanner s = valueAt(bytes, span);
    try {
      if (s == null || s.peek() != '"') {
        return null;
      }
      int start = s.position();
      int end = s.skipString();
      return JsonScanner.decode(bytes, start, end, s.lastStringEscaped());
    } catch (MalformedMessageException | RuntimeException e) {
      return null;
    }
  }

  /**
   * The token kind of the value in {@code span}, or null when none starts there. A container is
   * judged by its bracket alone (as a streaming parser's first token is); a scalar is read whole.
   */
  public static JsonToken kind(byte[] bytes, JsonSpan span) {
    JsonScanner s = valueAt(bytes, span);
    if (s == null) {
      return null;
    }
    byte first = s.peek();
    if (first == '{') {
      return JsonToken.START_OBJECT;
    }
    if (first == '[') {
      return JsonToken.START_ARRAY;
    }
    int start = s.position();
    try {
      s.skipValue();
    } catch (MalformedMessageException | RuntimeException e) {
      return null;
    }
    return switch (first) {
      case '"' -> JsonToken.VALUE_STRING;
      case 't' -> JsonToken.VALUE_TRUE;
      case 'f' -> JsonToken.VALUE_FALSE;
      case 'n' -> JsonToken.VALUE_NULL;
      default -> isInteger(bytes, start, s.position()) ? JsonToken.VALUE_NUMBER_INT : JsonToken.VALUE_NUMBER_FLOAT;
    };
  }

  /** Reads the scalar id in {@code span}; null when it is not a string or a number. */
  public static JsonRpcId id(byte[] bytes, JsonSpan span) {
    JsonScanner s = valueAt(bytes, span);
    try {
      if (s == null) {
        return null;
      }
      byte first = s.peek();
      int start = s.position();
      if (first == '"') {
        int end = s.skipString();
        return JsonRpcId.ofString(new JsonSpan(start, end).text(bytes), JsonScanner.decode(bytes, start, end, s.lastStringEscaped()));
      }
      if (first == '-' || (first >= '0' && first <= '9')) {
        s.skipNumber();
        return JsonRpcId.ofNumber(new String(bytes, start, s.position() - start, StandardCharsets.US_ASCII));
      }
      return null;
    } catch (MalformedMessageException | RuntimeException e) {
      return null;
    }
  }

  /** A scanner on the first byte of the value in {@code span}; null when the span is null or blank. */
  private static JsonScanner valueAt(byte[] bytes, JsonSpan span) {
    if (span == null) {
      return null;
    }
    JsonScanner s = new JsonScanner(bytes, span.start(), span.end());
    s.skipWhitespace();
    return s.atEnd() ? null : s;
  }

  /** Whether the number token in {@code [start, end)} has neither a fraction nor an exponent. */
  private static boolean isInteger(byte[] bytes, int start, int end) {
    for (int i = start; i < end; i++) {
      if (bytes[i] == '.' || bytes[i] == 'e' || bytes[i] == 'E') {
        return false;
      }
    }
    return true;
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

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /**
   * Serialises {@code text} as a JSON string literal, quotes included. The quote and the backslash
   * are escaped, the control characters below U+0020 by their short escapes (b, t, n, f, r) or as
   * six-character escapes with upper-case hex digits (as Jackson's generator writes them), and
   * every other character is itself (UTF-8 once written out). A lone surrogate, which UTF-8 cannot
   * carry, is written as its six-character escape rather than lost or refused: this quotes error
   * messages, which may repeat what a peer sent.
   */
  public static String quote(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16).append('"');
    int n = text.length();
    for (int i = 0; i < n; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\t' -> out.append("\\t");
        case '\n' -> out.append("\\n");
        case '\f' -> out.append("\\f");
        case '\r' -> out.append("\\r");
        default -> {
          boolean lone = Character.isHighSurrogate(c) ? i + 1 >= n || !Character.isLowSurrogate(text.charAt(i + 1))
              : Character.isLowSurrogate(c) && (i == 0 || !Character.isHighSurrogate(text.charAt(i - 1)));
          if (c < 0x20 || lone) {
            out.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xF]).append(HEX[(c >> 4) & 0xF]).append(HEX[c & 0xF]);
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }
}
