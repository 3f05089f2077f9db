package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.serve.http.RequestBodies;
import dev.mcpstdio.testing.Await;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Slow and many clients on real loopback sockets: they must not starve the others. Deadlines are
 * short here so that the tests wait on conditions, not on the defaults.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class ServeSlowClientsTest {

  private static final dev.mcpstdio.process.ChildSpec QUIET = ServeHarness.shAfterInit("cat >/dev/null");

  /** Paces the drippers: one task per dripping socket, a byte at a time. */
  private final ScheduledExecutorService drips = Executors.newSingleThreadScheduledExecutor();
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void closeEverything() throws IOException {
    drips.shutdownNow();
    for (Socket socket : sockets) {
      socket.close();
    }
  }

  private static ServeConfig config(Duration header, Duration body, int maxConnections) {
    return ServeHarness.config(QUIET).withConnections(new ServeConfig.Connections(maxConnections, header, body));
  }

  @Test
  void slowUploadsDoNotReserveTheMessageAllowanceOfEveryoneElse() throws Exception {
    // 32 clients declare 8 MiB bodies (32 x 8 MiB = the whole 256 MiB allowance) and send one byte
    try (ServeHarness serve = ServeHarness.start(config(Duration.ofSeconds(30), Duration.ofSeconds(60), 512))) {
      for (int i = 0; i < 32; i++) {
        Socket socket = connect(serve);
        write(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: "
            + (8 << 20) + "\r\n\r\n{");
      }
      RequestBodies bodies = serve.gateway.bodies();
      Await.until("32 bodies being read", () -> bodies.reading() == 32);
      // what the 32 hold is what they sent (a first buffer each), not what they declared
      assertThat(bodies.held()).isLessThanOrEqualTo(32L * RequestBodies.FIRST_BUFFER);
      HttpResponse<String> normal = serve.post(null, INIT, false);
      assertThat(normal.statusCode()).as(normal.body()).isEqualTo(200);
    }
  }

  @Test
  void aDrippingBodyIsAnswered408WithItsIdOnceItsDeadlinePasses() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(Duration.ofSeconds(30), Duration.ofMillis(500), 512))) {
      Socket socket = connect(serve);
      write(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n"
          + "{\"jsonrpc\":\"2.0\",\"id\":77,\"method\":\"initialize\",\"params\":{\"pad\":\"");
      drip(socket, 'x', 50);
      String reply = readAll(socket);
      assertThat(reply).startsWith("HTTP/1.1 408").contains("\"id\":77").contains("did not arrive in time")
          .containsIgnoringCase("connection: close");
      Await.until("the body's bytes to be given back", () -> serve.gateway.bodies().held() == 0);
      serve.awaitLog("\"POST /mcp\" 408");
      assertThat(serve.log()).doesNotContain("\tat ").doesNotContain("\" 500 ");
    }
  }

  @Test
  void aBodyThatGoesIdleMidReadIsAnswered408NotA500() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(Duration.ofSeconds(30), Duration.ofMillis(300), 512))) {
      Socket socket = connect(serve);
      write(socket, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n"
          + "{\"jsonrpc\":\"2.0\",\"id\":\"idle-1\",\"method\":\"ping\"");
      String reply = readAll(socket);
      assertThat(reply).startsWith("HTTP/1.1 408").contains("\"id\":\"idle-1\"").contains("\"code\":-32600");
      serve.awaitLog("\"POST /mcp\" 408");
      assertThat(serve.log()).doesNotContain("\tat ").doesNotContain("\" 500 ");
      // the gateway goes on serving
      assertThat(serve.post(null, INIT, false).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void aDrippingHeadOrASilentNewConnectionIsClosedAfterTheHeaderTimeoutAKeptAliveOneIsNot() throws Exception {
    // a 1 s header timeout: short enough for the test, long enough that a loaded CI machine reads
    // the kept-alive connection's first head (sent at once) before it runs out
    try (ServeHarness serve = ServeHarness.start(config(Duration.ofSeconds(1), Duration.ofSeconds(30), 512))) {
      Socket silent = connect(serve); // connected, sends nothing: it would hold a connection slot
      Socket dripping = connect(serve);
      write(dripping, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      drip(dripping, 'a', 50);
      InputStream in = dripping.getInputStream();
      assertThat(in.read()).as("the dripping connection is closed").isEqualTo(-1);
      assertThat(silent.getInputStream().read()).as("the silent new connection is closed").isEqualTo(-1);
      // one that made a request and then waits on keep-alive for longer than a head may take is not closed
      Socket kept = connect(serve);
      write(kept, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      assertThat(readResponse(kept)).startsWith("HTTP/1.1 200");
      Socket another = connect(serve);
      write(another, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
      drip(another, 'b', 50);
      assertThat(another.getInputStream().read()).isEqualTo(-1); // a whole header timeout has passed
      write(kept, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      assertThat(readAll(kept)).startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void theConnectionCapHoldsWithoutHurtingEstablishedConnections() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(Duration.ofSeconds(30), Duration.ofSeconds(30), 3))) {
      List<Socket> established = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        Socket socket = connect(serve);
        write(socket, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");
        established.add(socket);
      }
      Await.until("3 connections open", () -> serve.gateway.connections() == 3);
      Socket fourth = connect(serve); // the system queues it; the gateway does not take it
      write(fourth, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
      fourth.setSoTimeout(300);
      assertThatThrownBy(() -> fourth.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
      assertThat(serve.gateway.connections()).isEqualTo(3);
      // the established ones go on being served
      for (Socket socket : established) {
        write(socket, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        assertThat(readResponse(socket)).startsWith("HTTP/1.1 200");
      }
      established.getFirst().close();
      fourth.setSoTimeout(20_000);
      assertThat(readAll(fourth)).startsWith("HTTP/1.1 200");
    }
  }

  private Socket connect(ServeHarness serve) throws IOException {
    Socket socket = new Socket();
    sockets.add(socket);
    socket.connect(new InetSocketAddress("127.0.0.1", serve.gateway.port()), 5_000);
    socket.setSoTimeout(20_000);
    return socket;
  }

  private static void write(Socket socket, String text) throws IOException {
    OutputStream out = socket.getOutputStream();
    out.write(text.getBytes(StandardCharsets.ISO_8859_1));
    out.flush();
  }

  /** Writes {@code c} every {@code millis} until the socket fails (the gateway closed it). */
  private void drip(Socket socket, char c, long millis) {
    java.util.concurrent.atomic.AtomicReference<java.util.concurrent.ScheduledFuture<?>> self =
        new java.util.concurrent.atomic.AtomicReference<>();
    self.set(drips.scheduleAtFixedRate(() -> {
      try {
        write(socket, String.valueOf(c));
      } catch (IOException e) {
        self.get().cancel(false);
      }
    }, millis, millis, TimeUnit.MILLISECONDS));
  }

  /** Everything until the gateway closes the connection. */
  private static String readAll(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder reply = new StringBuilder();
    byte[] buffer = new byte[8192];
    try {
      for (int n; (n = in.read(buffer)) > 0; ) {
        reply.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
      }
    } catch (java.net.SocketException e) {
      // reset after the reply (the rest of a body was never read): what came before it counts
    }
    return reply.toString();
  }

  /** One response with a Content-Length body, leaving the connection open. */
  private static String readResponse(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    StringBuilder reply = new StringBuilder();
    while (true) {
      int b = in.read();
      if (b < 0) {
        return reply.toString();
      }
      reply.append((char) b);
      int head = reply.indexOf("\r\n\r\n");
      if (head >= 0) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(reply);
        int length = m.find() ? Integer.parseInt(m.group(1)) : 0;
        if (reply.length() - head - 4 >= length) {
          return reply.toString();
        }
      }
    }
  }
}
