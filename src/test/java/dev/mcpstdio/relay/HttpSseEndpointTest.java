package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.RelayHarness;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The relay's handling of the {@code endpoint} event of an HTTP+SSE (2024-11-05) server. */
class HttpSseEndpointTest {

  private final Server server = new Server();
  private volatile String endpoint;

  /** Starts the server on loopback with the test's handler set; returns the event stream's URL. */
  private URI serve() throws Exception {
    ServerConnector connector = new ServerConnector(server);
    connector.setHost("127.0.0.1");
    server.addConnector(connector);
    server.start();
    return URI.create("http://127.0.0.1:" + connector.getLocalPort() + "/sse");
  }

  private URI start() throws Exception {
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        response.getHeaders().put("Content-Type", "text/event-stream");
        // the endpoint event, then the stream stays open (the callback is never completed)
        response.write(false, ByteBuffer.wrap(("event: endpoint\ndata: " + endpoint + "\n\n").getBytes(StandardCharsets.UTF_8)),
            Callback.NOOP);
        return true;
      }
    });
    return serve();
  }

  @AfterEach
  void stop() throws Exception {
    server.stop();
  }

  @Test
  void anEndpointOnAnotherOriginIsRefusedWhenCredentialsWouldGoWithIt() throws Exception {
    endpoint = "http://elsewhere.example/messages?sessionId=1";
    URI url = start();
    try (RelayHarness host = RelayHarness.start(url, c -> c.withTransport(RelayConfig.Transport.SSE)
        .withHeaders(List.of(new Header("Authorization", "Bearer secret")))
        .withTimeouts(Duration.ofSeconds(1), Duration.ofSeconds(5), Duration.ofSeconds(300)))) {
      assertThat(host.closeAndAwait()).isEqualTo(1);
      assertThat(host.log()).contains("endpoint on another origin (http://elsewhere.example); refused")
          .contains("no endpoint event").doesNotContain("secret");
    }
  }

  @Test
  void anEventThatIsNotValidUtf8IsDroppedAndTheNextOneRelayed() throws Exception {
    java.util.concurrent.CompletableFuture<Response> stream = new java.util.concurrent.CompletableFuture<>();
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        if (request.getMethod().equals("GET")) {
          response.getHeaders().put("Content-Type", "text/event-stream");
          response.write(false, ByteBuffer.wrap("event: endpoint\ndata: /messages\n\n".getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
          stream.complete(response);
          return true;
        }
        // The answer goes on the stream: first with a broken character (C3 28), then whole.
        java.io.ByteArrayOutputStream events = new java.io.ByteArrayOutputStream();
        events.writeBytes("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"".getBytes(StandardCharsets.UTF_8));
        events.writeBytes(new byte[] {(byte) 0xC3, 0x28});
        events.writeBytes(("\"}}\n\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"ok\"}}\n\n").getBytes(StandardCharsets.UTF_8));
        stream.join().write(false, ByteBuffer.wrap(events.toByteArray()), Callback.NOOP);
        response.setStatus(202);
        callback.succeeded();
        return true;
      }
    });
    URI url = serve();
    try (RelayHarness host = RelayHarness.start(url, c -> c.withTransport(RelayConfig.Transport.SSE))) {
      host.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2024-11-05\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
      assertThat(host.answerTo("1")).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"t\":\"ok\"}}");
      assertThat(host.log()).contains("not JSON-RPC (not valid UTF-8); dropped");
    }
  }

  /**
   * The event stream ends; the next two reopenings are refused; the third works. The waits follow
   * the one reconnect schedule of RetryPolicy: 1 s, then doubling while reopening fails.
   */
  @Test
  void aStreamThatCannotBeReopenedIsRetriedLessAndLessOften() throws Exception {
    java.util.concurrent.atomic.AtomicInteger gets = new java.util.concurrent.atomic.AtomicInteger();
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) {
        int n = gets.incrementAndGet();
        if (n == 2 || n == 3) {
          Response.writeError(request, response, callback, 503);
          return true;
        }
        response.getHeaders().put("Content-Type", "text/event-stream");
        // the first stream ends after its endpoint event; the fourth stays open
        response.write(n == 1, ByteBuffer.wrap("event: endpoint\ndata: /messages\n\n".getBytes(StandardCharsets.UTF_8)),
            n == 1 ? callback : Callback.NOOP);
        return true;
      }
    });
    URI url = serve();
    try (RelayHarness host = RelayHarness.start(url, c -> c.withTransport(RelayConfig.Transport.SSE))) {
      dev.mcpstdio.testing.Await.until("the fourth stream opened", () -> gets.get() >= 4);
      assertThat(host.sleeps).startsWith(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4));
    }
  }

  /**
   * A call the host cancelled, whose answer was to come on the stream, ends in silence when the
   * stream is lost; another one in flight gets its error; and the relay goes on on the new stream.
   */
  @Test
  void aLostStreamAnswersTheCallsWaitingOnItExceptTheCancelledOne() throws Exception {
    java.util.List<Response> streams = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<Callback> ends = new java.util.concurrent.CopyOnWriteArrayList<>();
    java.util.List<String> posts = new java.util.concurrent.CopyOnWriteArrayList<>();
    server.setHandler(new Handler.Abstract() {
      @Override
      public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (request.getMethod().equals("GET")) {
          response.getHeaders().put("Content-Type", "text/event-stream");
          response.write(false, ByteBuffer.wrap("event: endpoint\ndata: /messages\n\n".getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
          streams.add(response);
          ends.add(callback);
          return true;
        }
        String body = org.eclipse.jetty.io.Content.Source.asString(request);
        posts.add(body);
        if (body.contains("\"method\":\"initialize\"") || body.contains("\"method\":\"ping\"")) {
          String id = body.replaceAll(".*\"id\":(\"[^\"]*\"|[0-9]+).*", "$1");
          String result = body.contains("initialize")
              ? "{\"protocolVersion\":\"2024-11-05\",\"capabilities\":{},\"serverInfo\":{\"name\":\"s\",\"version\":\"1\"}}" : "{}";
          streams.getLast().write(false, ByteBuffer.wrap(("data: {\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":" + result
              + "}\n\n").getBytes(StandardCharsets.UTF_8)), Callback.NOOP);
        }
        response.setStatus(202);
        callback.succeeded();
        return true; // tools/call is never answered
      }
    });
    URI url = serve();
    try (RelayHarness host = RelayHarness.start(url, c -> c.withTransport(RelayConfig.Transport.SSE))) {
      host.initialize();
      host.send("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}");
      host.send("{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":{}}}");
      host.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}");
      dev.mcpstdio.testing.Await.until("both calls and the cancel posted",
          () -> posts.stream().filter(b -> b.contains("tools/call")).count() == 2 && posts.stream().anyMatch(b -> b.contains("cancelled")));
      streams.getFirst().write(true, ByteBuffer.allocate(0), ends.getFirst()); // the server ends the stream
      assertThat(host.answerTo("8")).contains("-32000").contains("SSE stream disconnected before the response arrived");
      dev.mcpstdio.testing.Await.until("a new stream", () -> streams.size() == 2);
      host.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
      host.answerTo("9"); // the relay goes on, and everything before this answer has been written
      assertThat(host.stdout.snapshot()).noneMatch(l -> RelayHarness.hasId(l, "7"));
    }
  }

  @Test
  void sameOriginIsSchemeHostAndPortWithDefaultPortsFolded() {
    assertThat(HttpSseUpstream.sameOrigin(URI.create("http://a.example/x"), URI.create("http://A.example:80/y"))).isTrue();
    assertThat(HttpSseUpstream.sameOrigin(URI.create("https://a.example/x"), URI.create("https://a.example:443/"))).isTrue();
    assertThat(HttpSseUpstream.sameOrigin(URI.create("https://a.example/x"), URI.create("http://a.example/"))).isFalse();
    assertThat(HttpSseUpstream.sameOrigin(URI.create("http://a.example:8080/"), URI.create("http://a.example/"))).isFalse();
    assertThat(HttpSseUpstream.sameOrigin(URI.create("http://b.example/"), URI.create("http://a.example/"))).isFalse();
  }
}
