package dev.mcpstdio.jsonrpc;

import dev.mcpstdio.wire.MessageObserver;
import dev.mcpstdio.wire.Swar;

/**
 * Checks one message while its bytes are still arriving, chunk by chunk, and notes where the
 * members of its top-level object are. When the last chunk is in, the message is already known
 * to be well-formed JSON (RFC 8259) in valid UTF-8 (RFC 3629), and {@link #layout()} lets the
 * codec classify it without reading it again: the work a megabyte costs is done while the next
 * chunk is on its way, not after the whole message is in.
 *
 * <p>An accelerator, never a judge: when it has no layout to give (the input is malformed, is not
 * a single object, has more than {@link #MAX_MEMBERS} members, or ended early), the caller
 * classifies the bytes with {@link JsonRpcCodec#parse(byte[])}, which explains what is wrong. It
 * accepts exactly what that path accepts (same grammar, same nesting bound, strict UTF-8), so
 * either way a message gets the same answer.
 *
 * <p>Memory is fixed: a bit per open container (a word for the first 64 levels, more only for a
 * message nested deeper, up to {@link Json#MAX_NESTING}) and five ints per recorded member.
 * Not thread-safe: one scanner reads one stream.
 */
public final class StreamingScanner implements MessageObserver {

  /** Top-level members noted; a message with more is classified by a full scan instead. */
  public static final int MAX_MEMBERS = 32;

  // Where the scanner is in the grammar.
  private static final int START = 0; // before the message: whitespace, then '{'
  private static final int FIRST_KEY = 1; // after '{': a member name or '}'
  private static final int KEY = 2; // after ',' in an object: a member name
  private static final int COLON = 3;
  private static final int VALUE = 4; // after ':', or after ',' in an array
  private static final int FIRST_VALUE = 5; // after '[': a value or ']'
  private static final int AFTER = 6; // a value ended: ',' or the container's closing bracket
  private static final int DONE = 7; // the message ended: only whitespace may follow
  private static final int STRING = 8;
  private static final int ESCAPE = 9; // after a backslash in a string
  private static final int HEX = 10; // in the four digits of a \\u escape
  private static final int UTF8 = 11; // inside a multi-byte character
  private static final int NUMBER = 12;
  private static final int LITERAL = 13; // true, false or null
  private static final int NO_LAYOUT = 14; // malformed, or not a message this scanner lays out

  // Where a number is (RFC 8259 grammar); the ones marked * may end the number.
  private static final int MINUS = 0; // after '-'
  private static final int ZERO = 1; // * a leading 0
  private static final int INTEGER = 2; // * digits after a leading 1-9
  private static final int POINT = 3; // after '.'
  private static final int FRACTION = 4; // * digits after '.'
  private static final int EXPONENT = 5; // after 'e' or 'E'
  private static final int EXPONENT_SIGN = 6; // after the exponent's sign
  private static final int EXPONENT_DIGITS = 7; // * digits of the exponent

  private static final byte[] TRUE = {'t', 'r', 'u', 'e'};
  private static final byte[] FALSE = {'f', 'a', 'l', 's', 'e'};
  private static final byte[] NULL = {'n', 'u', 'l', 'l'};

  private int state;
  private long fed; // bytes fed so far: the absolute offset of the next chunk's first byte
  private long start; // absolute offset of the message's opening brace

  private int depth; // open containers
  private long open; // bit per level (set for an object), levels 0-63
  private long[] deeper; // levels 64 and on, allocated by the first message that deep

  private boolean key; // the string being read is a member name
  private boolean escaped; // the string being read holds an escape
  private int hexLeft;
  private int utf8Left;
  private int utf8Low; // bounds of the next byte of the character being read
  private int utf8High;
  private int number;
  private byte[] literal;
  private int literalAt;

  private MessageLayout layout;
  private long nameStart; // of the top-level member being read
  private long nameEnd;
  private boolean nameEscaped;
  private long valueStart;

  public StreamingScanner() {
    reset();
  }

  /** Forgets the message read so far; the next byte fed is the first of a new one. */
  @Override
  public void reset() {
    state = START;
    fed = 0;
    depth = 0;
    open = 0;
    layout = null;
  }

  /** The caller cannot show this message's bytes: there will be no layout for it. */
  public void abandon() {
    giveUp();
  }

  /**
   * The layout of the message fed since the last {@link #reset}, when it is one complete JSON
   * object (whitespace around it allowed) in valid UTF-8; null otherwise.
   */
  public MessageLayout layout() {
    return state == DONE ? layout : null;
  }

