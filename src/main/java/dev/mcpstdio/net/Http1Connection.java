package dev.mcpstdio.net;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import javax.net.ssl.SSLSocket;

/**
 * One HTTP/1.1 connection: its socket (plain, or TLS layered on it), a read buffer shared by the
 * response head and body, and a write buffer that puts a request's head and a small body into one
 * segment.
 *
 * <p>Used by one exchange at a time (the pool hands it to exactly one); {@link #close} may come
 * from any thread (a timeout, a cancel, shutdown) and unblocks a read or write under way.
 */
final class Http1Connection {

  /** Read and write buffer size; a response head may be larger (it spans several fills). */
  static final int BUFFER = 16 * 1024;

  final Http1Route route;
  private final Socket socket;
  /** The TCP socket under it (the same one for plain HTTP): what {@link #close} closes. */
  private final Socket raw;
  private final InputStream in;
  private final OutputStream out;
  private final byte[] buffer = new byte[BUFFER];
  private int position;
  private int limit;
  private final byte[] pending = new byte[BUFFER];
  private int pendingLength;
  private volatile boolean closed;
  /** When the connection went back to the pool (System.nanoTime), and how long it may idle there. */
  long idleSince;
  long idleLimitNanos;
  /** Watches the connection while it waits in the pool (set by the pool, under its hand-over). */
  IdleWatchdog idleWatch;

  Http1Connection(Http1Route route, Socket socket, Socket raw) throws IOException {
    this.route = route;
    this.socket = socket;
    this.raw = raw;
    this.in = socket.getInputStream();
    this.out = socket.getOutputStream();
  }

  javax.net.ssl.SSLSession sslSession() {
    return socket instanceof SSLSocket tls ? tls.getSession() : null;
  }

  void soTimeout(int millis) throws IOException {
    socket.setSoTimeout(millis);
  }

  boolean isClosed() {
    return closed;
  }

  /**
   * Closes the TCP socket itself, never through TLS: an {@code SSLSocket}'s close waits, without a
   * bound, for the lock a write blocked on a full send buffer holds, to send its close_notify; the
   * TCP close ends that write and any read at once. (The peer sees the connection end without a
   * close_notify, which HTTP/1.1 with framed bodies tolerates.)
   */
  void close() {
    closed = true;
    try {
      raw.close();
    } catch (IOException ignored) {
      // closing is all that is left to do
    }
  }

  /**
   * Whether the connection still works after waiting idle: the peer has neither closed it nor sent
   * anything (bytes nobody asked for put it out of step). One read with a 1 ms timeout: a live,
   * quiet connection times out, one the server closed reads its end. (The pool asks only after
   * an idle pause of its own, so a burst of calls does not pay the millisecond.)
   */
  boolean stillOpen() {
    if (position < limit) {
      return false;
    }
    try {
      socket.setSoTimeout(1);
      in.read(buffer, 0, buffer.length);
      return false; // it read its end, or bytes nobody asked for
    } catch (java.net.SocketTimeoutException quiet) {
      return true;
    } catch (IOException e) {
      return false;
    } finally {
      try {
        socket.setSoTimeout(0);
      } catch (IOException ignored) {
        // a broken socket is found out by its next use
      }
    }
  }

  /** Whether the peer sent bytes while the connection was idle (it is then out of step: not reused). */
  boolean strayBytes() {
    try {
      return position < limit || in.available() > 0;
    } catch (IOException e) {
      return true;
    }
  }

  // ---- writing

  void write(byte[] bytes, int offset, int length) throws IOException {
    if (length <= pending.length - pendingLength) {
      System.arraycopy(bytes, offset, pending, pendingLength, length);
      pendingLength += length;
      return;
    }
    flushPending();
    if (length >= pending.length) {
      out.write(bytes, offset, length);
    } else {
      System.arraycopy(bytes, offset, pending, 0, length);
      pendingLength = length;
    }
  }

  void write(byte[] bytes) throws IOException {
    write(bytes, 0, bytes.length);
  }

  void flush() throws IOException {
    flushPending();
    out.flush();
  }

  private void flushPending() throws IOException {
    if (pendingLength > 0) {
      out.write(pending, 0, pendingLength);
      pendingLength = 0;
    }
  }

  // ---- reading

  /** Whether bytes are buffered that no exchange asked for (a connection so found is not reused). */
  boolean hasBuffered() {
    return position < limit;
  }

  private boolean fill() throws IOException {
    position = 0;
    limit = 0;
    int n = in.read(buffer, 0, buffer.length);
    if (n < 0) {
      return false;
    }
    limit = n;
    return true;
  }

  /**
   * Reads one line ending in LF (a CR before it dropped) as ISO-8859-1, adding its length to the
   * head's running total.
   *
   * @return the line, or null at end of stream before any byte of it
   * @throws IOException when the head grows past {@code budget} bytes in all
   */
  String readLine(int[] used, int budget) throws IOException {
    StringBuilder line = null;
    while (true) {
      if (position == limit && !fill()) {
        if (line == null) {
          return null;
        }
        throw new EOFException("the connection closed in the middle of a response head");
      }
      int start = position;
      while (position < limit && buffer[position] != '\n') {
        position++;
      }
      int end = position;
      boolean complete = position < limit;
      if (complete) {
        position++; // the LF
      }
      used[0] += position - start;
      if (used[0] > budget) {
        throw new IOException("response head larger than " + budget + " bytes");
      }
      if (line == null) {
        line = new StringBuilder(end - start);
      }
      for (int i = start; i < end; i++) {
        line.append((char) (buffer[i] & 0xff));
      }
      if (complete) {
        int length = line.length();
        if (length > 0 && line.charAt(length - 1) == '\r') {
          line.setLength(length - 1);
        }
        return line.toString();
      }
    }
  }

  /**
   * Consumes {@code bytes} if the buffer already holds exactly them next; never reads the socket.
   * (Only the reading thread calls it, like every read here.)
   */
  boolean skipBuffered(byte[] bytes) {
    if (limit - position < bytes.length || !java.util.Arrays.equals(buffer, position, position + bytes.length, bytes, 0, bytes.length)) {
      return false;
    }
    position += bytes.length;
    return true;
  }

  /**
   * A copy of the next bytes of the stream, at most {@code max} (at least one), exactly as many
   * as one read brought: the caller owns the array.
   *
   * @return the bytes, or null at end of stream
   */
  byte[] readSome(long max) throws IOException {
    if (position == limit && !fill()) {
      return null;
    }
    int n = (int) Math.min(max, limit - position);
    byte[] copy = new byte[n];
    System.arraycopy(buffer, position, copy, 0, n);
    position += n;
    return copy;
  }
}
