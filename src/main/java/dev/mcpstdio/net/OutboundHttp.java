package dev.mcpstdio.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;

/**
 * Builds the HTTP client every outbound exchange uses: {@link Http1Client}, behind the JDK's
 * {@link HttpClient} API.
 *
 * <p>Its settings: HTTP/1.1, redirects never followed (a redirected POST or a cross-origin hop
 * must not carry credentials silently), cookies kept for the client's lifetime (load balancers pin
 * sessions with them), proxies from the environment, the trust stores of {@link TrustStores}
 * (loaded at the first https connection), TCP keepalive unless turned off, and a virtual thread
 * per exchange.
 */
public final class OutboundHttp {

  /**
   * Idle HTTP/1.1 connections are closed after this long. Common servers close idle connections
   * after 5 s (Node, uvicorn); reusing one they are closing at that moment makes a request fail
   * after it was written, which is not safe to retry for {@code tools/call}. Staying below that
   * avoids the race at the cost of a reconnect after an idle pause.
   */
  static final long KEEPALIVE_SECONDS = 4;

  private OutboundHttp() {}

  /** Settings that shape the client. */
  public record Settings(Duration connectTimeout, List<Path> caFiles, Map<String, String> env, boolean tcpKeepAlive) {
    public Settings(Duration connectTimeout, List<Path> caFiles, Map<String, String> env) {
      this(connectTimeout, caFiles, env, true);
    }
  }

  public static HttpClient create(Settings settings) throws IOException {
    return build(settings, new CookieManager());
  }

  /**
   * The same client without cookies, for OAuth: discovery and token requests carry no credentials
   * but the ones the protocol names.
   */
  public static HttpClient createWithoutCookies(Settings settings) throws IOException {
    return build(settings, null);
  }

  private static HttpClient build(Settings settings, CookieManager cookies) throws IOException {
    for (Path file : settings.caFiles()) {
      TrustStores.readPem(file); // a missing or empty file fails at start-up, not at the first call
    }
    List<Path> caFiles = List.copyOf(settings.caFiles());
    Supplier<SSLContext> ssl = () -> {
      try {
        return TrustStores.sslContext(caFiles);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    return new Http1Client(settings.connectTimeout(), ssl, EnvProxySelector.fromEnvironment(settings.env()),
        cookies, settings.tcpKeepAlive());
  }
}
