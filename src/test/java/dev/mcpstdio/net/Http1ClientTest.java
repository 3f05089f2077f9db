package dev.mcpstdio.net;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.CookieManager;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import dev.mcpstdio.testing.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The HTTP/1.1 client against a loopback server that writes exactly the bytes a test scripts. */
class Http1ClientTest {

  /** A server answering each request read on a connection with the script's bytes for it. */
  static final class ScriptedServer implements AutoCloseable {
    final ServerSocket server;
    final AtomicInteger connections = new AtomicInteger();
    final BlockingQueue<String> requests = new LinkedBlockingQueue<>();
    final List<Socket> open = Collections.synchronizedList(new ArrayList<>());
    /** One entry per connection the client closed while the server waited for its next request. */
    final BlockingQueue<Socket> closedByClient = new LinkedBlockingQueue<>();
    private final Function<String, byte[]> script;

    ScriptedServer(Function<String, byte[]> script) throws IOException {
      this.script = script;
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      Thread.ofVirtual().start(this::accept);
    }

    URI uri(String path) {
      return URI.create("http://127.0.0.1:" + server.getLocalPort() + path);
    }

    private void accept() {
      try {
        while (true) {
          Socket s = server.accept();
          connections.incrementAndGet();
          open.add(s);
          Thread.ofVirtual().start(() -> serve(s));
        }
      } catch (IOException closed) {
        // the test is over
      }
    }

    private void serve(Socket s) {
      try (s) {
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream();
        while (true) {
          String request = readRequest(in);
          if (request == null) {
            closedByClient.add(s);
            return;
          }
          requests.add(request);
          byte[] answer = script.apply(request);
          if (answer == null) {
            return; // close without answering
          }
          out.write(answer);
          out.flush();
          String sent = new String(answer, StandardCharsets.ISO_8859_1);
          if (sent.contains("Connection: close") || sent.contains("X-Then-Close: 1")) {
            return; // (X-Then-Close: the server closes the connection afterwards without saying so)
          }
        }
      } catch (IOException | InterruptedException e) {
        // the client went away
      }
    }

