package dev.mcpstdio.wire;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

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

  /**
   * A line is gathered in blocks of this size and assembled once at its end: a large line costs
   * twice its size at the peak (blocks, then the line), never more.
   */
  static final int BLOCK = 64 * 1024;

  /**
   * Blocks kept for the next long line (1 MiB): a stream of large messages then costs one array
   * per message instead of two, and what is kept past a larger line is bounded.
   */
  static final int SPARE_BLOCKS = 16;

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
  private final MessageObserver observer;
  private final long maxLineBytes;
  private final long bufferBound; // maxLineBytes plus one byte for the CR of a CRLF
  private final byte[] buffer = new byte[64 * 1024];
  private int position;
  private int limit;
  private boolean eof;

  private final List<byte[]> blocks = new ArrayList<>(); // full blocks
  private final ArrayDeque<byte[]> spare = new ArrayDeque<>(); // at most SPARE_BLOCKS
  private byte[] line = new byte[BLOCK]; // the block being filled
  private int lineLength; // bytes in the block being filled
  private long kept; // bytes kept of the current line, all blocks included
  private long skipped; // bytes dropped from the current line once it passed the bound
  private boolean oversized;
  private boolean memoryExhausted;
  private byte lastByte; // the last byte of the current line, kept or skipped

  /**
   * @param maxLineBytes the longest line returned as {@link Line.Text}; 0 means no bound
   */
  public LineReader(InputStream in, long maxLineBytes) {
    this(in, maxLineBytes, null);
  }

  /**
   * @param maxLineBytes the longest line returned as {@link Line.Text}; 0 means no bound
   * @param observer sees every line's bytes as they are read (the terminator excluded; the CR of
   *     a CRLF may be among them), or null; a line that passes the bound is not fed further
   */
  public LineReader(InputStream in, long maxLineBytes, MessageObserver observer) {
    this.in = in;
    this.observer = observer;
    this.maxLineBytes = maxLineBytes <= 0 ? Long.MAX_VALUE : maxLineBytes;
    this.bufferBound = this.maxLineBytes == Long.MAX_VALUE ? Long.MAX_VALUE : this.maxLineBytes + 1;
  }

  /** The next line, or null at end of stream. */
  public Line next() throws IOException {
    blocks.clear();
    lineLength = 0;
    kept = 0;
    skipped = 0;
    memoryExhausted = false;
    oversized = false;
    lastByte = 0;
    if (observer != null) {
      observer.reset();
    }
    boolean sawAny = false;
    while (true) {
      if (position == limit) {
        if (sawAny && !eof && roomInBlock()) {
          int lf = readIntoBlock();
          if (lf == NO_END) {
            continue;
          }
          return finish(); // at the LF, or at the end of the stream
        }
        if (eof || !fill()) {
          return sawAny ? finish() : null;
        }
      }
      sawAny = true;
      int lf = Swar.indexOf(buffer, (byte) '\n', position, limit);
      int end = lf < 0 ? limit : lf;
      if (observer != null && !oversized) {
        observer.feed(buffer, position, end - position);
      }
      append(buffer, position, end - position);
      position = lf < 0 ? limit : lf + 1;
      if (lf >= 0) {
        return finish();
      }
    }
  }

  private static final int NO_END = -2;

  /**
   * Whether the rest of a long line can be read straight into its block (sparing the copy out of
   * the buffer): the line is within its bound and a block with room is at hand. False sends the
   * read through the buffer, whose copy handles the bound and a heap that cannot hold the line.
   */
  private boolean roomInBlock() {
    if (oversized || kept + BLOCK > bufferBound) {
      return false;
    }
    if (lineLength < line.length) {
      return true;
    }
    try {
      nextBlock(spare.isEmpty() ? new byte[BLOCK] : spare.pop());
    } catch (OutOfMemoryError e) {
      return false;
    }
    return true;
  }

  /** The full block joins the line's blocks; {@code next} is filled from here on. */
  private void nextBlock(byte[] next) {
    blocks.add(line);
    line = next;
    lineLength = 0;
  }

  /**
   * Reads into the current block. Returns {@link #NO_END} when the line goes on; otherwise the
   * line is complete (its LF was read, or the stream ended) and bytes read past the LF are left
   * in the buffer for the next line.
   */
  private int readIntoBlock() throws IOException {
    int from = lineLength;
    int n = in.read(line, from, line.length - from);
    if (n < 0) {
      eof = true;
      return -1;
    }
    int lf = Swar.indexOf(line, (byte) '\n', from, from + n);
    int end = lf < 0 ? from + n : lf;
    if (observer != null) {
      observer.feed(line, from, end - from);
    }
    if (end > from) {
      lastByte = line[end - 1];
    }
    lineLength = end;
    kept += end - from;
    if (lf < 0) {
      return NO_END;
    }
    int rest = from + n - (lf + 1);
    System.arraycopy(line, lf + 1, buffer, 0, rest);
    position = 0;
    limit = rest;
    return lf;
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
    if (oversized || kept + length > bufferBound) {
      oversized = true;
      int room = (int) Math.max(0, Math.min(length, HEAD_BYTES - kept));
      copy(source, offset, room);
      skipped += length - room;
      return;
    }
    try {
      copy(source, offset, length);
    } catch (OutOfMemoryError e) {
      // The heap cannot hold this line: treat it like one over the bound (keep the head, skip the
      // rest), so it is answered with its id and the lines after it are read as usual.
      byte[] head = blocks.isEmpty() ? line : blocks.get(0);
      blocks.clear();
      line = head;
      lineLength = (int) Math.min(kept, Math.min(head.length, HEAD_BYTES));
      skipped += kept - lineLength + length;
      kept = lineLength;
      oversized = true;
      memoryExhausted = true;
    }
  }

  /** True when the last line was reported oversized because the heap could not hold it. */
  public boolean memoryExhausted() {
    return memoryExhausted;
  }

  private void copy(byte[] source, int offset, int length) {
    while (length > 0) {
      if (lineLength == line.length) {
        nextBlock(spare.isEmpty() ? new byte[BLOCK] : spare.pop());
      }
      int n = Math.min(length, line.length - lineLength);
      System.arraycopy(source, offset, line, lineLength, n);
      lineLength += n;
      kept += n;
      offset += n;
      length -= n;
    }
  }

  /** The first {@code length} kept bytes of the line, as one array. */
  private byte[] assemble(int length) {
    byte[] out = new byte[length];
    int at = 0;
    for (byte[] block : blocks) {
      int n = Math.min(block.length, length - at);
      System.arraycopy(block, 0, out, at, n);
      at += n;
      if (at == length) {
        return out;
      }
    }
    System.arraycopy(line, 0, out, at, length - at);
    return out;
  }

  private Line finish() {
    long length = kept + skipped;
    if (length > 0 && lastByte == '\r') {
      length--; // the CR of a CRLF (or of a final line) is not part of the line
    }
    if (length > maxLineBytes) {
      oversized = true; // the byte kept for a CR was content after all
    }
    Line result =
        oversized
            ? new Line.Oversized(assemble((int) Math.min(Math.min(kept, length), HEAD_BYTES)), length)
            : new Line.Text(assemble((int) length));
    // The line was copied out: its blocks are free again (the one being filled stays in use).
    for (byte[] block : blocks) {
      if (spare.size() < SPARE_BLOCKS) {
        spare.push(block);
      }
    }
    blocks.clear();
    return result;
  }

}