  /** Reads the next {@code length} bytes of the message. */
  @Override
  public void feed(byte[] bytes, int offset, int length) {
    if (state == NO_LAYOUT) {
      return;
    }
    long base = fed - offset; // absolute offset of bytes[0]
    fed += length;
    if (fed > Integer.MAX_VALUE) {
      state = NO_LAYOUT; // larger than any array could hold
      return;
    }
    try {
      scan(bytes, offset, offset + length, base);
    } catch (OutOfMemoryError e) {
      giveUp(); // a layout is only a shortcut: the reader must go on with its line regardless
    }
  }

  private void scan(byte[] bytes, int offset, int end, long base) {
    int i = offset;
    while (i < end && state != NO_LAYOUT) {
      switch (state) {
        case STRING -> i = string(bytes, i, end, base);
        case NUMBER -> i = number(bytes, i, end, base);
        case UTF8 -> i = continuation(bytes, i);
        default -> {
          int c = bytes[i] & 0xFF;
          if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
            if (state > DONE) { // inside a token
              i = token(c, i, base);
            } else {
              i++;
            }
          } else {
            i = token(c, i, base);
          }
        }
      }
    }
  }

  /** Handles one byte outside string contents and numbers; returns the next index. */
  private int token(int c, int i, long base) {
    switch (state) {
      case START -> {
        if (c != '{') {
          return giveUp(); // not one object: the full parse decides what it is
        }
        start = base + i;
        layout = new MessageLayout(8);
        return enter(true, FIRST_KEY, i);
      }
      case FIRST_KEY, KEY -> {
        if (c == '}' && state == FIRST_KEY) {
          close(base + i + 1);
        } else if (c == '"') {
          if (depth == 1) {
            nameStart = base + i;
          }
          beginString(true);
        } else {
          return giveUp();
        }
      }
      case COLON -> {
        if (c != ':') {
          return giveUp();
        }
        state = VALUE;
      }
      case VALUE, FIRST_VALUE -> {
        if (c == ']' && state == FIRST_VALUE) {
          close(base + i + 1);
          return i + 1;
        }
        if (depth == 1) {
          valueStart = base + i;
        }
        switch (c) {
          case '{' -> {
            return enter(true, FIRST_KEY, i);
          }
          case '[' -> {
            return enter(false, FIRST_VALUE, i);
          }
          case '"' -> beginString(false);
          case '-' -> beginNumber(MINUS);
          case '0' -> beginNumber(ZERO);
          case 't' -> beginLiteral(TRUE);
          case 'f' -> beginLiteral(FALSE);
          case 'n' -> beginLiteral(NULL);
          default -> {
            if (c >= '1' && c <= '9') {
              beginNumber(INTEGER);
            } else {
              return giveUp();
            }
          }
        }
      }
      case AFTER -> {
        boolean object = isObject(depth - 1);
        if (c == ',') {
          state = object ? KEY : VALUE;
        } else if (c == (object ? '}' : ']')) {
          close(base + i + 1);
        } else {
          return giveUp();
        }
      }
      case ESCAPE -> {
        switch (c) {
          case '"', '\\', '/', 'b', 'f', 'n', 'r', 't' -> state = STRING;
          case 'u' -> {
            hexLeft = 4;
            state = HEX;
          }
          default -> {
            return giveUp();
          }
        }
      }
      case HEX -> {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
          return giveUp();
        }
        if (--hexLeft == 0) {
          state = STRING;
        }
      }
      case LITERAL -> {
        if (c != literal[literalAt]) {
          return giveUp();
        }
        if (++literalAt == literal.length) {
          valueEnded(base + i + 1);
        }
      }
      default -> {
        return giveUp(); // DONE: content after the message
      }
    }
    return i + 1;
  }

  private void beginString(boolean isKey) {
    key = isKey;
    escaped = false;
    state = STRING;
  }

  private void beginNumber(int first) {
    number = first;
    state = NUMBER;
  }

  private void beginLiteral(byte[] word) {
    literal = word;
    literalAt = 1;
    state = LITERAL;
  }

  /**
   * Reads string contents from {@code i}, eight plain bytes at a time; returns where it stopped:
   * the chunk's end, or just past whatever changed the state.
   */
  private int string(byte[] bytes, int i, int end, long base) {
    for (; ; ) {
      while (i + 8 <= end) {
        long flagged = Swar.stringBreaks(Swar.word(bytes, i));
        if (flagged != 0) {
          i += Long.numberOfTrailingZeros(flagged) >>> 3; // the lowest mark is exact
          break;
        }
        i += 8;
      }
      if (i >= end) {
        return end;
      }
      int c = bytes[i] & 0xFF;
      if (c == '"') {
        stringEnded(base + i + 1);
        return i + 1;
      }
      if (c == '\\') {
        escaped = true;
        state = ESCAPE;
        return i + 1;
      }
      if (c < 0x20) {
        return giveUp(); // a raw control character
      }
      if (c >= 0x80) {
        if (!lead(c)) {
          return giveUp();
        }
        state = UTF8;
        return i + 1;
      }
      i++; // a plain byte in the tail of the chunk, where words no longer fit
    }
  }

  /** Starts a multi-byte character at its lead byte {@code c}; false when no character starts so. */
  private boolean lead(int c) {
    utf8Low = 0x80;
    utf8High = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      utf8Left = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      utf8Left = 2;
      if (c == 0xE0) {
        utf8Low = 0xA0; // no overlong three-byte forms
      } else if (c == 0xED) {
        utf8High = 0x9F; // no surrogates
      }
    } else if (c >= 0xF0 && c <= 0xF4) {
      utf8Left = 3;
      if (c == 0xF0) {
        utf8Low = 0x90; // no overlong four-byte forms
      } else if (c == 0xF4) {
        utf8High = 0x8F; // nothing above U+10FFFF
      }
    } else {
      return false; // a continuation byte, an overlong lead (C0, C1) or beyond F4
    }
    return true;
  }

  private int continuation(byte[] bytes, int i) {
    int c = bytes[i] & 0xFF;
    if (c < utf8Low || c > utf8High) {
      return giveUp();
    }
    utf8Low = 0x80;
    utf8High = 0xBF;
    if (--utf8Left == 0) {
      state = STRING;
    }
    return i + 1;
  }

  private void stringEnded(long end) {
    if (!key) {
      valueEnded(end);
      return;
    }
    if (depth == 1) {
      nameEnd = end;
      nameEscaped = escaped;
    }
    state = COLON;
  }

  /** Reads number bytes from {@code i}; a byte that cannot continue the number ends it, unread. */
  private int number(byte[] bytes, int i, int end, long base) {
    for (; i < end; i++) {
      int c = bytes[i];
      boolean digit = c >= '0' && c <= '9';
      switch (number) {
        case MINUS -> {
          if (!digit) {
            return giveUp();
          }
          number = c == '0' ? ZERO : INTEGER;
        }
        case POINT -> {
          if (!digit) {
            return giveUp();
          }
          number = FRACTION;
        }
        case EXPONENT -> {
          if (c == '+' || c == '-') {
            number = EXPONENT_SIGN;
          } else if (digit) {
            number = EXPONENT_DIGITS;
          } else {
            return giveUp();
          }
        }
        case EXPONENT_SIGN -> {
          if (!digit) {
            return giveUp();
          }
          number = EXPONENT_DIGITS;
        }
        default -> { // ZERO, INTEGER, FRACTION, EXPONENT_DIGITS: the number may end here
          if (digit && number != ZERO) {
            continue;
          }
          if (c == '.' && (number == ZERO || number == INTEGER)) {
            number = POINT;
          } else if ((c == 'e' || c == 'E') && number != EXPONENT_DIGITS) {
            number = EXPONENT;
          } else {
            valueEnded(base + i);
            return i; // the byte after the number is read in the state after it
          }
        }
      }
    }
    return end;
  }

  /** Opens a container whose bracket is at {@code i}; returns the next index. */
  private int enter(boolean object, int next, int i) {
    if (depth == Json.MAX_NESTING) {
      return giveUp();
    }
    if (depth < 64) {
      open = object ? open | (1L << depth) : open & ~(1L << depth);
    } else {
      if (deeper == null) {
        deeper = new long[(Json.MAX_NESTING >>> 6) + 1];
      }
      int slot = (depth - 64) >>> 6;
      long bit = 1L << (depth & 63);
      deeper[slot] = object ? deeper[slot] | bit : deeper[slot] & ~bit;
    }
    depth++;
    state = next;
    return i + 1;
  }

  private boolean isObject(int level) {
    if (level < 64) {
      return (open & (1L << level)) != 0;
    }
    return (deeper[(level - 64) >>> 6] & (1L << (level & 63))) != 0;
  }

  /** Closes the innermost container; {@code end} is just past its closing bracket. */
  private void close(long end) {
    depth--;
    if (depth == 0) {
      layout.close((int) (end - start));
      state = DONE;
    } else {
      valueEnded(end);
    }
  }

  /** A value ended just before {@code end}; a value of the message's own members is noted. */
  private void valueEnded(long end) {
    state = AFTER;
    if (depth == 1) {
      if (layout.members() == MAX_MEMBERS) {
        giveUp();
        return;
      }
      layout.add(
          (int) (nameStart - start), (int) (nameEnd - start), nameEscaped, (int) (valueStart - start), (int) (end - start));
    }
  }

  private int giveUp() {
    state = NO_LAYOUT;
    layout = null;
    return Integer.MAX_VALUE; // ends the chunk's loop
  }
}
