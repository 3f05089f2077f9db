package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;

/**
 * Coverage-guided fuzzing of what the OAuth client reads from servers it is only starting to
 * trust (docs/fuzzing.md): {@code WWW-Authenticate}, metadata and token answers, form bodies, and
 * discovery end to end over answers the fuzzer writes. Seeds:
 * {@code src/test/resources/dev/mcpstdio/oauth/OAuthFuzzTestInputs/}.
 */
class OAuthFuzzTest {

  /**
   * {@link AuthChallenge#parse} is total and bounded (at most 64 parameters a challenge, no value
   * longer than the 16 KiB it reads), and what it reads survives being written back as a header and
   * read again unchanged.
   */
  @FuzzTest(maxDuration = "5m")
  void authChallengeIsTotalBoundedAndRoundTrips(String header) {
    List<AuthChallenge> challenges = AuthChallenge.parse(header);
    for (AuthChallenge c : challenges) {
      assertThat(c.params().size()).isLessThanOrEqualTo(64);
      assertThat(c.token68() == null || c.params().isEmpty()).isTrue();
      c.params().values().forEach(v -> assertThat(v.length()).isLessThanOrEqualTo(16 * 1024));
    }
    String written = challenges.stream().map(OAuthFuzzTest::write).collect(Collectors.joining(", "));
    if (written.length() <= 16 * 1024) {
      assertThat(AuthChallenge.parse(written)).as("re-read of %s", written).isEqualTo(challenges);
    }
  }

  /**
   * {@link OAuthJson#object} never throws and gives a map exactly for the bodies that are one JSON
   * object, as Jackson reads them.
   */
  @FuzzTest(maxDuration = "5m")
  void oauthJsonReadsExactlyTheBodiesThatAreOneObject(byte[] body) {
    Map<String, Object> fields = OAuthJson.object(body);
    assertThat(fields != null).as("read as one object: %s", new String(body, StandardCharsets.UTF_8))
        .isEqualTo(isOneObject(body));
  }

  /**
   * {@link TokenResponse#parse} never throws; a grant carries a token a header can carry; what a
   * refusal shows is RFC 6749's error characters only, cut to {@link TokenResponse#MAX_SHOWN}.
   */
  @FuzzTest(maxDuration = "5m")
  void tokenResponseIsTotalAndShowsOnlySafeText(FuzzedDataProvider data) {
    int status = data.pickValue(new int[] {200, 201, 400, 401, 429, 500, 503, 302});
    String contentType = data.pickValue(new String[] {"application/json", "application/json; charset=utf-8",
        "application/x-www-form-urlencoded", "text/html", "application/problem+json", ""});
    byte[] body = data.consumeRemainingAsBytes();
    TokenResponse r = TokenResponse.parse(status, contentType.isEmpty() ? null : contentType, body);
    switch (r) {
      case TokenResponse.Granted g -> {
        assertThat(status / 100).isEqualTo(2);
        assertThat(g.accessToken()).isNotEmpty().matches("[\\x21-\\x7e]+");
        assertThat(g.tokenType()).isEqualTo("Bearer");
        assertThat(g.expiresIn() == null || g.expiresIn() >= 1).isTrue();
      }
      case TokenResponse.Refused f -> {
        assertSafe(f.error());
        assertSafe(f.description());
      }
      case TokenResponse.Unusable u -> assertThat(u.reason()).isNotBlank();
      case TokenResponse.Unreachable u -> throw new AssertionError("parse cannot be unreachable: " + u);
    }
  }

  /** {@link FormEncoding#decode} never throws, and {@code decode(encode(m))} is {@code m}. */
  @FuzzTest(maxDuration = "5m")
  void formEncodingRoundTrips(FuzzedDataProvider data) {
    Map<String, String> fields = new LinkedHashMap<>();
    for (int k = data.consumeInt(0, 6); k > 0; k--) {
      String key = data.consumeString(20);
      String value = data.consumeString(40);
      if (encodable(key) && encodable(value)) {
        fields.putIfAbsent(key, value);
      }
    }
    String raw = data.consumeRemainingAsString();
    FormEncoding.decode(raw);
    assertThat(FormEncoding.decode(FormEncoding.encode(fields))).isEqualTo(fields);
  }

  /**
   * Discovery over answers the fuzzer writes (a 401 challenge, metadata documents with hostile
   * URLs, garbage, errors) ends in a result or a {@link Discovery.Refused}, never another
   * exception, and every endpoint it hands on passes {@link EndpointGuard}.
   */
  @FuzzTest(maxDuration = "5m")
  void discoveryEndsInAGuardedResultOrARefusal(FuzzedDataProvider data) throws InterruptedException {
    String server = data.pickValue(new String[] {"https://mcp.example.com/mcp", "https://mcp.example.com",
        "http://127.0.0.1:8080/a/b/", "https://[::1]:8443/mcp?x=1"});
    String hint = data.consumeBoolean() ? data.consumeString(80) : null;
    String expectedResource = data.consumeBoolean() ? data.consumeString(60) : null;
    Discovery discovery = new Discovery(new OAuthHttp(new ScriptedClient(data), Duration.ofSeconds(5)));
    Discovery.Result result;
    try {
      result = discovery.discover(server, hint, expectedResource);
    } catch (Discovery.Refused e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    Discovery.ServerMetadata m = result.server();
    for (URI endpoint : new URI[] {m.authorizationEndpoint(), m.tokenEndpoint(), m.registrationEndpoint(),
        m.deviceAuthorizationEndpoint(), m.revocationEndpoint()}) {
      if (endpoint != null) {
        assertThat(EndpointGuard.refusal(endpoint.toString())).as("endpoint %s", endpoint).isNull();
      }
    }
    if (result.resource() != null) {
      assertThat(EndpointGuard.refusal(result.resource().authorizationServer())).isNull();
    }
  }

  // ------------------------------------------------------------------ helpers

  private static String write(AuthChallenge c) {
    if (c.token68() != null) {
      return c.scheme() + " " + c.token68();
    }
    StringBuilder out = new StringBuilder(c.scheme());
    String sep = " ";
    for (Map.Entry<String, String> p : c.params().entrySet()) {
      out.append(sep).append(p.getKey()).append("=\"")
          .append(p.getValue().replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
      sep = ", ";
    }
    return out.toString();
  }

  private static boolean isOneObject(byte[] body) {
    try (JsonParser p = OAuthJson.JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return false;
      }
      p.skipChildren();
      return p.nextToken() == null;
    } catch (IOException e) {
      return false;
    }
  }

  private static void assertSafe(String shown) {
    if (shown != null) {
      assertThat(shown.length()).isLessThanOrEqualTo(TokenResponse.MAX_SHOWN);
      assertThat(shown).matches("[\\x20-\\x7e&&[^\"\\\\]]*");
    }
  }

  /** Survives UTF-8: no lone surrogate (which URL encoding cannot carry). */
  private static boolean encodable(String s) {
    return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8).equals(s);
  }

