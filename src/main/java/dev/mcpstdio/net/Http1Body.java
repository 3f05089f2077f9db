package dev.mcpstdio.net;

import java.io.EOFException;
import java.io.IOException;
import java.util.List;

/**
 * How a response body is delimited (RFC 9112 section 6.3), and reading it piece by piece: each
 * {@link #next} returns a copy of what one socket read brought, so the body is handed on as it
 * arrives and a piece's size is bounded by the connection's buffer.
 */
sealed interface Http1Body {

  /** A chunk-size line may be at most this long (extensions included). */
  int MAX_CHUNK_LINE = 1024;

  /** The next bytes of the body, or null at its end. */
  byte[] next(Http1Connection connection) throws IOException;

  /**
   * Whether the body is known to have ended without waiting on the socket: all of a fixed length
   * read, or a chunked body's last chunk and empty trailers already in the connection's buffer
   * (consumed then). False when only a further read can tell.
   */
  boolean ended(Http1Connection connection);

  /** Whether the connection, once the body ended, is positioned at the next response. */
  boolean delimited();

  /** The body's framing for {@code head}, the answer to a request with {@code method}. */
  static Http1Body of(Http1Head head, String method) throws IOException {
    int status = head.statusCode();
    if (method.equals("HEAD") || status == 204 || status == 304 || (status >= 100 && status < 200)) {
      return new Fixed(0);
    }
    List<String> codings = head.headers().allValues("transfer-encoding");
    if (!codings.isEmpty()) {
      String last = codings.getLast();
      int comma = last.lastIndexOf(',');
      String coding = (comma < 0 ? last : last.substring(comma + 1)).strip();
      // A transfer coding that is not chunked last is delimited by the connection's end.
      return coding.equalsIgnoreCase("chunked") ? new Chunked() : new UntilClose();
    }
    List<String> lengths = head.headers().allValues("content-length");
    if (lengths.isEmpty()) {
      return new UntilClose();
    }
    long length = -1;
    for (String value : lengths) {
      for (String part : value.split(",")) {
        long parsed = parseLength(part.strip());
        if (length >= 0 && parsed != length) {
          throw new IOException("response with conflicting Content-Length values");
        }
        length = parsed;
      }
    }
    return new Fixed(length);
  }

  private static long parseLength(String value) throws IOException {
    if (value.isEmpty() || value.length() > 18) {
      throw new IOException("response with an unusable Content-Length: " + Http1Head.printable(value));
    }
    long n = 0;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') {
        throw new IOException("response with an unusable Content-Length: " + Http1Head.printable(value));
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  /** Exactly so many bytes. */
  final class Fixed implements Http1Body {
    private long remaining;

    Fixed(long length) {
      this.remaining = length;
    }

    @Override
    public byte[] next(Http1Connection connection) throws IOException {
      if (remaining == 0) {
        return null;
      }
      byte[] piece = connection.readSome(remaining);
      if (piece == null) {
        throw new EOFException("the connection closed with " + remaining + " bytes of the response body missing");
      }
      remaining -= piece.length;
      return piece;
    }

    @Override
    public boolean ended(Http1Connection connection) {
      return remaining == 0;
    }

    @Override
    public boolean delimited() {
      return true;
    }
  }

  /** The chunked transfer coding; trailers are read and dropped. */
  final class Chunked implements Http1Body {
    /** A chunk's line end, the last chunk (size 0, no extensions) and no trailers: how bodies end. */
    private static final byte[] LAST_CHUNK = "\r\n0\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    private long remaining; // of the current chunk
    private boolean started;
    private boolean ended;

    @Override
    public byte[] next(Http1Connection connection) throws IOException {
      if (ended) {
        return null;
      }
      if (remaining == 0) {
        if (started) {
          String crlf = line(connection);
          if (!crlf.isEmpty()) {
            throw new IOException("malformed chunked response body (no line end after a chunk)");
          }
        }
        started = true;
        remaining = size(line(connection));
        if (remaining == 0) {
          int[] used = {0};
          String trailer;
          do {
            trailer = connection.readLine(used, Http1Head.MAX_BYTES);
            if (trailer == null) {
              throw new EOFException("the connection closed in the trailers of a chunked response");
            }
          } while (!trailer.isEmpty());
          ended = true;
          return null;
        }
      }
      byte[] piece = connection.readSome(remaining);
      if (piece == null) {
        throw new EOFException("the connection closed in the middle of a chunked response body");
      }
      remaining -= piece.length;
      return piece;
    }

    @Override
    public boolean ended(Http1Connection connection) {
      if (!ended && started && remaining == 0 && connection.skipBuffered(LAST_CHUNK)) {
        ended = true;
      }
      return ended;
    }

    private static String line(Http1Connection connection) throws IOException {
      String line = connection.readLine(new int[1], MAX_CHUNK_LINE);
      if (line == null) {
        throw new EOFException("the connection closed in the middle of a chunked response body");
      }
      return line;
    }

    private static long size(String line) throws IOException {
      int end = line.indexOf(';');
      String hex = (end < 0 ? line : line.substring(0, end)).strip();
      if (hex.isEmpty() || hex.length() > 15 || hex.charAt(0) == '-' || hex.charAt(0) == '+') {
        throw new IOException("malformed chunk size: " + Http1Head.printable(line));
      }
      try {
        return Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        throw new IOException("malformed chunk size: " + Http1Head.printable(line));
      }
    }

    @Override
    public boolean delimited() {
      return true;
    }
  }

  /** Everything until the server closes the connection. */
  final class UntilClose implements Http1Body {
    @Override
    public boolean ended(Http1Connection connection) {
      return false;
    }

    @Override
    public byte[] next(Http1Connection connection) throws IOException {
      return connection.readSome(Http1Connection.BUFFER);
    }

    @Override
    public boolean delimited() {
      return false;
    }
  }
}