    /** The head and the Content-Length body of one request, or null at end of stream. */
    private static String readRequest(InputStream in) throws IOException, InterruptedException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int b;
      while ((b = in.read()) >= 0) {
        head.write(b);
        String h = head.toString(StandardCharsets.ISO_8859_1);
        if (h.endsWith("\r\n\r\n")) {
          int length = 0;
          for (String line : h.split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).trim());
            }
          }
          byte[] body = in.readNBytes(length);
          return h + new String(body, StandardCharsets.UTF_8);
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      server.close();
      synchronized (open) {
        for (Socket s : open) {
          s.close();
        }
      }
    }
  }

  private final List<AutoCloseable> closing = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : closing) {
      c.close();
    }
  }

  private ScriptedServer server(Function<String, byte[]> script) throws IOException {
    ScriptedServer s = new ScriptedServer(script);
    closing.add(s);
    return s;
  }

  private Http1Client client() {
    Http1Client client = new Http1Client(Duration.ofSeconds(5), () -> {
      throw new IllegalStateException("no TLS in these tests");
    }, null, new CookieManager(), true);
    closing.add(client::shutdownNow);
    return client;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static HttpRequest post(URI uri, String body) {
    return HttpRequest.newBuilder(uri).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build();
  }

  @Test
  void aFixedLengthAnswerArrivesAndTheConnectionIsReused() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"));
    Http1Client client = client();
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> response = client.send(post(s.uri("/mcp?x=1"), "{\"n\":" + i + "}"),
          HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(response.body()).isEqualTo("{}");
      assertThat(response.headers().firstValue("content-type")).contains("application/json");
    }
    assertThat(s.connections.get()).isEqualTo(1);
    String first = s.requests.take();
    assertThat(first).startsWith("POST /mcp?x=1 HTTP/1.1\r\n")
        .contains("Host: 127.0.0.1:" + s.server.getLocalPort() + "\r\n")
        .contains("Content-Length: 7\r\n")
        .endsWith("\r\n\r\n{\"n\":0}");
  }

  @Test
  void aChunkedAnswerWithExtensionsAndTrailersIsDecodedAndItsConnectionReused() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"));
    Http1Client client = client();
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("hello, world");
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("hello, world");
    assertThat(s.connections.get()).isEqualTo(1);
  }

  @Test
  void aBodyDelimitedByTheConnectionsEndIsReadToTheEndAndTheConnectionNotReused() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nall of it"));
    Http1Client client = client();
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("all of it");
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("all of it");
    assertThat(s.connections.get()).isEqualTo(2);
  }

  @Test
  void informationalAnswersAreSkipped() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n"
        + "HTTP/1.1 202 Accepted\r\nContent-Length: 0\r\n\r\n"));
    HttpResponse<String> response = client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(202);
    assertThat(response.body()).isEmpty();
  }

  @Test
  void aBodyCutShortFailsWithAnErrorThatSaysSo() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nConnection: close\r\n\r\nabc"));
    assertThatThrownBy(() -> client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("7 bytes of the response body missing");
  }

  @Test
  void malformedHeadsAreRefusedWithTheLineQuoted() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 2x0 OK\r\n\r\n"));
    assertThatThrownBy(() -> client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("malformed response status line: HTTP/1.1 2x0 OK");
    ScriptedServer t = server(r -> bytes("HTTP/1.1 200 OK\r\nbad header\r\n\r\n"));
    assertThatThrownBy(() -> client().send(post(t.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("malformed response header line: bad header");
    ScriptedServer u = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}"));
    assertThatThrownBy(() -> client().send(post(u.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("conflicting Content-Length");
    ScriptedServer v = server(r -> bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n-5\r\nhello\r\n"));
    assertThatThrownBy(() -> client().send(post(v.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("malformed chunk size");
  }

  @Test
  void aHeadPastItsBoundIsRefused() throws Exception {
    String huge = "X-Big: " + "a".repeat(Http1Head.MAX_BYTES) + "\r\n";
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\n" + huge + "Content-Length: 0\r\n\r\n"));
    assertThatThrownBy(() -> client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("response head larger than " + Http1Head.MAX_BYTES);
  }

  @Test
  void aServerThatClosesWithoutAnsweringIsReported() throws Exception {
    ScriptedServer s = server(r -> null);
    assertThatThrownBy(() -> client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(IOException.class).hasMessageContaining("closed the connection without answering");
  }

  @Test
  void theRequestTimeoutBoundsTheWaitForTheHead() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    ScriptedServer s = server(r -> {
      try {
        never.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return null;
    });
    closing.add(never::countDown);
    HttpRequest request = HttpRequest.newBuilder(s.uri("/")).timeout(Duration.ofMillis(200))
        .POST(HttpRequest.BodyPublishers.ofString("{}")).build();
    assertThatThrownBy(() -> client().send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(HttpTimeoutException.class).hasMessage("request timed out");
  }

  @Test
  void anUnreachableAddressFailsToConnect() throws Exception {
    int port;
    try (ServerSocket probe = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    HttpRequest request = post(URI.create("http://127.0.0.1:" + port + "/"), "{}");
    assertThatThrownBy(() -> client().send(request, HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(java.net.ConnectException.class)
        .isNotInstanceOf(HttpConnectTimeoutException.class);
  }

  @Test
  void cancellingTheFutureClosesABodyBeingStreamed() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n6\r\ndata:\n\r\n"));
    Http1Client client = client();
    CompletableFuture<HttpResponse<InputStream>> future =
        client.sendAsync(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofInputStream());
    InputStream body = future.get(10, TimeUnit.SECONDS).body();
    assertThat(new String(body.readNBytes(6), StandardCharsets.UTF_8)).isEqualTo("data:\n");
    body.close(); // the subscriber cancels: the connection is closed, not read on
    assertThat(client.isTerminated()).isFalse();
    assertThat(s.closedByClient.poll(10, TimeUnit.SECONDS)).isNotNull(); // the server sees the close
  }

  @Test
  void cookiesSetByTheServerAreSentBack() throws Exception {
    AtomicInteger n = new AtomicInteger();
    ScriptedServer s = server(r -> bytes(n.getAndIncrement() == 0
        ? "HTTP/1.1 200 OK\r\nSet-Cookie: lb=node-3; Path=/\r\nContent-Length: 0\r\n\r\n"
        : "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"));
    Http1Client client = client();
    client.send(post(s.uri("/mcp"), "{}"), HttpResponse.BodyHandlers.discarding());
    client.send(post(s.uri("/mcp"), "{}"), HttpResponse.BodyHandlers.discarding());
    s.requests.take();
    assertThat(s.requests.take()).contains("\r\nCookie: lb=node-3\r\n");
  }

  @Test
  void aShortKeepAliveTimeoutFromTheServerIsHonoured() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=1\r\nContent-Length: 0\r\n\r\n"));
    Http1Client client = client();
    client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.discarding());
    client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.discarding());
    // timeout=1 leaves no safe idle time: every exchange gets a connection of its own
    assertThat(s.connections.get()).isEqualTo(2);
  }

  @Test
  void anIdleConnectionIsClosedWhenItsIdleLimitPasses() throws Exception {
    // timeout=2 leaves a second: the pooled connection is closed then, not held until reused
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nKeep-Alive: timeout=2\r\nContent-Length: 0\r\n\r\n"));
    client().send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.discarding());
    assertThat(s.closedByClient.poll(10, TimeUnit.SECONDS)).isNotNull();
  }

  @Test
  void cancellingACompletedResponseLeavesItsPooledConnectionAlone() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"));
    Http1Client client = client();
    CompletableFuture<HttpResponse<String>> first = client.sendAsync(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString());
    assertThat(first.get(10, TimeUnit.SECONDS).body()).isEqualTo("{}");
    assertThat(first.cancel(true)).isFalse(); // done: nothing to cancel, nothing closed
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{}");
    assertThat(s.connections.get()).isEqualTo(1);
    assertThat(s.closedByClient).isEmpty();
  }

  @Test
  void shuttingDownEndsABodyWhoseSubscriberStoppedAsking() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n6\r\ndata:\n\r\n"));
    Http1Client client = client();
    AsksOnce oneThenSilence = new AsksOnce();
    CompletableFuture<HttpResponse<Void>> future = client.sendAsync(post(s.uri("/"), "{}"), info -> oneThenSilence);
    assertThat(oneThenSilence.first.await(10, TimeUnit.SECONDS)).isTrue();
    client.shutdownNow();
    assertThatThrownBy(() -> oneThenSilence.body.get(10, TimeUnit.SECONDS)).hasMessageContaining("shut down");
    assertThat(future).failsWithin(Duration.ofSeconds(10));
  }

  @Test
  void aConnectionTheServerClosedWhileItWaitedIsNotUsedAgain() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nX-Then-Close: 1\r\nContent-Length: 2\r\n\r\n{}"));
    Http1Client client = client();
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{}");
    Await.until("the server closed its side", Duration.ofSeconds(10), () -> s.connections.get() == 1 && s.open.getFirst().isClosed());
    long waited = System.nanoTime();
    Await.until("the connection idle past the check", Duration.ofSeconds(10),
        () -> System.nanoTime() - waited > Http1Pool.CHECK_AFTER_NANOS);
    assertThat(client.send(post(s.uri("/"), "{}"), HttpResponse.BodyHandlers.ofString()).body()).isEqualTo("{}");
    assertThat(s.connections.get()).isEqualTo(2);
  }

  @Test
  void aGetCarriesNoBodyHeadersAndAnEmptyPostSaysItsLength() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 204 No Content\r\n\r\n"));
    Http1Client client = client();
    client.send(HttpRequest.newBuilder(s.uri("/a")).GET().build(), HttpResponse.BodyHandlers.discarding());
    client.send(HttpRequest.newBuilder(s.uri("/b")).POST(HttpRequest.BodyPublishers.noBody()).build(),
        HttpResponse.BodyHandlers.discarding());
    String get = s.requests.take();
    assertThat(get).startsWith("GET /a HTTP/1.1\r\n").doesNotContain("Content-Length").doesNotContain("Transfer-Encoding");
    assertThat(s.requests.take()).startsWith("POST /b HTTP/1.1\r\n").contains("Content-Length: 0\r\n");
    assertThat(s.connections.get()).isEqualTo(1); // 204 has no body: the connection goes on
  }

  @Test
  void aShutDownClientRefusesNewExchanges() {
    Http1Client client = client();
    client.shutdownNow();
    CompletableFuture<HttpResponse<String>> f =
        client.sendAsync(post(URI.create("http://127.0.0.1:9/"), "{}"), HttpResponse.BodyHandlers.ofString());
    assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).hasMessageContaining("shut down");
    assertThat(client.isTerminated()).isTrue();
  }

  /** A subscriber that asks for one piece and never again, and records what it was told. */
  private static class AsksOnce implements HttpResponse.BodySubscriber<Void> {
    final CompletableFuture<Void> body = new CompletableFuture<>();
    final AtomicInteger pieces = new AtomicInteger();
    final CountDownLatch first = new CountDownLatch(1);

    @Override
    public java.util.concurrent.CompletionStage<Void> getBody() {
      return body;
    }

    @Override
    public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
      subscription.request(1);
    }

    @Override
    public void onNext(List<java.nio.ByteBuffer> item) {
      pieces.incrementAndGet();
      first.countDown();
    }

    @Override
    public void onError(Throwable throwable) {
      body.completeExceptionally(throwable);
    }

    @Override
    public void onComplete() {
      body.complete(null);
    }
  }

  @Test
  void theEndOfABodyIsSignalledWithoutFurtherDemandAndItsConnectionReused() throws Exception {
    ScriptedServer s = server(r -> r.contains("/chunked")
        ? bytes("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
        : bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"));
    Http1Client client = client();
    for (String path : List.of("/fixed", "/chunked", "/fixed")) {
      AsksOnce subscriber = new AsksOnce();
      HttpResponse<Void> response = client.sendAsync(post(s.uri(path), "{}"), info -> subscriber).get(10, TimeUnit.SECONDS);
      assertThat(response.statusCode()).isEqualTo(200);
      assertThat(subscriber.pieces.get()).as(path).isEqualTo(1); // completed after its one piece, asking no more
    }
    assertThat(s.connections.get()).isEqualTo(1);
  }

  @Test
  void aSubscriberThatThrowsOnSubscribeFailsItsExchangeAndLeavesNothingOpen() throws Exception {
    ScriptedServer s = server(r -> bytes("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"));
    Http1Client client = client();
    HttpResponse.BodyHandler<Void> broken = info -> new AsksOnce() {
      @Override
      public void onSubscribe(java.util.concurrent.Flow.Subscription subscription) {
        throw new IllegalStateException("the subscriber broke");
      }
    };
    CompletableFuture<HttpResponse<Void>> future = client.sendAsync(post(s.uri("/"), "{}"), broken);
    assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).hasMessageContaining("the subscriber broke");
    assertThat(s.closedByClient.poll(10, TimeUnit.SECONDS)).as("the connection closed, not pooled").isNotNull();
    client.shutdown();
    Await.until("no exchange left under way", Duration.ofSeconds(10), client::isTerminated);
  }
}
