package dev.mcpstdio.jsonrpc;

import java.util.Arrays;

/**
 * Where the members of one JSON object are: for each, the span of its name token (quotes
 * included), whether that name holds an escape, and the span of its value. Offsets are relative
 * to the object's opening brace, so a layout describes the message's bytes once they are trimmed.
 *
 * <p>The codec classifies a message from its layout alone, so a layout found while the bytes
 * arrived ({@link StreamingScanner}) spares the whole message a second pass. A layout only ever
 * comes from a scan that found the object well-formed (and, when streamed, valid UTF-8).
 */
public final class MessageLayout {

  private static final int FIELDS = 5; // name start, name end, escaped (0/1), value start, value end

  private int[] spans;
  private int count;
  private int length = -1; // the object's length; -1 until it is closed

  MessageLayout(int capacity) {
    spans = new int[Math.max(1, capacity) * FIELDS];
  }

  void add(int nameStart, int nameEnd, boolean nameEscaped, int valueStart, int valueEnd) {
    int at = count * FIELDS;
    if (at == spans.length) {
      spans = Arrays.copyOf(spans, spans.length * 2);
    }
    spans[at] = nameStart;
    spans[at + 1] = nameEnd;
    spans[at + 2] = nameEscaped ? 1 : 0;
    spans[at + 3] = valueStart;
    spans[at + 4] = valueEnd;
    count++;
  }

  void close(int length) {
    this.length = length;
  }

  /** The object's length in bytes, from its opening to its closing brace. */
  public int length() {
    return length;
  }

  int members() {
    return count;
  }

  int nameStart(int member) {
    return spans[member * FIELDS];
  }

  int nameEnd(int member) {
    return spans[member * FIELDS + 1];
  }

  boolean nameEscaped(int member) {
    return spans[member * FIELDS + 2] != 0;
  }

  int valueStart(int member) {
    return spans[member * FIELDS + 3];
  }

  int valueEnd(int member) {
    return spans[member * FIELDS + 4];
  }
}
