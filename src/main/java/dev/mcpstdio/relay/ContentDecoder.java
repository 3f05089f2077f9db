package dev.mcpstdio.relay;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Locale;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Inflater;

/**
 * Push-style decoding of a response body's {@code Content-Encoding}: identity, {@code gzip} or
 * {@code deflate} (zlib, or raw deflate as some servers send it).
 *
 * <p>Decompressed output is bounded: a small compressed body cannot expand past the limit (a
 * "zip bomb" fails with {@link TooLargeException} instead of exhausting memory).
 */
abstract class ContentDecoder {

  /**
   * Receives decoded bytes. Each chunk is the sink's to keep: the decoder never writes to it again
   * (an identity body passes the HTTP client's own buffers through, which the client does not
   * reuse either), so a sink may hold chunks and join them once at the end.
   */
  interface Sink {
    void accept(ByteBuffer chunk) throws IOException;
  }

  /** The decoded body passed its bound. */
  static final class TooLargeException extends IOException {
    TooLargeException(String message) {
      super(message);
    }
  }

  final Sink sink;

  private ContentDecoder(Sink sink) {
    this.sink = sink;
  }

  abstract void feed(ByteBuffer buffer) throws IOException;

  abstract void finish() throws IOException;

  static boolean supports(String encoding) {
    return switch (normalise(encoding)) {
      case "", "identity", "gzip", "x-gzip", "deflate" -> true;
      default -> false;
    };
  }

  private static String normalise(String encoding) {
    return encoding == null ? "" : encoding.trim().toLowerCase(Locale.ROOT);
  }

  /** Releases native resources when decoding is abandoned midway. */
  void abort() {}

  /**
   * A decoder for {@code encoding}, or null when it is not supported.
   *
   * @param maxDecoded bound on decoded bytes; 0 means none
   */
  static ContentDecoder forEncoding(String encoding, long maxDecoded, Sink sink) {
    return switch (normalise(encoding)) {
      case "", "identity" -> new Identity(sink);
      case "gzip", "x-gzip" -> new Inflating(true, maxDecoded, sink);
      case "deflate" -> new Inflating(false, maxDecoded, sink);
      default -> null;
    };
  }

  private static final class Identity extends ContentDecoder {
    Identity(Sink sink) {
      super(sink);
    }

    @Override
    void feed(ByteBuffer buffer) throws IOException {
      sink.accept(buffer);
    }

    @Override
    void finish() {}
  }

  private static final class Inflating extends ContentDecoder {
    private static final int MAX_GZIP_HEADER = 64 * 1024;

    private final boolean gzip;
    private final long maxDecoded;
    private final byte[] out = new byte[16 * 1024];
    private Inflater inflater; // null until the stream header has been read
    private byte[] header = new byte[0];
    private long decoded;
    private boolean done;
    private final CRC32 crc = new CRC32();
    private final byte[] trailer = new byte[8]; // gzip: CRC32 and ISIZE, little-endian
    private int trailerLength;

    Inflating(boolean gzip, long maxDecoded, Sink sink) {
      super(sink);
      this.gzip = gzip;
      this.maxDecoded = maxDecoded <= 0 ? Long.MAX_VALUE : maxDecoded;
    }

    @Override
    void feed(ByteBuffer buffer) throws IOException {
      byte[] input = new byte[buffer.remaining()];
      buffer.get(input);
      if (done) {
        collectTrailer(input, 0, input.length); // then any second member is ignored
        return;
      }
      if (inflater == null) {
        header = concat(header, input);
        int bodyStart = gzip ? gzipHeaderLength(header) : zlibStart(header);
        if (bodyStart < 0) {
          if (header.length > MAX_GZIP_HEADER) {
            throw new IOException("malformed gzip header");
          }
          return; // need more bytes
        }
        input = Arrays.copyOfRange(header, bodyStart, header.length);
        header = null;
      }
      inflate(input);
    }

