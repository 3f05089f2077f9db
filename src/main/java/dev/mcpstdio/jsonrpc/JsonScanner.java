package dev.mcpstdio.jsonrpc;

import dev.mcpstdio.wire.Swar;
import java.nio.charset.StandardCharsets;

/**
 * A validating cursor over one JSON text (RFC 8259) in UTF-8 bytes, built for the relay's hot
 * path: it never materialises a value, it only finds where each one ends, so the codec can keep
 * spans of the original bytes.
 *
 * <p>Strings, which hold nearly all the bytes of a large message, are crossed eight bytes at a
 * time: a word is only looked at byte by byte when it holds a quote, a backslash or a control
 * character. Nesting is followed with a bit stack instead of recursion, so the depth limit is
 * {@link Json#MAX_NESTING}, not the thread's stack, and a deep message costs bits, not frames.
 *
 * <p>UTF-8 validity is the caller's check ({@code wire.Utf8} runs first on every message from a
 * peer): bytes at or above 0x80 are ordinary string content here, and an error anywhere else.
 */
final class JsonScanner {

  private final byte[] bytes;
  private final int end;
  private int pos;
  private int depth;
  private boolean lastStringEscaped;

  JsonScanner(byte[] bytes, int start, int end) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  int position() {
    return pos;
  }

  boolean atEnd() {
    return pos >= end;
  }

  /** The byte at the cursor; call only when not {@link #atEnd}. */
  byte peek() {
    return bytes[pos];
  }

  void skipWhitespace() {
    while (pos < end) {
      byte c = bytes[pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t') {
        return;
      }
      pos++;
    }
  }

  /** Consumes {@code c}, which must be the next byte. */
  void expect(char c, String what) throws MalformedMessageException {
    if (pos >= end || bytes[pos] != c) {
      throw unexpected(what);
    }
    pos++;
  }

  /** Enters the container whose bracket is at the cursor, counting it against the depth bound. */
  void enter() throws MalformedMessageException {
    if (++depth > Json.MAX_NESTING) {
      throw new MalformedMessageException("nesting depth exceeds " + Json.MAX_NESTING);
    }
    pos++;
  }

  /**
   * Enters the container at the cursor and skips the whitespace inside; when it is empty (the
   * next byte is {@code close}) leaves it again and returns true.
   */
  boolean enterEmpty(char close) throws MalformedMessageException {
    enter();
    skipWhitespace();
    if (pos < end && bytes[pos] == close) {
      leave();
      return true;
    }
    return false;
  }

  void leave() {
    depth--;
    pos++;
  }

  /**
   * Consumes one member separator of the container being read: returns true at {@code ,} (more
   * members follow), false at the closing bracket {@code close} (left), and throws otherwise.
   */
  boolean nextMember(char close) throws MalformedMessageException {
    skipWhitespace();
    if (pos < end && bytes[pos] == ',') {
      pos++;
      skipWhitespace();
      return true;
    }
    if (pos < end && bytes[pos] == close) {
      leave();
      return false;
    }
    throw unexpected("',' or '" + close + "'");
  }

  /**
   * Consumes the string at the cursor and returns the offset just past its closing quote. Whether
   * it held an escape is then {@link #lastStringEscaped}.
   */
  int skipString() throws MalformedMessageException {
    if (pos >= end || bytes[pos] != '"') {
      throw unexpected("a string");
    }
    boolean escaped = false;
    int i = pos + 1;
    for (; ; ) {
      if (i + 8 <= end) {
        long w = Swar.word(bytes, i);
        long flagged = Swar.stringBreaks(w) & ~w; // non-ASCII bytes are plain here
        if (flagged == 0) {
          i += 8;
          continue;
        }
        i += Long.numberOfTrailingZeros(flagged) >>> 3; // the first flagged byte is exact
      } else if (i >= end) {
        pos = i;
        throw new MalformedMessageException("unterminated string");
      }
      int c = bytes[i] & 0xFF;
      if (c == '"') {
        lastStringEscaped = escaped;
        return pos = i + 1;
      }
      if (c == '\\') {
        i = escapeEnd(i);
        escaped = true;
      } else if (c < 0x20) {
        pos = i;
        throw new MalformedMessageException("unescaped control character in a string at byte " + i);
      } else {
        i++;
      }
    }
  }

  boolean lastStringEscaped() {
    return lastStringEscaped;
  }

  private int escapeEnd(int i) throws MalformedMessageException {
    if (i + 1 >= end) {
      pos = i;
      throw new MalformedMessageException("unterminated string");
    }
    switch (bytes[i + 1]) {
      case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> {
        return i + 2;
      }
      case 'u' -> {
        for (int k = i + 2; k < i + 6; k++) {
          if (k >= end || Character.digit(bytes[k], 16) < 0) {
            pos = k;
            throw new MalformedMessageException("invalid \\u escape at byte " + i);
          }
        }
        return i + 6;
      }
      default -> {
        pos = i + 1;
        throw new MalformedMessageException("invalid escape at byte " + i);
      }
    }
  }

  /** Consumes the number at the cursor (RFC 8259 grammar: no leading zeros, no bare dot). */
  void skipNumber() throws MalformedMessageException {
    if (pos < end && bytes[pos] == '-') {
      pos++;
    }
    if (pos < end && bytes[pos] == '0') {
      pos++;
    } else {
      digits("a digit");
    }
    if (pos < end && bytes[pos] == '.') {
      pos++;
      digits("a digit after '.'");
    }
    if (pos < end && (bytes[pos] == 'e' || bytes[pos] == 'E')) {
      pos++;
      if (pos < end && (bytes[pos] == '+' || bytes[pos] == '-')) {
        pos++;
      }
      digits("a digit in the exponent");
    }
  }

