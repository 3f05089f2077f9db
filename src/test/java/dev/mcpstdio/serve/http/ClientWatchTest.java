package dev.mcpstdio.serve.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link ClientWatch} on a real Jetty server and raw loopback sockets. These tests pin the Jetty
 * behaviour the watch relies on (its class comment): a plain connector's {@code EndPoint} hands out
 * its {@code SocketChannel}, and Jetty reads nothing of it while a handler runs after the body, so
 * an upgrade that changes either fails here.
 */
class ClientWatchTest {

  /** What each exchange's handler did: its watch, then "left" or "answered". */
  private record Watched(ClientWatch.Watch watch, CompletableFuture<String> outcome, CompletableFuture<Void> finish) {}

  private final BlockingQueue<Watched> exchanges = new LinkedBlockingQueue<>();
  private final ClientWatch watches = new ClientWatch(new Log(new ByteArrayOutputStream(), Log.Level.DEBUG, new Redactor()));
  private Server server;
  private int port;

  @BeforeEach
  void start() throws Exception {
    server = new Server();
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    server.setHandler(new Handler.Abstract(org.eclipse.jetty.util.thread.Invocable.InvocationType.BLOCKING) {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Content.Source.asByteBuffer(request); // the whole body, as serve reads it before its endpoint runs
        Watched w = new Watched(watches.watch(response), new CompletableFuture<>(), new CompletableFuture<>());
        exchanges.add(w);
        // quiet: no write until the client leaves or the test says so
        CompletableFuture.anyOf(w.watch().left(), w.finish()).get(30, TimeUnit.SECONDS);
        if (w.watch().hasLeft()) {
          w.outcome().complete("left");
          callback.failed(new org.eclipse.jetty.io.EofException("the client left"));
          return true;
        }
        w.watch().close();
        w.outcome().complete("answered");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 2);
        response.write(true, ByteBuffer.wrap("ok".getBytes(StandardCharsets.US_ASCII)), callback);
        return true;
      }
    });
    server.start();
    port = connector.getLocalPort();
  }

  @AfterEach
  void stop() throws Exception {
    watches.close();
    server.stop();
  }

  private static byte[] post(String body) {
    return ("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: " + body.length()
        + "\r\n\r\n" + body).getBytes(StandardCharsets.US_ASCII);
  }

  private Watched nextExchange() throws InterruptedException {
    Watched w = exchanges.poll(10, TimeUnit.SECONDS);
    assertThat(w).as("the handler to be watching an exchange").isNotNull();
    Await.until("the watch to be registered", Duration.ofSeconds(10), w.watch()::watching);
    return w;
  }

  /** Reads until {@code count} responses ("ok" bodies) came. */
  private static String readResponses(InputStream in, int count) throws IOException {
    StringBuilder text = new StringBuilder();
    byte[] buffer = new byte[4096];
    while (text.toString().split("\r\n\r\nok", -1).length - 1 < count) {
      int n = in.read(buffer);
      if (n < 0) {
        break;
      }
      text.append(new String(buffer, 0, n, StandardCharsets.US_ASCII));
    }
    return text.toString();
  }

  @Test
  void aClientThatClosesItsConnectionDuringAQuietExchangeIsNoticed() throws Exception {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
      client.getOutputStream().write(post("{\"a\":1}"));
      Watched w = nextExchange();
      client.close();
      assertThat(w.outcome().get(10, TimeUnit.SECONDS)).isEqualTo("left");
    }
  }

  @Test
  void aClientThatResetsItsConnectionIsNoticed() throws Exception {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
      client.getOutputStream().write(post("{\"a\":2}"));
      Watched w = nextExchange();
      client.setSoLinger(true, 0); // close with RST
      client.close();
      assertThat(w.outcome().get(10, TimeUnit.SECONDS)).isEqualTo("left");
    }
  }

  @Test
  void aClientThatSendsItsNextRequestEarlyIsNotGoneAndBothAreServed() throws Exception {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
      client.setSoTimeout(10_000);
      client.getOutputStream().write(post("{\"a\":3}"));
      Watched first = nextExchange();
      client.getOutputStream().write(post("{\"a\":4}")); // pipelined while the first is quiet
      Await.until("the watch to see the early bytes and stop watching", Duration.ofSeconds(10), () -> !first.watch().watching());
      assertThat(first.watch().hasLeft()).as("bytes waiting are no leaving").isFalse();
      first.finish().complete(null);
      Watched second = nextExchange();
      second.finish().complete(null);
      assertThat(first.outcome().get(10, TimeUnit.SECONDS)).isEqualTo("answered");
      assertThat(second.outcome().get(10, TimeUnit.SECONDS)).isEqualTo("answered");
      String responses = readResponses(client.getInputStream(), 2);
      assertThat(responses.split("HTTP/1.1 200", -1)).as("two whole responses: the watch read none of the next request")
          .hasSize(3);
    }
  }

  @Test
  void aConnectionKeptAliveIsWatchedAfreshForItsNextExchange() throws Exception {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), port)) {
      client.setSoTimeout(10_000);
      client.getOutputStream().write(post("{\"a\":5}"));
      Watched first = nextExchange();
      first.finish().complete(null);
      assertThat(readResponses(client.getInputStream(), 1)).startsWith("HTTP/1.1 200");
      client.getOutputStream().write(post("{\"a\":6}"));
      Watched second = nextExchange();
      client.close();
      assertThat(second.outcome().get(10, TimeUnit.SECONDS)).isEqualTo("left");
      assertThat(first.watch().hasLeft()).as("a closed watch never fires").isFalse();
    }
  }
}
