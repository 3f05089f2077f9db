package dev.mcpstdio.cli;

import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.serve.ServeGateway;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;

/**
 * {@code mcp-stdio train serve}: the serve role's training run for its ahead-of-time cache. A
 * gateway built by the same entry as a real one ({@code ServeCommand.parse}, {@code --warm 2}) on
 * a loopback port of its own, in front of the built-in demo (this JVM's java and class path, never
 * the launcher, which would build or train in turn), and a client that goes through what a
 * client's first minutes do: 2025-era sessions on warm children, answered as JSON and as an event
 * stream, a ping and a call with progress, a request refused, the session closed; then 2026-era
 * stateless calls on a pooled child. So the cache holds the classes of the handler tree, the
 * session and the pool code paths, with their method profiles, and a serve start need not parse
 * and link them before its first client (docs/performance.md, issue 15).
 *
 * <p>The client is a blocking {@link SocketChannel} speaking HTTP/1.1 with {@code Connection:
 * close}: whatever the training loads is loaded at every start, and Jetty already brought the NIO
 * channel classes. Writes nothing to stdout. Every answer is checked: a training that did not go
 * through must not be stamped as a good cache.
 */
final class ServeTraining {

  private static final String INITIALIZE = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
      + "\"protocolVersion\":\"" + McpVersions.V2025_11_25 + "\",\"capabilities\":{},\"clientInfo\":{\"name\":\"train\",\"version\":\"1\"}}}";
  private static final String INITIALIZED = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";
  private static final String ACCEPT_BOTH = "application/json, text/event-stream";

  private final int port;
  private final String path;

  private ServeTraining(int port, String path) {
    this.port = port;
    this.path = path;
  }

  /** {@link ExitCodes#OK} when every answer came as expected; else what went wrong, said to {@code report}. */
  static int run(Log report) {
    Log log = new Log(OutputStream.nullOutputStream(), Log.Level.OFF, new Redactor());
    try {
      ServeCommand.Parsed parsed = ServeCommand.parse(new String[] {"--host", "127.0.0.1", "--port", "0", "--warm", "2"},
          Map.of(), log, new PrintWriter(new StringWriter()));
      try (ServeGateway gateway = new ServeGateway(parsed.config(), log)) {
        gateway.start();
        ServeTraining client = new ServeTraining(gateway.port(), gateway.url().getRawPath());
        for (int i = 0; i < 3; i++) {
          client.session2025(i % 2 == 0 ? ACCEPT_BOTH : "application/json");
        }
        client.calls2026();
      }
      return ExitCodes.OK;
    } catch (Exception e) {
      report.error("train serve: " + e);
      return ExitCodes.FAILURE;
    }
  }

  /** One 2025-era session, from its initialize to its DELETE. */
  private void session2025(String accept) throws IOException {
    Answer init = expect(200, exchange("POST", null, accept, INITIALIZE), "\"protocolVersion\"");
    String session = init.header(McpHeaders.SESSION_ID);
    if (session == null) {
      throw new IOException("training: the initialize answer has no session id");
    }
    expect(202, exchange("POST", session, accept, INITIALIZED), "");
    expect(200, exchange("POST", session, accept, call(1, "{}")), "train 1");
    expect(200, exchange("POST", session, accept, call(2, "{\"progressToken\":\"t2\"}")), "train 2");
    expect(200, exchange("POST", session, accept, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}"), "\"result\"");
    expect(400, exchange("POST", session, accept, "not json"), "");
    expect(200, exchange("DELETE", session, accept, null), "");
  }

  /** Stateless 2026-era calls: the pool starts a child, initializes it, and answers on it. */
  private void calls2026() throws IOException {
    String meta = "{\"" + MetaKeys.PROTOCOL_VERSION + "\":\"" + McpVersions.ERA_2026 + "\",\"" + MetaKeys.CLIENT_CAPABILITIES + "\":{}}";
    for (int id = 10; id < 13; id++) {
      expect(200, exchange2026(McpMethods.TOOLS_CALL, "echo", call(id, meta)), "train " + id);
    }
    expect(200, exchange2026(McpMethods.TOOLS_LIST, null,
        "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/list\",\"params\":{\"_meta\":" + meta + "}}"), "\"tools\"");
  }

  private static String call(int id, String meta) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        + "\"arguments\":{\"text\":\"train " + id + "\"},\"_meta\":" + meta + "}}";
  }

  private Answer exchange2026(String method, String name, String body) throws IOException {
    String headers = McpHeaders.PROTOCOL_VERSION + ": " + McpVersions.ERA_2026 + "\r\n" + McpHeaders.METHOD + ": " + method + "\r\n"
        + (name == null ? "" : McpHeaders.NAME + ": " + name + "\r\n");
    return send("POST", headers, ACCEPT_BOTH, body);
  }

  private Answer exchange(String method, String session, String accept, String body) throws IOException {
    return send(method, session == null ? "" : McpHeaders.SESSION_ID + ": " + session + "\r\n", accept, body);
  }

  private Answer send(String method, String headers, String accept, String body) throws IOException {
    byte[] content = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    String head = method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\nConnection: close\r\nAccept: " + accept + "\r\n"
        + headers + (body == null ? "" : "Content-Type: application/json\r\nContent-Length: " + content.length + "\r\n") + "\r\n";
    try (SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port))) {
      channel.write(ByteBuffer.wrap(head.getBytes(StandardCharsets.US_ASCII)));
      channel.write(ByteBuffer.wrap(content));
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      ByteBuffer buffer = ByteBuffer.allocate(8192);
      while (channel.read(buffer) >= 0) { // the gateway closes the connection after its answer
        received.write(buffer.array(), 0, buffer.position());
        buffer.clear();
        if (received.size() > 1 << 20) {
          throw new IOException("training: an answer past 1 MiB");
        }
      }
      return Answer.parse(received.toString(StandardCharsets.UTF_8));
    }
  }

  private static Answer expect(int status, Answer answer, String contains) throws IOException {
    if (answer.status() != status || !answer.body().contains(contains)) {
      throw new IOException("training: expected " + status + " with " + contains + ", got " + answer.status());
    }
    return answer;
  }

  /** An HTTP answer as received: its status, its header block and what came after it. */
  private record Answer(int status, String head, String body) {
    static Answer parse(String text) throws IOException {
      int end = text.indexOf("\r\n\r\n");
      if (!text.startsWith("HTTP/1.1 ") || end < 0) {
        throw new IOException("training: not an HTTP answer");
      }
      return new Answer(Integer.parseInt(text.substring(9, 12)), text.substring(0, end), text.substring(end + 4));
    }

    String header(String name) {
      String prefix = "\r\n" + name.toLowerCase(Locale.ROOT) + ":";
      int at = head.toLowerCase(Locale.ROOT).indexOf(prefix);
      if (at < 0) {
        return null;
      }
      int eol = head.indexOf("\r\n", at + prefix.length());
      return head.substring(at + prefix.length(), eol < 0 ? head.length() : eol).trim();
    }
  }
}