  private void digits(String what) throws MalformedMessageException {
    int from = pos;
    while (pos < end && bytes[pos] >= '0' && bytes[pos] <= '9') {
      pos++;
    }
    if (pos == from) {
      throw unexpected(what);
    }
  }

  private void literal(String word) throws MalformedMessageException {
    if (end - pos < word.length()) {
      throw unexpected("'" + word + "'");
    }
    for (int k = 0; k < word.length(); k++) {
      if (bytes[pos + k] != word.charAt(k)) {
        throw unexpected("'" + word + "'");
      }
    }
    pos += word.length();
  }

  /**
   * Consumes the whole value at the cursor, nested containers included. Iterative: each open
   * container is one bit (set for an object) in {@code open}, so no recursion and no allocation
   * for the first 64 levels.
   */
  void skipValue() throws MalformedMessageException {
    int base = depth;
    long open = 0;
    long[] deeper = null; // bits for levels 64 and beyond, allocated only for such depths
    for (; ; ) {
      // A value starts at the cursor.
      if (pos >= end) {
        throw unexpected("a value");
      }
      boolean closed;
      switch (bytes[pos]) {
        case '{' -> {
          enter();
          deeper = push(open, deeper, depth - base - 1, true);
          open = level(open, depth - base - 1, true);
          skipWhitespace();
          if (pos < end && bytes[pos] == '}') {
            leave();
            closed = true;
          } else {
            memberName();
            continue;
          }
        }
        case '[' -> {
          enter();
          deeper = push(open, deeper, depth - base - 1, false);
          open = level(open, depth - base - 1, false);
          skipWhitespace();
          if (pos < end && bytes[pos] == ']') {
            leave();
            closed = true;
          } else {
            continue;
          }
        }
        case '"' -> {
          skipString();
          closed = true;
        }
        case 't' -> {
          literal("true");
          closed = true;
        }
        case 'f' -> {
          literal("false");
          closed = true;
        }
        case 'n' -> {
          literal("null");
          closed = true;
        }
        default -> {
          byte c = bytes[pos];
          if (c != '-' && (c < '0' || c > '9')) {
            throw unexpected("a value");
          }
          skipNumber();
          closed = true;
        }
      }
      // A value ended: close containers until one has another member or the value is done.
      while (closed) {
        int local = depth - base;
        if (local == 0) {
          return;
        }
        boolean object = isObject(open, deeper, local - 1);
        if (nextMember(object ? '}' : ']')) {
          if (object) {
            memberName();
          }
          closed = false;
        }
      }
    }
  }

  /** Consumes {@code "name" :} and the whitespace after it. */
  private void memberName() throws MalformedMessageException {
    skipString();
    skipWhitespace();
    expect(':', "':'");
    skipWhitespace();
  }

  private static long level(long open, int index, boolean object) {
    if (index >= 64) {
      return open;
    }
    return object ? open | (1L << index) : open & ~(1L << index);
  }

  private static long[] push(long open, long[] deeper, int index, boolean object) {
    if (index < 64) {
      return deeper;
    }
    int slot = (index - 64) >>> 6;
    if (deeper == null) {
      deeper = new long[(Json.MAX_NESTING >>> 6) + 1];
    }
    long bit = 1L << (index & 63);
    deeper[slot] = object ? deeper[slot] | bit : deeper[slot] & ~bit;
    return deeper;
  }

  private static boolean isObject(long open, long[] deeper, int index) {
    if (index < 64) {
      return (open & (1L << index)) != 0;
    }
    return (deeper[(index - 64) >>> 6] & (1L << (index & 63))) != 0;
  }

  private MalformedMessageException unexpected(String expected) {
    if (pos >= end) {
      return new MalformedMessageException("unexpected end of input, expected " + expected);
    }
    int c = bytes[pos] & 0xFF;
    String seen = c >= 0x21 && c < 0x7F ? "'" + (char) c + "'" : String.format("byte 0x%02X", c);
    return new MalformedMessageException("unexpected " + seen + " at byte " + pos + ", expected " + expected);
  }

  /**
   * True when the string token in {@code [start, end)} (quotes included, already scanned) is
   * exactly {@code ascii} without escapes. Lets the codec match member names without decoding.
   */
  static boolean rawEquals(byte[] bytes, int start, int end, String ascii) {
    if (end - start - 2 != ascii.length()) {
      return false;
    }
    for (int k = 0; k < ascii.length(); k++) {
      if (bytes[start + 1 + k] != ascii.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  /** The text of the scanned string token in {@code [start, end)} (quotes included). */
  static String decode(byte[] bytes, int start, int end, boolean escaped) {
    if (!escaped) {
      return new String(bytes, start + 1, end - start - 2, StandardCharsets.UTF_8);
    }
    StringBuilder out = new StringBuilder(end - start);
    int run = start + 1;
    int i = run;
    int last = end - 1;
    while (i < last) {
      if (bytes[i] != '\\') {
        i++;
        continue;
      }
      out.append(new String(bytes, run, i - run, StandardCharsets.UTF_8));
      byte e = bytes[i + 1];
      switch (e) {
        case 'b' -> out.append('\b');
        case 'f' -> out.append('\f');
        case 'n' -> out.append('\n');
        case 'r' -> out.append('\r');
        case 't' -> out.append('\t');
        case 'u' -> out.append((char) Integer.parseInt(new String(bytes, i + 2, 4, StandardCharsets.US_ASCII), 16));
        default -> out.append((char) e); // '"', '\\' and '/' stand for themselves
      }
      i += e == 'u' ? 6 : 2;
      run = i;
    }
    out.append(new String(bytes, run, last - run, StandardCharsets.UTF_8));
    return out.toString();
  }
}