  /**
   * An {@link HttpClient} whose answers the fuzzer writes: each request takes the next status,
   * challenge and body from the input (a metadata document with fuzzed URLs, or raw bytes).
   */
  private static final class ScriptedClient extends HttpClient {
    private static final String[] URL_FIELDS = {"resource", "issuer", "authorization_endpoint", "token_endpoint",
        "registration_endpoint", "device_authorization_endpoint", "revocation_endpoint"};
    private static final String[] URL_PIECES = {"https://mcp.example.com", "https://as.example.com", "http://127.0.0.1:8080",
        "http://evil.example", "https://user@h", "https://h:99999", "javascript:x", "https://[::1]", "/mcp", "/a/b", "?q",
        "#f", "%zz", " ", ""};

    private final FuzzedDataProvider data;

    ScriptedClient(FuzzedDataProvider data) {
      this.data = data;
    }

    private String url() {
      return data.consumeBoolean()
          ? data.pickValue(URL_PIECES) + data.pickValue(URL_PIECES) + data.consumeString(12)
          : data.consumeString(60);
    }

    private byte[] body() {
      if (data.consumeBoolean()) {
        return data.consumeBytes(data.consumeInt(0, 300));
      }
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (JsonGenerator g = OAuthJson.JSON.createGenerator(out)) {
        g.writeStartObject();
        for (String field : URL_FIELDS) {
          if (data.consumeBoolean()) {
            g.writeStringField(field, url());
          }
        }
        g.writeArrayFieldStart("authorization_servers");
        for (int k = data.consumeInt(0, 3); k > 0; k--) {
          g.writeString(url());
        }
        g.writeEndArray();
        g.writeArrayFieldStart("scopes_supported");
        g.writeString(data.consumeString(10));
        g.writeEndArray();
        g.writeBooleanField("authorization_response_iss_parameter_supported", data.consumeBoolean());
        g.writeEndObject();
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      return out.toByteArray();
    }

    @Override
    @SuppressWarnings("unchecked")
    public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      int status = data.pickValue(new int[] {200, 200, 200, 401, 404, 500, 302});
      List<String> challenges = new ArrayList<>();
      if (data.consumeBoolean()) {
        challenges.add(data.consumeBoolean()
            ? "Bearer resource_metadata=\"" + url() + "\", scope=\"" + data.consumeString(10) + "\""
            : data.consumeString(80));
      }
      String contentType = data.consumeBoolean() ? "application/json" : data.consumeString(20);
      byte[] body = body();
      Map<String, List<String>> headers = new LinkedHashMap<>();
      headers.put("Content-Type", List.of(contentType));
      headers.put("WWW-Authenticate", challenges);
      HttpHeaders h = HttpHeaders.of(headers, (name, value) -> true);
      InputStream stream = new ByteArrayInputStream(body);
      return (HttpResponse<T>) new Answer(request, status, h, stream);
    }

    private record Answer(HttpRequest request, int statusCode, HttpHeaders headers, InputStream body)
        implements HttpResponse<InputStream> {
      @Override
      public Optional<HttpResponse<InputStream>> previousResponse() {
        return Optional.empty();
      }

      @Override
      public Optional<SSLSession> sslSession() {
        return Optional.empty();
      }

      @Override
      public URI uri() {
        return request.uri();
      }

      @Override
      public HttpClient.Version version() {
        return HttpClient.Version.HTTP_1_1;
      }
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
      return CompletableFuture.completedFuture(send(request, handler));
    }

    @Override
    public <T> CompletableFuture<HttpResponse<T>> sendAsync(
        HttpRequest request, HttpResponse.BodyHandler<T> handler, HttpResponse.PushPromiseHandler<T> push) {
      return sendAsync(request, handler);
    }

    @Override
    public Optional<CookieHandler> cookieHandler() {
      return Optional.empty();
    }

    @Override
    public Optional<Duration> connectTimeout() {
      return Optional.empty();
    }

    @Override
    public Redirect followRedirects() {
      return Redirect.NEVER;
    }

    @Override
    public Optional<ProxySelector> proxy() {
      return Optional.empty();
    }

    @Override
    public SSLContext sslContext() {
      return null;
    }

    @Override
    public SSLParameters sslParameters() {
      return null;
    }

    @Override
    public Optional<Authenticator> authenticator() {
      return Optional.empty();
    }

    @Override
    public Version version() {
      return Version.HTTP_1_1;
    }

    @Override
    public Optional<Executor> executor() {
      return Optional.empty();
    }
  }
}
