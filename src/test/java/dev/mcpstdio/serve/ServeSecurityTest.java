package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Host and Origin checks, the static bearer, limits and what reaches the log. */
class ServeSecurityTest {

  /** A child that answers initialize and then stays quiet; enough for the checks in front of it. */
  private static final dev.mcpstdio.process.ChildSpec QUIET = ServeHarness.shAfterInit("cat >/dev/null");

  @Test
  void evilHostAndOriginAreRefusedBeforeAnythingElse() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET))) {
      assertThat(raw(serve, "GET /mcp HTTP/1.1\r\nHost: evil.example.com\r\nConnection: close\r\n\r\n"))
          .startsWith("HTTP/1.1 403").contains("Host header not allowed");
      assertThat(raw(serve, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1.evil.example.com:" + serve.gateway.port()
          + "\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 403");
      HttpResponse<String> origin = serve.post(null, INIT, false, "Origin", "http://evil.example.com");
      assertThat(origin.statusCode()).isEqualTo(403);
      assertThat(origin.body()).contains("Origin not allowed");
      assertThat(serve.post(null, INIT, false, "Origin", "http://localhost:3000").statusCode()).isEqualTo(200);
      assertThat(raw(serve, "GET /healthz HTTP/1.1\r\nHost: localhost:" + serve.gateway.port()
          + "\r\nConnection: close\r\n\r\n")).startsWith("HTTP/1.1 200");
      serve.awaitLog("refused GET /mcp: Host header not allowed");
    }
  }

  @Test
  void listedAndPublicOriginsAreAllowed() throws Exception {
    ServeConfig config = ServeHarness.config(QUIET)
        .withOrigins(List.of("https://app.example"), URI.create("https://mcp.example.com/base"));
    try (ServeHarness serve = ServeHarness.start(config)) {
      assertThat(serve.post(null, INIT, false, "Origin", "https://app.example").statusCode()).isEqualTo(200);
      assertThat(serve.post(null, INIT, false, "Origin", "https://mcp.example.com").statusCode()).isEqualTo(200);
      assertThat(serve.post(null, INIT, false, "Origin", "https://other.example").statusCode()).isEqualTo(403);
      assertThat(raw(serve, "GET /healthz HTTP/1.1\r\nHost: mcp.example.com\r\nConnection: close\r\n\r\n"))
          .startsWith("HTTP/1.1 200");
    }
  }

  @Test
  void theStaticBearerIsRequiredAndNeverLogged() throws Exception {
    String token = "s3cret-token-value";
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken(token))) {
      HttpResponse<String> none = serve.post(null, INIT, false);
      assertThat(none.statusCode()).isEqualTo(401);
      assertThat(none.body()).contains("authentication required");
      String metadata = "http://127.0.0.1:" + serve.gateway.port() + "/.well-known/oauth-protected-resource/mcp";
      assertThat(none.headers().firstValue("WWW-Authenticate"))
          .hasValue("Bearer resource_metadata=\"" + metadata + "\"");

      HttpResponse<String> wrong = serve.post(null, INIT, false, "Authorization", "Bearer nope");
      assertThat(wrong.statusCode()).isEqualTo(401);
      assertThat(wrong.headers().firstValue("WWW-Authenticate").orElse("")).startsWith("Bearer error=\"invalid_token\"");
      assertThat(serve.post(null, INIT, false, "Authorization", "Basic " + token).statusCode()).isEqualTo(401);

      HttpResponse<String> right = serve.post(null, INIT, false, "Authorization", "Bearer " + token);
      assertThat(right.statusCode()).isEqualTo(200);

      HttpResponse<String> document = serve.http.send(HttpRequest.newBuilder(URI.create(metadata)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(document.statusCode()).isEqualTo(200);
      assertThat(document.body()).contains("\"resource\":\"http://127.0.0.1:" + serve.gateway.port() + "/mcp\"")
          .contains("\"bearer_methods_supported\":[\"header\"]");
      // health checks are for load balancers: no token
      assertThat(serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/healthz")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
      assertThat(serve.log()).doesNotContain(token);
    }
  }

  @Test
  void reflectedHostValuesAreSanitised() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("t").withOrigins(List.of(), null)
        .withTrustProxyHeaders(true))) {
      String reply = raw(serve, "POST /mcp HTTP/1.1\r\nHost: localhost:" + serve.gateway.port()
          + "\r\nX-Forwarded-Host: a\"b,evil\r\nX-Forwarded-Proto: javascript\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 401")
          .contains("resource_metadata=\"http://ab/.well-known/oauth-protected-resource/mcp\"");
    }
  }

  private static final String FORWARDED = "X-Forwarded-Host: attacker.example\r\nX-Forwarded-Proto: https\r\n";

  @Test
  void forwardedHeadersAreIgnoredWithoutAProxyInFront() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("t"))) {
      String host = "localhost:" + serve.gateway.port();
      String challenge = raw(serve, "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\n" + FORWARDED
          + "Content-Length: 0\r\nConnection: close\r\n\r\n");
      assertThat(challenge).startsWith("HTTP/1.1 401")
          .contains("resource_metadata=\"http://" + host + "/.well-known/oauth-protected-resource/mcp\"")
          .doesNotContain("attacker");
      String document = raw(serve, "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + host + "\r\n"
          + FORWARDED + "Connection: close\r\n\r\n");
      assertThat(document).startsWith("HTTP/1.1 200").contains("\"resource\":\"http://" + host + "/mcp\"")
          .doesNotContain("attacker");
    }
  }

  @Test
  void forwardedHeadersAreReflectedWhenTheFlagSaysAProxyIsInFront() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET).withAuthToken("t").withTrustProxyHeaders(true))) {
      String host = "localhost:" + serve.gateway.port();
      String challenge = raw(serve, "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\n" + FORWARDED
          + "Content-Length: 0\r\nConnection: close\r\n\r\n");
      assertThat(challenge).startsWith("HTTP/1.1 401")
          .contains("resource_metadata=\"https://attacker.example/.well-known/oauth-protected-resource/mcp\"");
      String document = raw(serve, "GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: " + host + "\r\n"
          + FORWARDED + "Connection: close\r\n\r\n");
      assertThat(document).contains("\"resource\":\"https://attacker.example/mcp\"");
    }
  }

  @Test
  void thePublicUrlWinsOverForwardedHeaders() throws Exception {
    ServeConfig config = ServeHarness.config(QUIET).withAuthToken("t").withTrustProxyHeaders(true)
        .withOrigins(List.of(), URI.create("https://mcp.example.com/base"));
    try (ServeHarness serve = ServeHarness.start(config)) {
      String challenge = raw(serve, "POST /mcp HTTP/1.1\r\nHost: mcp.example.com\r\n" + FORWARDED
          + "Content-Length: 0\r\nConnection: close\r\n\r\n");
      assertThat(challenge).startsWith("HTTP/1.1 401")
          .contains("resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/base/mcp\"");
    }
  }

  @Test
  void aDeclaredBodyOverTheLimitIsRefusedBeforeItIsRead() throws Exception {
    ServeConfig config = ServeHarness.config(QUIET).withLimits(5, Duration.ZERO, 1000, Duration.ofSeconds(5), Duration.ofSeconds(15));
    try (ServeHarness serve = ServeHarness.start(config)) {
      // only the headers are sent: the 413 must come without the gateway waiting for the body
      String reply = raw(serve, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
          + "Content-Length: 50000000\r\n\r\n");
      assertThat(reply).startsWith("HTTP/1.1 413").contains("message too large");
      String big = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"pad\":\"" + "x".repeat(2000) + "\"}}";
      HttpResponse<String> chunked = serve.http.send(serve.request(null).header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new java.io.ByteArrayInputStream(big.getBytes(StandardCharsets.UTF_8))))
          .build(), HttpResponse.BodyHandlers.ofString());
      assertThat(chunked.statusCode()).isEqualTo(413);
      assertThat(raw(serve, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n")).startsWith("HTTP/1.1 400");
    }
  }

  @Test
  void theSessionCapRefusesNewSessionsWith503UntilOneEnds() throws Exception {
    ServeConfig config = ServeHarness.config(QUIET).withLimits(1, Duration.ZERO, 1 << 20, Duration.ofSeconds(5), Duration.ofSeconds(15));
    try (ServeHarness serve = ServeHarness.start(config)) {
      String first = serve.post(null, INIT, false).headers().firstValue("Mcp-Session-Id").orElseThrow();
      HttpResponse<String> second = serve.post(null, INIT, false);
      assertThat(second.statusCode()).isEqualTo(503);
      assertThat(second.body()).contains("session limit reached (1)");
      HttpResponse<String> notReady = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/readyz")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(notReady.statusCode()).isEqualTo(503);
      serve.delete(first);
      assertThat(serve.post(null, INIT, false).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void theAccessLogRedactsQueryStrings() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET))) {
      serve.http.send(HttpRequest.newBuilder(URI.create(serve.url + "?token=abc123")).build(), HttpResponse.BodyHandlers.ofString());
      serve.awaitLog("\"GET /mcp?<redacted>\" 400");
      assertThat(serve.log()).doesNotContain("abc123");
    }
  }

  @Test
  void unknownPathsAndMethodsAreAnsweredPlainly() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(QUIET))) {
      assertThat(serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/elsewhere")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
      HttpResponse<String> put = serve.http.send(serve.request(null).PUT(HttpRequest.BodyPublishers.ofString("{}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(put.statusCode()).isEqualTo(405);
      assertThat(put.headers().firstValue("Allow")).hasValue("GET, POST, DELETE");
      // without auth there is no protected-resource document
      assertThat(serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/.well-known/oauth-protected-resource/mcp")).build(),
          HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(404);
    }
  }

  /** Sends raw bytes (headers a client library would refuse to send) and returns the whole reply. */
  static String raw(ServeHarness serve, String request) throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", serve.gateway.port()), 5000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.ISO_8859_1));
      out.flush();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[8192];
      StringBuilder reply = new StringBuilder();
      for (int n; (n = in.read(buffer)) > 0; ) {
        reply.append(new String(buffer, 0, n, StandardCharsets.ISO_8859_1));
        if (reply.indexOf("\r\n\r\n") >= 0 && complete(reply)) {
          break;
        }
      }
      return reply.toString();
    }
  }

  private static boolean complete(StringBuilder reply) {
    int head = reply.indexOf("\r\n\r\n");
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?i)content-length: *(\\d+)").matcher(reply.substring(0, head));
    return m.find() && reply.length() - head - 4 >= Integer.parseInt(m.group(1));
  }
}
