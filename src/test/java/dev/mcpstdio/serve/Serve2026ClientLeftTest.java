package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 2026-era client that closes its connection while its call is silent (no progress, no answer)
 * cancels the call at once, whether it asked for JSON or for an event stream: the child gets
 * {@code notifications/cancelled} for the gateway's id of that call, and the child goes back to
 * the pool. The backend timeout (120 s) and the keep-alive (60 s) are far beyond the waits here,
 * so neither a timeout nor a failed keep-alive write can be what noticed it. Raw loopback sockets
 * (the JDK's client cannot close a connection at a chosen moment); the child is a real process
 * that writes every line it reads, with its pid, to a file.
 */
class Serve2026ClientLeftTest {

  /** A 2025-era child in {@code sh}: {@code wait} never answers; {@code echo} answers at once. */
  private static String child(Path seen) {
    return """
        id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
        read -r init; id=$(id_of "$init")
        printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{\\"tools\\":{}},\\"serverInfo\\":{\\"name\\":\\"sh-silent\\",\\"version\\":\\"1\\"}}}"
        while read -r line; do
          printf '%s %s\\n' "$$" "$line" >> 'SEEN'
          id=$(id_of "$line")
          case "$line" in
            *'"method":"notifications/'*) ;;
            *'"method":"tools/list"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"tools\\":[{\\"name\\":\\"wait\\",\\"inputSchema\\":{\\"type\\":\\"object\\"}},{\\"name\\":\\"echo\\",\\"inputSchema\\":{\\"type\\":\\"object\\"}}]}}" ;;
            *'"method":"tools/call"'*'"name":"wait"'*) ;;
            *'"method":"tools/call"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"hi\\"}]}}" ;;
            *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
          esac
        done
        """.replace("SEEN", seen.toString());
  }

  private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  @TempDir
  Path dir;

  private Path seen;
  private ServeHarness serve;

  @BeforeEach
  void start() throws Exception {
    seen = dir.resolve("seen.txt");
    Files.writeString(seen, "");
    // one child in all: a call that is not released leaves the next call nothing to run on
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(child(seen)))
        .withLimits(100, Duration.ZERO, 1 << 20, Duration.ofSeconds(120), Duration.ofSeconds(60))
        .withEra2026(new ServeConfig.Era2026(false, 0, Duration.ZERO, 1, 1)));
  }

  @AfterEach
  void stop() throws Exception {
    serve.close();
  }

  private String seen() {
    try {
      return Files.readString(seen, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /** A raw POST of a 2026-era request; the socket stays open for the test to close. */
  private Socket rawPost(String method, String name, String body, String accept) throws IOException {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), serve.url.getPort());
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    String head = "POST " + serve.url.getPath() + " HTTP/1.1\r\nHost: 127.0.0.1:" + serve.url.getPort()
        + "\r\nContent-Type: application/json\r\nAccept: " + accept + "\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: "
        + method + "\r\n" + (name == null ? "" : "Mcp-Name: " + name + "\r\n") + "Content-Length: " + bytes.length + "\r\n\r\n";
    OutputStream out = socket.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.write(bytes);
    out.flush();
    return socket;
  }

  private static String call(String id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":\"" + id + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":{}," + META + "}}";
  }

  /** The pid and gateway id of the child's first line matching {@code pattern} (groups 1 and 2). */
  private Matcher await(String what, String pattern) {
    Pattern p = Pattern.compile(pattern);
    return Await.value(what + "; the child read:\n" + seen() + "\nlog:\n" + serve.log(), Duration.ofSeconds(10), () -> {
      Matcher m = p.matcher(seen());
      return m.find() ? m : null;
    });
  }

  @ParameterizedTest(name = "Accept: {0}")
  @ValueSource(strings = {"application/json", "application/json, text/event-stream"})
  void aClientThatClosesItsConnectionCancelsItsSilentCallAndReleasesTheChild(String accept) throws Exception {
    Matcher call;
    try (Socket client = rawPost("tools/call", "wait", call("w1", "wait"), accept)) {
      call = await("the child to get the call", "(?m)^(\\d+) \\{.*\"id\":\"(mcp-stdio/serve/[^\"]+)\".*\"name\":\"wait\"");
    } // closed while the child is silent
    String pid = call.group(1);
    String gatewayId = call.group(2);
    await("the child to be told the call is cancelled", "(?m)^" + pid + " \\{.*\"method\":\"notifications/cancelled\""
        + ".*\"requestId\":\"" + Pattern.quote(gatewayId) + "\"");
    // the pool's only child runs the next call: it was released
    HttpResponse<String> next = serve.post(null, call("e1", "echo"), false, "MCP-Protocol-Version", "2026-07-28",
        "Mcp-Method", "tools/call", "Mcp-Name", "echo");
    assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
    assertThat(next.body()).contains("\"id\":\"e1\"", "\"text\":\"hi\"");
    assertThat(await("the echo call at the child", "(?m)^(\\d+) \\{.*\"name\":\"echo\"").group(1))
        .as("the same child, released to the pool").isEqualTo(pid);
  }

  @Test
  void aListenStreamWhoseClientClosesItsConnectionFreesItsPlaceAtOnce() throws Exception {
    int cap = 4; // listen streams per pooled child (ListenHub.PER_CHILD), and there is one child
    String listen = "{\"jsonrpc\":\"2.0\",\"id\":\"L%d\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
        + "{\"toolsListChanged\":true}," + META + "}}";
    List<Socket> open = new ArrayList<>();
    try {
      for (int i = 0; i < cap; i++) {
        Socket s = rawPost("subscriptions/listen", null, listen.formatted(i), "text/event-stream");
        open.add(s);
        String ack = readUntil(s, "notifications/subscriptions/acknowledged");
        assertThat(ack).contains("/subscriptionId\":\"L" + i + "\"");
      }
      open.removeFirst().close(); // no keep-alive for 60 s: only the watch can notice this
      // the freed place is found by a new listen (one that comes before the gateway noticed is 503)
      Await.until("a listen to find the freed place", Duration.ofSeconds(10), () -> {
        try {
          Socket s = rawPost("subscriptions/listen", null, listen.formatted(9), "text/event-stream");
          String head = readUntil(s, "\r\n\r\n");
          if (head.startsWith("HTTP/1.1 200")) {
            open.add(s);
            return true;
          }
          s.close();
          return false;
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    } finally {
      for (Socket s : open) {
        s.close();
      }
    }
  }

  /** Reads {@code socket} until its input contains {@code text} (10 s read timeout). */
  private static String readUntil(Socket socket, String text) throws IOException {
    socket.setSoTimeout(10_000);
    StringBuilder got = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (!got.toString().contains(text)) {
      int n = socket.getInputStream().read(buffer);
      if (n < 0) {
        break;
      }
      got.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
    }
    return got.toString();
  }
}