    private int zlibStart(byte[] h) {
      if (h.length < 2) {
        return -1;
      }
      int cmf = h[0] & 0xFF;
      int flg = h[1] & 0xFF;
      boolean zlib = (cmf & 0x0F) == 8 && ((cmf << 8) | flg) % 31 == 0;
      inflater = new Inflater(!zlib);
      return 0;
    }

    /** Length of a complete gzip member header in {@code h}, or -1 when more bytes are needed. */
    private int gzipHeaderLength(byte[] h) throws IOException {
      if (h.length < 10) {
        return -1;
      }
      if ((h[0] & 0xFF) != 0x1F || (h[1] & 0xFF) != 0x8B || h[2] != 8) {
        throw new IOException("malformed gzip header");
      }
      int flags = h[3] & 0xFF;
      int p = 10;
      if ((flags & 0x04) != 0) { // FEXTRA
        if (h.length < p + 2) {
          return -1;
        }
        p += 2 + ((h[p] & 0xFF) | (h[p + 1] & 0xFF) << 8);
      }
      for (int bit : new int[] {0x08, 0x10}) { // FNAME, FCOMMENT: zero-terminated
        if ((flags & bit) != 0) {
          while (p < h.length && h[p] != 0) {
            p++;
          }
          if (p >= h.length) {
            return -1;
          }
          p++;
        }
      }
      if ((flags & 0x02) != 0) { // FHCRC
        p += 2;
      }
      if (h.length < p) {
        return -1;
      }
      inflater = new Inflater(true);
      return p;
    }

    private void inflate(byte[] input) throws IOException {
      inflater.setInput(input);
      try {
        while (!inflater.finished()) {
          int n = inflater.inflate(out);
          if (n > 0) {
            decoded += n;
            if (decoded > maxDecoded) {
              throw new TooLargeException(
                  "decompressed response exceeds --max-message-size (" + maxDecoded + " bytes)");
            }
            crc.update(out, 0, n);
            sink.accept(ByteBuffer.wrap(Arrays.copyOf(out, n))); // out is reused, the chunk is not
          } else if (inflater.needsInput() || inflater.needsDictionary()) {
            break;
          }
        }
      } catch (DataFormatException e) {
        throw new IOException("corrupt compressed response: " + e.getMessage(), e);
      }
      if (inflater.finished()) {
        done = true;
        int remaining = inflater.getRemaining();
        inflater.end();
        collectTrailer(input, input.length - remaining, remaining);
      }
    }

    private void collectTrailer(byte[] bytes, int offset, int length) {
      int n = Math.min(length, trailer.length - trailerLength);
      System.arraycopy(bytes, offset, trailer, trailerLength, n);
      trailerLength += n;
    }

    @Override
    void finish() throws IOException {
      if (!done) {
        if (inflater != null) {
          inflater.end();
        }
        throw new IOException("compressed response ended early");
      }
      if (gzip) {
        if (trailerLength < trailer.length) {
          throw new IOException("compressed response ended early (gzip trailer missing)");
        }
        if (littleEndian(0) != crc.getValue() || littleEndian(4) != (decoded & 0xFFFFFFFFL)) {
          throw new IOException("corrupt compressed response: gzip checksum mismatch");
        }
      }
    }

    @Override
    void abort() {
      if (inflater != null) {
        inflater.end(); // the native zlib state, not left to the garbage collector
      }
    }

    private long littleEndian(int offset) {
      return (trailer[offset] & 0xFFL)
          | (trailer[offset + 1] & 0xFFL) << 8
          | (trailer[offset + 2] & 0xFFL) << 16
          | (trailer[offset + 3] & 0xFFL) << 24;
    }

    private static byte[] concat(byte[] a, byte[] b) {
      byte[] c = Arrays.copyOf(a, a.length + b.length);
      System.arraycopy(b, 0, c, a.length, b.length);
      return c;
    }
  }
}
