package dev.mcpstdio.net;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieManager;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * Builds the JDK {@link HttpClient} every outbound exchange uses.
 *
 * <p>The JDK client was chosen over Jetty's for start-up time (see docs/dependencies.md). Its
 * settings here: HTTP/1.1 by default (plain-http upgrade probes confuse some servers; https
 * requests ask for HTTP/2 per request), redirects never followed (a redirected POST or a
 * cross-origin hop must not carry credentials silently), cookies kept for the client's lifetime
 * (load balancers pin sessions with them), proxies from the environment, the trust stores of
 * {@link TrustStores}, and virtual threads for all of the client's work.
 */
public final class OutboundHttp {

  /**
   * Idle HTTP/1.1 connections are closed after this long. Common servers close idle connections
   * after 5 s (Node, uvicorn); reusing one they are closing at that moment makes a request fail
   * after it was written, which is not safe to retry for {@code tools/call}. Staying below that
   * avoids the race at the cost of a reconnect after an idle pause.
   */
  static final String KEEPALIVE_SECONDS = "4";

  private OutboundHttp() {}

  /** Settings that shape the client. */
  public record Settings(Duration connectTimeout, List<Path> caFiles, Map<String, String> env) {}

  /**
   * Sets the JDK networking properties the client reads once, at class initialisation. Call before
   * the first client is built.
   */
  public static void configureJdkDefaults() {
    System.setProperty("jdk.httpclient.keepalive.timeout", KEEPALIVE_SECONDS);
    // Allow Basic credentials for proxy CONNECT tunnels (the JDK disables them by default).
    if (System.getProperty("jdk.http.auth.tunneling.disabledSchemes") == null) {
      System.setProperty("jdk.http.auth.tunneling.disabledSchemes", "");
    }
  }

  public static HttpClient create(Settings settings) throws IOException {
    return builder(settings).cookieHandler(new CookieManager()).build();
  }

  /**
   * The same client without cookies, for OAuth: discovery and token requests carry no credentials
   * but the ones the protocol names.
   */
  public static HttpClient createWithoutCookies(Settings settings) throws IOException {
    return builder(settings).build();
  }

  private static HttpClient.Builder builder(Settings settings) throws IOException {
    HttpClient.Builder builder =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(settings.connectTimeout())
            .followRedirects(HttpClient.Redirect.NEVER)
            .executor(Executors.newVirtualThreadPerTaskExecutor())
            .sslContext(TrustStores.sslContext(settings.caFiles()));
    EnvProxySelector proxies = EnvProxySelector.fromEnvironment(settings.env());
    if (proxies == null) {
      // No proxy variables: say so, rather than consult the JDK's default selector per request.
      builder.proxy(HttpClient.Builder.NO_PROXY);
    } else {
      builder.proxy(proxies);
      Authenticator auth = proxies.authenticator();
      if (auth != null) {
        builder.authenticator(auth);
      }
    }
    return builder;
  }
}
