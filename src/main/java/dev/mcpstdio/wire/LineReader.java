package dev.mcpstdio.wire;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads newline-delimited lines of bytes with a bounded length.
 *
 * <p>A line ends at LF; one CR before the LF is dropped, so CRLF input works. A final line without
 * a terminator is still returned. A line longer than the bound is not buffered: the reader keeps
 * its first {@link #HEAD_BYTES} bytes (enough to find the id of the message that was too large),
 * skips the rest up to the next LF and reports it as {@link Line.Oversized}, so one bad line never
 * costs more memory than the bound and never loses the lines after it.
 */
public final class LineReader {

  /** Line buffers up to this size are reused from line to line; larger ones are let go. */
  static final int RETAINED_BUFFER = 4 << 20;

  /** How much of an oversized line is kept for diagnosis. */
  public static final int HEAD_BYTES = 64 * 1024;

  /** One line read from the stream. */
  public sealed interface Line {
    /** A line within the bound, without its terminator. */
    record Text(byte[] bytes) implements Line {}

    /** A line over the bound: its first bytes and its full length. */
    record Oversized(byte[] head, long length) implements Line {}
  }

  private final InputStream in;
  private final long maxLineBytes;
  private final long bufferBound; // maxLineBytes plus one byte for the CR of a CRLF
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;
  private boolean eof;

  private byte[] line = new byte[1024];
  private int lineLength;
  private long skipped; // bytes dropped from the current line once it passed the bound
  private boolean oversized;
  private byte lastByte; // the last byte of the current line, kept or skipped

  /**
   * @param maxLineBytes the longest line returned as {@link Line.Text}; 0 means no bound
   */
  public LineReader(InputStream in, long maxLineBytes) {
    this.in = in;
    this.maxLineBytes = maxLineBytes <= 0 ? Long.MAX_VALUE : maxLineBytes;
    this.bufferBound = this.maxLineBytes == Long.MAX_VALUE ? Long.MAX_VALUE : this.maxLineBytes + 1;
  }

  /** The next line, or null at end of stream. */
  public Line next() throws IOException {
    lineLength = 0;
    skipped = 0;
    oversized = false;
    lastByte = 0;
    boolean sawAny = false;
    while (true) {
      if (position == limit) {
        if (eof || !fill()) {
          return sawAny ? finish() : null;
        }
      }
      sawAny = true;
      int lf = indexOf(buffer, (byte) '\n', position, limit);
      int end = lf < 0 ? limit : lf;
      append(buffer, position, end - position);
      position = lf < 0 ? limit : lf + 1;
      if (lf >= 0) {
        return finish();
      }
    }
  }

  private boolean fill() throws IOException {
    int n = in.read(buffer, 0, buffer.length);
    if (n < 0) {
      eof = true;
      return false;
    }
    position = 0;
    limit = n;
    return true;
  }

  private void append(byte[] source, int offset, int length) {
    if (length > 0) {
      lastByte = source[offset + length - 1];
    }
    if (oversized || lineLength + (long) length > bufferBound) {
      oversized = true;
      int room = Math.max(0, Math.min(length, HEAD_BYTES - lineLength));
      copy(source, offset, room);
      skipped += length - room;
      return;
    }
    copy(source, offset, length);
  }

  private void copy(byte[] source, int offset, int length) {
    if (length == 0) {
      return;
    }
    if (lineLength + length > line.length) {
      long wanted = Math.max((long) line.length * 2, (long) lineLength + length);
      line = Arrays.copyOf(line, (int) Math.min(wanted, Integer.MAX_VALUE - 8));
    }
    System.arraycopy(source, offset, line, lineLength, length);
    lineLength += length;
  }

  private Line finish() {
    long length = lineLength + skipped;
    if (length > 0 && lastByte == '\r') {
      length--; // the CR of a CRLF (or of a final line) is not part of the line
    }
    if (length > maxLineBytes) {
      oversized = true; // the byte kept for a CR was content after all
    }
    Line result =
        oversized
            ? new Line.Oversized(
                Arrays.copyOf(line, (int) Math.min(Math.min(lineLength, length), HEAD_BYTES)), length)
            : new Line.Text(Arrays.copyOf(line, (int) length));
    if (line.length > RETAINED_BUFFER) {
      line = new byte[1024]; // do not pin a large buffer after one very large message
    }
    return result;
  }

  private static int indexOf(byte[] bytes, byte b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
