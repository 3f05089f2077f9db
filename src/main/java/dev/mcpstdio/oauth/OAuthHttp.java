package dev.mcpstdio.oauth;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The OAuth client's HTTP: discovery, registration and token requests. The client it is given
 * must follow no redirects (a validated token endpoint must not be able to send credentials
 * elsewhere with a 307) and keep no cookies; a 3xx is an answer like any other, which callers
 * treat as a failure. Bodies are read up to {@link #MAX_BODY}; a longer one is a failure, never a
 * truncated success. Every request has a timeout.
 */
public final class OAuthHttp {

  /** An OAuth answer larger than this is refused (1 MiB; metadata and tokens are kilobytes). */
  static final int MAX_BODY = 1 << 20;

  /** One answer: status, content type, the WWW-Authenticate values, the body, and its Cache-Control (or null). */
  public record Answer(int status, String contentType, List<String> challenges, byte[] body, String cacheControl) {
    boolean ok() {
      return status / 100 == 2;
    }
  }

  private final HttpClient client;
  private final Duration timeout;

  public OAuthHttp(HttpClient client, Duration timeout) {
    if (client.followRedirects() != HttpClient.Redirect.NEVER || client.cookieHandler().isPresent()) {
      throw new IllegalArgumentException("the OAuth client must follow no redirects and keep no cookies");
    }
    this.client = client;
    this.timeout = timeout;
  }

  public Answer get(URI uri, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout).GET().header("Accept", "application/json");
    headers.forEach(b::setHeader); // the caller's value replaces a default, never joins it
    return send(b.build());
  }

  /** A form POST ({@code application/x-www-form-urlencoded}); null values are left out. */
  public Answer postForm(URI uri, Map<String, String> form, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Content-Type", "application/x-www-form-urlencoded").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(FormEncoding.encode(form)));
    headers.forEach(b::setHeader); // the caller's value replaces a default, never joins it
    return send(b.build());
  }

  public Answer postJson(URI uri, String json, Map<String, String> headers) throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Content-Type", "application/json").header("Accept", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(b::setHeader); // the caller's value replaces a default, never joins it
    return send(b.build());
  }

  /**
   * The {@code WWW-Authenticate} values of a 401 to a JSON POST; empty for any other answer, whose
   * body is not read (a server that lets the POST through may answer with an endless event
   * stream).
   */
  public List<String> challengesOf401(URI uri, String json, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(timeout)
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
    headers.forEach(b::setHeader);
    HttpResponse<InputStream> r = client.send(b.build(), HttpResponse.BodyHandlers.ofInputStream());
    try (InputStream ignored = r.body()) {
      return r.statusCode() == 401 ? r.headers().allValues("WWW-Authenticate") : List.of();
    }
  }
  private Answer send(HttpRequest request) throws IOException, InterruptedException {
    HttpResponse<InputStream> r = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
    byte[] body;
    try (InputStream in = r.body()) {
      body = readBounded(in);
    }
    return new Answer(r.statusCode(), r.headers().firstValue("Content-Type").orElse(null),
        r.headers().allValues("WWW-Authenticate"), body, r.headers().firstValue("Cache-Control").orElse(null));
  }

  private static byte[] readBounded(InputStream in) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n; (n = in.read(buffer)) >= 0; ) {
      if (out.size() + n > MAX_BODY) {
        throw new IOException("the OAuth server's answer is over " + (MAX_BODY >> 20) + " MiB");
      }
      out.write(buffer, 0, n);
    }
    return out.toByteArray();
  }
}
