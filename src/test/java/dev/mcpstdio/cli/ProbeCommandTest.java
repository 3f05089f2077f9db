package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code mcp-stdio probe}: the image's health check, against a real loopback HTTP server. */
class ProbeCommandTest {

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Log log = new Log(logBytes, Log.Level.INFO, new Redactor());
  private final AtomicInteger status = new AtomicInteger(200);
  private final AtomicInteger hits = new AtomicInteger();
  private HttpServer server;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext("/healthz", exchange -> {
      hits.incrementAndGet();
      byte[] body = "{\"status\":\"ok\"}".getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status.get(), body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private String url() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/healthz";
  }

  private String logged() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aHealthyAnswerExitsZeroAndSaysNothing() throws Exception {
    assertThat(ProbeCommand.run(new String[] {url()}, log)).isEqualTo(ExitCodes.OK);
    assertThat(hits).hasValue(1);
    assertThat(logged()).isEmpty();
  }

  @Test
  void anUnhealthyAnswerExitsOneAndSaysWhy() throws Exception {
    status.set(503);
    assertThat(ProbeCommand.run(new String[] {url()}, log)).isEqualTo(ExitCodes.FAILURE);
    assertThat(hits).hasValue(1);
    assertThat(logged()).contains("answered 503");
  }

  @Test
  void aRedirectIsNotHealth() throws Exception {
    status.set(302);
    assertThat(ProbeCommand.run(new String[] {url()}, log)).isEqualTo(ExitCodes.FAILURE);
    assertThat(logged()).contains("answered 302");
  }

  @Test
  void nothingListeningExitsOne() throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    assertThat(ProbeCommand.run(new String[] {"http://127.0.0.1:" + closedPort + "/healthz"}, log))
        .isEqualTo(ExitCodes.FAILURE);
    assertThat(logged()).contains("127.0.0.1:" + closedPort);
  }

  @Test
  void onlyLoopbackHttpIsProbed() {
    for (String url : new String[] {"http://example.com/healthz", "https://127.0.0.1/healthz", "http://10.0.0.1/healthz",
        "file:///etc/passwd", "not a url",
        "http://127.0.0.1.nip.io/healthz", "http://127.attacker.example/healthz", "http://x.localhost/healthz"}) {
      assertThatThrownBy(() -> ProbeCommand.run(new String[] {url}, log)).as(url)
          .isInstanceOf(UsageException.class).hasMessageContaining("probe:");
    }
    assertThat(hits).hasValue(0);
  }

  @Test
  void oneUrlAtMost() {
    assertThatThrownBy(() -> ProbeCommand.run(new String[] {url(), url()}, log))
        .isInstanceOf(UsageException.class).hasMessageContaining("usage: mcp-stdio probe");
  }
}
