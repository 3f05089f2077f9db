package dev.mcpstdio.cli;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The loopback MCP server {@code mcp-stdio train} relays to: a 2025-era Streamable HTTP server
 * as the TypeScript SDK's answers (the era probe refused with 400 before a session, JSON answers,
 * {@code tools/call} answered on a chunked event stream with a progress notification first).
 *
 * <p>Written on plain sockets rather than the JDK's {@code com.sun.net.httpserver}: whatever the
 * training loads goes into the AOT cache, and every class there is loaded at each start, so the
 * training server should bring in as little of its own as it can (the JDK's server brought about
 * 180 classes: its own selector loop, date formatting and locale data for its {@code Date}
 * header). Each connection on a virtual thread of its own (the relay's event stream and its
 * POSTs are open at once).
 */
final class TrainingServer implements AutoCloseable {

  private static final byte[] PROBE_REFUSAL =
      "{\"jsonrpc\":\"2.0\",\"error\":{\"code\":-32000,\"message\":\"Bad Request: No valid session ID provided\"},\"id\":null}"
          .getBytes(StandardCharsets.UTF_8);

  private final ServerSocket server;

  TrainingServer() throws IOException {
    server = new ServerSocket(0, 16, InetAddress.getLoopbackAddress());
    Thread.ofPlatform().daemon().name("train-server").start(this::accept);
  }

  String url() {
    return "http://127.0.0.1:" + server.getLocalPort() + "/mcp";
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket socket = server.accept();
        Thread.ofVirtual().start(() -> {
          try (socket) {
            serve(socket.getInputStream(), socket.getOutputStream());
          } catch (IOException e) {
            // the relay closed the connection
          }
        });
      } catch (IOException e) {
        // the server is closed
      }
    }
  }

  private static void serve(InputStream in, OutputStream out) throws IOException {
    while (true) {
      String method = null;
      boolean session = false;
      int length = 0;
      for (String line = line(in); ; line = line(in)) {
        if (line == null) {
          return;
        }
        if (line.isEmpty()) {
          break;
        }
        if (method == null) {
          method = line.substring(0, Math.max(0, line.indexOf(' ')));
          continue;
        }
        String lower = line.toLowerCase(Locale.ROOT);
        if (lower.startsWith("content-length:")) {
          length = Integer.parseInt(line.substring(15).strip());
        } else if (lower.startsWith("mcp-session-id:")) {
          session = true;
        }
      }
      String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
      out.write(answer(method, session, body));
      out.flush();
    }
  }

  /** One response, head and body. */
  static byte[] answer(String method, boolean session, String body) {
    if (!"POST".equals(method)) {
      return head("DELETE".equals(method) ? "200 OK" : "405 Method Not Allowed", null, 0);
    }
    boolean initialize = body.contains("\"initialize\"");
    if (!initialize && !session) {
      return join(head("400 Bad Request", "application/json", PROBE_REFUSAL.length), PROBE_REFUSAL);
    }
    String id = id(body);
    if (id == null) {
      return head("202 Accepted", null, 0);
    }
    String result = initialize
        ? "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"tools\":{}},\"serverInfo\":{\"name\":\"train\",\"version\":\"1\"}}"
        : body.contains("tools/list")
            ? "{\"tools\":[{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\"}}]}"
            : "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}";
    String json = "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result + "}";
    if (!body.contains("tools/call")) {
      byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
      return join(head("200 OK", "application/json", bytes.length), bytes);
    }
    String events = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":"
        + "{\"progressToken\":1,\"progress\":1}}\n\nevent: message\ndata: " + json + "\n\n";
    byte[] bytes = events.getBytes(StandardCharsets.UTF_8);
    byte[] chunk = (Integer.toHexString(bytes.length) + "\r\n").getBytes(StandardCharsets.US_ASCII);
    return join(head("200 OK", "text/event-stream", -1), chunk, bytes, "\r\n0\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
  }

  /** The request's id as it was written (a number or a string), or null for a notification. */
  private static String id(String body) {
    int at = body.indexOf("\"id\":");
    if (at < 0) {
      return null;
    }
    int start = at + 5;
    int end = start;
    if (end < body.length() && body.charAt(end) == '"') {
      end = body.indexOf('"', end + 1) + 1;
    } else {
      while (end < body.length() && Character.isDigit(body.charAt(end))) {
        end++;
      }
    }
    return end > start ? body.substring(start, end) : null;
  }

  /** A response head; {@code length} -1 for a chunked body. */
  private static byte[] head(String status, String type, int length) {
    StringBuilder head = new StringBuilder("HTTP/1.1 ").append(status).append("\r\n");
    if (type != null) {
      head.append("Content-Type: ").append(type).append("\r\nMcp-Session-Id: train\r\n");
    }
    head.append(length < 0 ? "Transfer-Encoding: chunked\r\n" : "Content-Length: " + length + "\r\n");
    return head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
  }

  private static byte[] join(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** A head line without its CRLF, or null at the end of the connection. */
  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    for (int b = in.read(); b >= 0; b = in.read()) {
      if (b == '\n') {
        int n = line.length();
        return n > 0 && line.charAt(n - 1) == '\r' ? line.substring(0, n - 1) : line.toString();
      }
      line.append((char) b);
    }
    return null;
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
