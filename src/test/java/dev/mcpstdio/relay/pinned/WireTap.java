package dev.mcpstdio.relay.pinned;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP proxy in front of the scripted server that records every HTTP/1.1 request the
 * relay sends exactly as its bytes arrive: the request line and header lines in their order and
 * spelling, and the body as framed on the wire (a {@code Content-Length} body, or chunked with its
 * chunk lines). Jetty would hand the server its own view of a request (header names folded, values
 * merged), so the bytes are taken before it sees them. Responses pass back untouched; when either
 * side closes, so does the other.
 *
 * <p>A request is recorded once its last body byte has been read, in the order requests complete
 * across all connections. The relay's requests on different connections are only ordered where the
 * session script makes them so (it waits for each request before giving the relay cause for the
 * next), which is how the pinned sessions keep this order deterministic.
 *
 * <p>Bounds: a head of at most {@link #MAX_HEAD} bytes, a body of at most {@link #MAX_BODY}; the
 * sessions send a few hundred bytes.
 */
final class WireTap implements AutoCloseable {

  static final int MAX_HEAD = 64 * 1024;
  static final int MAX_BODY = 1024 * 1024;

  /** One request as received: head without its final blank line, CRLFs kept; body as framed. */
  record Recorded(byte[] head, byte[] body) {

    String headText() {
      return new String(head, StandardCharsets.ISO_8859_1);
    }
  }

  private final ServerSocket listener;
  private final int targetPort;
  private final List<Recorded> requests = new CopyOnWriteArrayList<>();
  private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
  private final List<String> problems = new CopyOnWriteArrayList<>();
  private volatile boolean closed;

  WireTap(int targetPort) throws IOException {
    this.targetPort = targetPort;
    this.listener = new ServerSocket();
    listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    Thread.ofVirtual().name("wire-tap-accept").start(this::acceptLoop);
  }

  int port() {
    return listener.getLocalPort();
  }

  List<Recorded> requests() {
    return List.copyOf(requests);
  }

  int count() {
    return requests.size();
  }

  /** Framing the tap could not follow (the test fails on any). */
  List<String> problems() {
    return List.copyOf(problems);
  }

  private void acceptLoop() {
    while (!closed) {
      Socket client;
      try {
        client = listener.accept();
      } catch (IOException e) {
        return; // closed
      }
      sockets.add(client);
      Thread.ofVirtual().name("wire-tap-conn").start(() -> relayConnection(client));
    }
  }

  private void relayConnection(Socket client) {
    try (client; Socket server = new Socket(InetAddress.getLoopbackAddress(), targetPort)) {
      sockets.add(server);
      Thread back = Thread.ofVirtual().name("wire-tap-back").start(() -> copyBack(server, client));
      try {
        InputStream in = new BufferedInputStream(client.getInputStream());
        OutputStream out = server.getOutputStream();
        while (readRequest(in, out)) {
          // one request at a time, as HTTP/1.1 frames them
        }
      } catch (IOException e) {
        // the connection ended; the other direction is closed below
      }
      server.shutdownOutput();
      back.join();
    } catch (IOException e) {
      // one side went away
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      sockets.remove(client);
    }
  }

  private static void copyBack(Socket server, Socket client) {
    try {
      server.getInputStream().transferTo(client.getOutputStream());
    } catch (IOException e) {
      // one side went away
    } finally {
      try {
        client.close(); // the server closed (or cut) the connection: so does the relay's side
      } catch (IOException ignored) {
        // closing is all that was asked
      }
    }
  }

  /** Reads, records and forwards one request; false at a clean end of the connection. */
  private boolean readRequest(InputStream in, OutputStream out) throws IOException {
    ByteArrayOutputStream head = new ByteArrayOutputStream();
    int b;
    int last4 = 0; // the last four bytes read, for spotting CRLF CRLF
    while ((b = in.read()) >= 0) {
      head.write(b);
      last4 = (last4 << 8) | b;
      if (last4 == 0x0D0A0D0A) {
        break;
      }
      if (head.size() > MAX_HEAD) {
        problems.add("request head over " + MAX_HEAD + " bytes");
        return false;
      }
    }
    if (b < 0) {
      if (head.size() > 0) {
        problems.add("connection ended inside a request head");
      }
      return false;
    }
    byte[] headBytes = head.toByteArray();
    out.write(headBytes);
    out.flush();
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    String headText = new String(headBytes, StandardCharsets.ISO_8859_1);
    String length = header(headText, "content-length");
    String encoding = header(headText, "transfer-encoding");
    if (encoding != null && encoding.toLowerCase(Locale.ROOT).contains("chunked")) {
      readChunked(in, out, body);
    } else if (length != null) {
      int n = Integer.parseInt(length.trim());
      if (n > MAX_BODY) {
        problems.add("body over " + MAX_BODY + " bytes");
        return false;
      }
      byte[] bytes = in.readNBytes(n);
      body.write(bytes);
      out.write(bytes);
      out.flush();
      if (bytes.length < n) {
        problems.add("connection ended inside a body");
        return false;
      }
    }
    byte[] headOnly = java.util.Arrays.copyOf(headBytes, headBytes.length - 2); // the blank line's CRLF
    requests.add(new Recorded(headOnly, body.toByteArray()));
    return true;
  }

  private void readChunked(InputStream in, OutputStream out, ByteArrayOutputStream body) throws IOException {
    while (true) {
      byte[] sizeLine = line(in);
      body.write(sizeLine);
      out.write(sizeLine);
      String size = new String(sizeLine, StandardCharsets.ISO_8859_1).trim();
      int semicolon = size.indexOf(';');
      int n = Integer.parseInt(semicolon < 0 ? size : size.substring(0, semicolon), 16);
      if (n == 0) {
        byte[] trailer;
        do {
          trailer = line(in);
          body.write(trailer);
          out.write(trailer);
        } while (trailer.length > 2);
        out.flush();
        return;
      }
      if (body.size() + n > MAX_BODY) {
        throw new IOException("chunked body over " + MAX_BODY + " bytes");
      }
      byte[] data = in.readNBytes(n + 2); // the chunk and its CRLF
      body.write(data);
      out.write(data);
    }
  }

  private static byte[] line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      line.write(b);
      if (b == '\n') {
        return line.toByteArray();
      }
      if (line.size() > MAX_HEAD) {
        throw new IOException("chunk line too long");
      }
    }
    throw new IOException("connection ended inside a chunked body");
  }

  /** The value of the first header named {@code name} (any case) in a head, or null. */
  private static String header(String head, String name) {
    for (String line : head.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
        return line.substring(colon + 1).trim();
      }
    }
    return null;
  }

  @Override
  public void close() {
    closed = true;
    try {
      listener.close();
    } catch (IOException ignored) {
      // closing is all that was asked
    }
    for (Socket s : sockets) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing is all that was asked
      }
    }
  }
}
