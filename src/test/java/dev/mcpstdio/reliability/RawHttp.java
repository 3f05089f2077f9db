package dev.mcpstdio.reliability;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * One HTTP/1.1 exchange on a fresh loopback connection ({@code Connection: close}), read to the
 * end, so that each measured request also meets the connection cap. No client library: the serve
 * cases need to see a connect that waits, a reset and a timeout as what they are.
 */
final class RawHttp {
  /** What came back: a status (or -1 with why), the raw head and body, the time taken. */
  record Answer(int status, String failure, String head, String body, double millis) {
    String header(String name) {
      for (String line : head.split("\r\n")) {
        int colon = line.indexOf(':');
        if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
          return line.substring(colon + 1).trim();
        }
      }
      return null;
    }

    /** The status as a report key: the number, or why there was none. */
    String outcome() {
      return status > 0 ? Integer.toString(status) : failure;
    }
  }

  static Answer exchange(URI base, String method, String path, String headers, String body, int timeoutMillis) {
    long start = System.nanoTime();
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(base.getHost(), base.getPort()), timeoutMillis);
      socket.setSoTimeout(timeoutMillis);
      byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
      String head = method + " " + path + " HTTP/1.1\r\nHost: " + base.getHost() + ":" + base.getPort()
          + "\r\nConnection: close\r\n" + headers
          + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + content.length + "\r\n") + "\r\n";
      socket.getOutputStream().write(head.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().write(content);
      socket.getOutputStream().flush();
      ByteArrayOutputStream all = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      long deadline = start + timeoutMillis * 1_000_000L;
      for (int n; (n = in.read(buffer)) >= 0; ) {
        all.write(buffer, 0, n);
        if (System.nanoTime() > deadline) {
          throw new SocketTimeoutException("answer still coming after " + timeoutMillis + " ms");
        }
      }
      String text = all.toString(StandardCharsets.ISO_8859_1);
      int end = text.indexOf("\r\n\r\n");
      double millis = (System.nanoTime() - start) / 1e6;
      if (!text.startsWith("HTTP/1.1 ") || end < 0) {
        return new Answer(-1, text.isEmpty() ? "closed with no answer" : "not an HTTP answer", text, "", millis);
      }
      return new Answer(Integer.parseInt(text.substring(9, 12)), null, text.substring(0, end), text.substring(end + 4), millis);
    } catch (SocketTimeoutException e) {
      return new Answer(-1, "timeout", "", "", (System.nanoTime() - start) / 1e6);
    } catch (IOException e) {
      return new Answer(-1, e.getClass().getSimpleName().toLowerCase(Locale.ROOT).replace("exception", ""), "", "",
          (System.nanoTime() - start) / 1e6);
    }
  }

  static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"reliability\",\"version\":\"1\"}}}";
  static final String ACCEPT = "Accept: application/json, text/event-stream\r\n";

  static Answer initialize(URI base, int timeoutMillis) {
    return exchange(base, "POST", "/mcp", ACCEPT, INITIALIZE, timeoutMillis);
  }

  static Answer delete(URI base, String session, int timeoutMillis) {
    return exchange(base, "DELETE", "/mcp", "Mcp-Session-Id: " + session + "\r\nMCP-Protocol-Version: 2025-11-25\r\n", null,
        timeoutMillis);
  }

  private RawHttp() {}
}
