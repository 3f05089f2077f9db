package dev.mcpstdio.wire;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * An incremental decoder for {@code text/event-stream}, following the WHATWG HTML "event stream
 * interpretation" rules.
 *
 * <p>Bytes may arrive split anywhere, including inside a CRLF pair or a UTF-8 sequence. Lines end
 * at CR, LF or CRLF only: U+2028, U+2029 and U+0085 are ordinary data, as they must be inside
 * JSON. One leading byte-order mark is dropped. Comment lines and unknown fields are ignored. The
 * {@code id} and {@code retry} fields are tracked for reconnection. Events with empty data are not
 * dispatched (MCP uses them to prime a stream with an id). Unlike a browser, a final event that the
 * stream did not terminate with a blank line is still dispatched by {@link #finish()}: a server
 * that closes right after its last {@code data:} line must not lose the message.
 *
 * <p>Memory is bounded: a line or an event's data longer than {@code maxEventBytes} fails with
 * {@link SseException}.
 *
 * <p>Large events are cheap: lines are found eight bytes at a time, and a {@code data:} line's
 * value goes straight into the event's data as it arrives (where an observer may look at it),
 * not through the line buffer.
 */
public final class SseDecoder {

  /** The decoder gave up on the stream. */
  public static final class SseException extends IOException {
    public SseException(String message) {
      super(message);
    }
  }

  /** Buffers up to this size are reused from event to event. */
  static final int RETAINED_BUFFER = 4 << 20;

  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private static final byte[] DATA_FIELD = {'d', 'a', 't', 'a', ':'};

  private final long maxEventBytes;
  private final Consumer<SseEvent> listener;
  private final MessageObserver observer; // sees each event's data as it arrives, or null

  private static final int SCRATCH = 16 * 1024;

  private byte[] scratch; // for buffers without an accessible array; feed never keeps its input
  private byte[] line = new byte[256];
  private int lineLength;
  private boolean lastWasCr;
  private boolean dataLine; // the line is a data: line whose value goes straight to data
  private boolean spaceMayFollow; // ... and the one space allowed after the colon is yet to come
  private int bomMatched; // bytes of a leading BOM seen so far; -1 once past the start

  private byte[] data = new byte[256];
  private int dataLength;
  private long expected; // the stream's declared length, or 0: the size data grows to at once
  private long declared = -1; // the stream's declared length, or -1
  private long fed; // stream bytes fed before the current chunk
  private byte[] chunk; // the chunk being fed, and where it starts in its array
  private int chunkStart;
  private long valueEnd; // stream position just past the data value bytes appended last
  private boolean pendingLf; // a data line ended: an LF joins it to the next one, if one comes
  private boolean hasData;
  private String eventType = "";
  private String lastEventIdBuffer = "";
  private String lastEventId; // committed at each event boundary
  private long retryMillis = -1;

  /**
   * @param maxEventBytes bound on one line and on one event's data; 0 means no bound
   */
  public SseDecoder(long maxEventBytes, Consumer<SseEvent> listener) {
    this(maxEventBytes, null, listener);
  }

  /**
   * @param observer sees each event's data as it arrives (data lines joined by LF: exactly the
   *     data the event delivers), and is reset after each event has gone to the listener; or null
   */
  public SseDecoder(long maxEventBytes, MessageObserver observer, Consumer<SseEvent> listener) {
    this.maxEventBytes = maxEventBytes <= 0 ? Integer.MAX_VALUE - 16 : maxEventBytes;
    this.listener = listener;
    this.observer = observer;
  }

  /**
   * The stream's declared length ({@code Content-Length}), when it has one: no event is longer, so
   * the first event's data is given that much room at once instead of growing to it by doubling
   * (each step a copy, and garbage, of everything so far). Up to {@link #PRESIZE_MAX}: a stream
   * that declares much and sends little must not pin memory.
   */
  public void expectAtMost(long streamLength) {
    this.expected = Math.min(Math.min(Math.max(0, streamLength), maxEventBytes + 1), PRESIZE_MAX);
    this.declared = streamLength > 0 ? streamLength : -1;
  }

  /** The most room given to an event's data up front. */
  public static final int PRESIZE_MAX = 2 << 20;

  /** The id to resume from ({@code Last-Event-ID}), or null when the server gave none. */
  public String lastEventId() {
    return lastEventId == null || lastEventId.isEmpty() ? null : lastEventId;
  }

  /** The reconnection delay the server asked for with {@code retry:}, or -1. */
  public long retryMillis() {
    return retryMillis;
  }

  public void feed(ByteBuffer buffer) throws SseException {
    if (buffer.hasArray()) {
      feed(buffer.array(), buffer.arrayOffset() + buffer.position(), buffer.remaining());
      buffer.position(buffer.limit());
    } else {
      // A read-only or direct buffer: through a reused scratch array, a piece at a time.
      if (scratch == null) {
        scratch = new byte[SCRATCH];
      }
      while (buffer.hasRemaining()) {
        int n = Math.min(SCRATCH, buffer.remaining());
        buffer.get(scratch, 0, n);
        feed(scratch, 0, n);
      }
    }
  }

  public void feed(byte[] bytes, int offset, int length) throws SseException {
    chunk = bytes;
    chunkStart = offset;
    try {
      feedChunk(bytes, offset, length);
    } finally {
      fed += length;
      chunk = null;
    }
  }

  private void feedChunk(byte[] bytes, int offset, int length) throws SseException {
    int end = offset + length;
    int i = offset;
    while (i < end && bomMatched >= 0) {
      if (bytes[i] == BOM[bomMatched]) {
        i++;
        if (++bomMatched == BOM.length) {
          bomMatched = -1;
        }
      } else {
        // Not a BOM after all: the bytes matched so far are content.
        appendLine(BOM, 0, bomMatched);
        bomMatched = -1;
      }
    }
    int runStart = i;
    while (i < end) {
      if (lastWasCr) {
        lastWasCr = false;
        if (bytes[i] == '\n') { // the LF of a CRLF whose CR ended the line already
          runStart = ++i;
          continue;
        }
      }
      int stop = Swar.indexOfEither(bytes, (byte) '\n', (byte) '\r', i, end);
      if (stop < 0) {
        break;
      }
      appendLine(bytes, runStart, stop - runStart);
      endLine();
      lastWasCr = bytes[stop] == '\r';
      runStart = i = stop + 1;
    }
    appendLine(bytes, runStart, end - runStart);
  }

  /** End of stream: a pending line and a pending event are delivered. */
  public void finish() throws SseException {
    if (bomMatched > 0) {
      appendLine(BOM, 0, bomMatched);
      bomMatched = -1;
    }
    if (lineLength > 0 || dataLine) {
      endLine();
    }
    if (hasData) {
      dispatch();
    }
  }

  private void appendLine(byte[] bytes, int offset, int length) throws SseException {
    if (length == 0) {
      return;
    }
    if (bytes == chunk) {
      valueEnd = fed + (offset + length - chunkStart);
    }
    if (dataLine) {
      if (spaceMayFollow) {
        spaceMayFollow = false;
        if (bytes[offset] == ' ') {
          offset++;
          length--;
        }
      }
      appendValue(bytes, offset, length);
      return;
    }
    if (lineLength + (long) length > maxEventBytes + 16) {
      throw new SseException("server-sent event line exceeds " + maxEventBytes + " bytes");
    }
    if (lineLength + length > line.length) {
      line = Arrays.copyOf(line, Math.max(line.length * 2, lineLength + length));
    }
    System.arraycopy(bytes, offset, line, lineLength, length);
    lineLength += length;
    if (lineLength >= DATA_FIELD.length && lineLength - length < DATA_FIELD.length && startsWithDataField()) {
      // A data: line: its value goes straight to the event's data from here on.
      dataLine = true;
      int valueStart = DATA_FIELD.length;
      if (lineLength == valueStart) {
        spaceMayFollow = true;
      } else if (line[valueStart] == ' ') {
        valueStart++;
      }
      appendValue(line, valueStart, lineLength - valueStart);
      lineLength = 0;
    }
  }

  private boolean startsWithDataField() {
    for (int k = 0; k < DATA_FIELD.length; k++) {
      if (line[k] != DATA_FIELD[k]) {
        return false;
      }
    }
    return true;
  }

  /** Adds bytes of the current data line's value to the event's data. */
  private void appendValue(byte[] bytes, int offset, int length) throws SseException {
    if (length == 0) {
      return;
    }
    joinLines();
    ensureRoom(length);
    System.arraycopy(bytes, offset, data, dataLength, length);
    dataLength += length;
    if (observer != null) {
      observer.feed(bytes, offset, length);
    }
  }

  /**
   * Room for {@code length} more bytes of data. The data grows by doubling, but never past what
   * the stream declared it still holds (the rest of the stream, less its last blank line): a lone
   * 9 MB event in a stream that says so gets an array of exactly its size, which is then handed
   * over as the event's data without another copy.
   */
  private void ensureRoom(int length) throws SseException {
    int needed = dataLength + length;
    if (needed > maxEventBytes) {
      throw new SseException("server-sent event exceeds " + maxEventBytes + " bytes");
    }
    if (needed > data.length) {
      long grown = Math.max(data.length * 2L, expected);
      if (declared > 0) {
        long rest = Math.max(0, declared - valueEnd);
        grown = Math.min(grown, needed + Math.max(0, rest - 2)); // "\n\n" ends the event
      }
      data = Arrays.copyOf(data, (int) Math.min(Math.max(grown, needed), maxEventBytes));
      expected = 0; // a stream declared longer than its events must not pin that much twice
    }
  }

  private static final byte[] LF = {'\n'};

  /** A data line that follows another is joined to it by an LF. */
  private void joinLines() throws SseException {
    if (pendingLf) {
      pendingLf = false;
      ensureRoom(1);
      data[dataLength++] = '\n';
      if (observer != null) {
        observer.feed(LF, 0, 1);
      }
    }
  }

  /** Ends the current data line; the LF that would join it to a next one is written only then. */
  private void endValue() throws SseException {
    joinLines(); // an empty data line after another still adds its LF
    pendingLf = true;
    hasData = true;
  }

  private void endLine() throws SseException {
    if (dataLine) {
      dataLine = false;
      spaceMayFollow = false;
      endValue();
      return;
    }
    int length = lineLength;
    lineLength = 0;
    if (length == 0) {
      dispatch();
      return;
    }
    if (line[0] == ':') {
      return; // comment
    }
    int colon = -1;
    for (int k = 0; k < length; k++) {
      if (line[k] == ':') {
        colon = k;
        break;
      }
    }
    int nameEnd = colon < 0 ? length : colon;
    int valueStart = colon < 0 ? length : colon + 1;
    if (valueStart < length && line[valueStart] == ' ') {
      valueStart++;
    }
    int valueLength = length - valueStart;
    if (is("data", nameEnd)) {
      appendData(valueStart, valueLength);
    } else if (is("event", nameEnd)) {
      eventType = new String(line, valueStart, valueLength, StandardCharsets.UTF_8);
    } else if (is("id", nameEnd)) {
      String id = new String(line, valueStart, valueLength, StandardCharsets.UTF_8);
      if (id.indexOf('\0') < 0) {
        lastEventIdBuffer = id;
      }
    } else if (is("retry", nameEnd)) {
      parseRetry(valueStart, valueLength);
    }
  }

  private boolean is(String name, int nameLength) {
    if (name.length() != nameLength) {
      return false;
    }
    for (int k = 0; k < nameLength; k++) {
      if (line[k] != name.charAt(k)) {
        return false;
      }
    }
    return true;
  }

  private void appendData(int valueStart, int valueLength) throws SseException {
    appendValue(line, valueStart, valueLength);
    endValue();
  }

  private void parseRetry(int valueStart, int valueLength) {
    if (valueLength == 0 || valueLength > 12) {
      return;
    }
    long value = 0;
    for (int k = valueStart; k < valueStart + valueLength; k++) {
      byte b = line[k];
      if (b < '0' || b > '9') {
        return;
      }
      value = value * 10 + (b - '0');
    }
    retryMillis = value;
  }

  private void dispatch() {
    lastEventId = lastEventIdBuffer;
    boolean deliver = hasData && dataLength > 0;
    byte[] payload = null;
    if (deliver && dataLength == data.length) {
      payload = data; // sized exactly (see ensureRoom): handed over, not copied
      data = new byte[256];
    } else if (deliver) {
      payload = Arrays.copyOf(data, dataLength);
    }
    String type = eventType.isEmpty() ? "message" : eventType;
    hasData = false;
    pendingLf = false;
    dataLength = 0;
    eventType = "";
    if (data.length > RETAINED_BUFFER) {
      data = new byte[256]; // do not pin a large buffer after one very large event
    }
    if (line.length > RETAINED_BUFFER) {
      line = new byte[256];
    }
    if (deliver) {
      listener.accept(new SseEvent(type, payload, lastEventId()));
    }
    if (observer != null) {
      observer.reset(); // after the listener, which may ask the observer about this event
    }
  }
}
