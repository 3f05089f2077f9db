package dev.mcpstdio.serve.pinned;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 request on a connection of its own, written byte for byte as the test spells it, and
 * its response read as it arrives: the head exactly as received (status line and header lines in
 * order and spelling), then the body, de-chunked when the server chunks it, so that an event
 * stream can be read one event at a time while it is still open.
 *
 * <p>A test client of its own, not the JDK's: the pinned transcripts must show every header the
 * gateway sends, in its order, and the JDK client hides the order and some of the headers.
 */
final class RawExchange implements AutoCloseable {

  /** A read on the connection gives up after this long (the test then fails, it does not hang). */
  private static final int READ_TIMEOUT_MILLIS = 15_000;

  private final Socket socket;
  private final InputStream in;
  private String head;
  private long remaining = -1; // bytes left in the current chunk or the fixed-length body
  private boolean chunked;
  private boolean untilClose;
  private boolean ended;

  private RawExchange(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new java.io.BufferedInputStream(socket.getInputStream());
  }

  /** Connects to {@code port} on loopback and writes {@code request} (head and body as given). */
  static RawExchange send(int port, byte[] request) {
    try {
      Socket socket = new Socket();
      socket.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MILLIS);
      socket.setSoTimeout(READ_TIMEOUT_MILLIS);
      RawExchange exchange = new RawExchange(socket);
      OutputStream out = socket.getOutputStream();
      out.write(request);
      out.flush();
      return exchange;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The response's head, read once: status line and header lines, CRLF line ends kept. */
  String head() {
    if (head != null) {
      return head;
    }
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int c = in.read();
        if (c < 0) {
          throw new EOFException("the connection closed inside the response head: " + b.toString(StandardCharsets.UTF_8));
        }
        b.write(c);
        matched = (c == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (c == '\r' ? 1 : 0);
      }
      head = b.toString(StandardCharsets.ISO_8859_1);
      String lower = head.toLowerCase(Locale.ROOT);
      boolean noBody = head.startsWith("HTTP/1.1 204") || head.startsWith("HTTP/1.1 304");
      if (lower.contains("\r\ntransfer-encoding: chunked\r\n")) {
        chunked = true;
      } else if (lower.contains("\r\ncontent-length:")) {
        int at = lower.indexOf("\r\ncontent-length:") + "\r\ncontent-length:".length();
        remaining = Long.parseLong(lower.substring(at, lower.indexOf("\r\n", at)).trim());
      } else if (noBody) {
        remaining = 0;
      } else {
        untilClose = true;
      }
      return head;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The next body byte, or -1 at the body's end. */
  private int read() throws IOException {
    head();
    if (ended) {
      return -1;
    }
    if (untilClose) {
      int c = in.read();
      ended = c < 0;
      return c;
    }
    if (chunked && remaining <= 0) {
      if (remaining == 0) {
        crlf(); // the CRLF that ends a chunk's data
      }
      String size = line();
      int semicolon = size.indexOf(';');
      remaining = Long.parseLong((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
      if (remaining == 0) {
        while (!line().isEmpty()) {
          // trailer fields: none expected, skipped
        }
        ended = true;
        return -1;
      }
    }
    if (!chunked && remaining == 0) {
      ended = true;
      return -1;
    }
    int c = in.read();
    if (c < 0) {
      throw new EOFException("the connection closed inside the body");
    }
    remaining--;
    return c;
  }

  private void crlf() throws IOException {
    if (in.read() != '\r' || in.read() != '\n') {
      throw new IOException("a chunk's data did not end with CRLF");
    }
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new EOFException("the connection closed inside chunk framing");
      }
      if (c != '\r') {
        b.write(c);
      }
    }
    return b.toString(StandardCharsets.ISO_8859_1);
  }

  /** The whole body (to its end), as bytes. */
  byte[] body() {
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int c;
      while ((c = read()) >= 0) {
        b.write(c);
      }
      return b.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The next event of an event stream: its bytes up to and including the blank line that ends it,
   * or null when the stream ended first (what it held before ending, if anything, is then lost to
   * the caller, which the transcript shows as a missing event).
   */
  String nextEvent() {
    try {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      int previous = -1;
      int c;
      while ((c = read()) >= 0) {
        b.write(c);
        if (c == '\n' && previous == '\n') {
          return b.toString(StandardCharsets.UTF_8);
        }
        previous = c;
      }
      return b.size() == 0 ? null : "<stream ended inside an event>" + b.toString(StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True once the body has ended (read to its end). */
  boolean ended() {
    return ended;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a loopback socket: nothing to do about it
    }
  }
}
