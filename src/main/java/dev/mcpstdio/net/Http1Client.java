package dev.mcpstdio.net;

import java.io.IOException;
import java.net.Authenticator;
import java.net.CookieHandler;
import java.net.InetSocketAddress;
import java.net.Proxy;
import java.net.ProxySelector;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The outbound HTTP client: HTTP/1.1 over blocking sockets, one virtual thread per exchange, behind
 * the JDK's {@link HttpClient} API (its request builder, body publishers and body handlers), so
 * that the relay's request factory, its body subscribers and its retry policy see what they saw
 * with the JDK's own client.
 *
 * <p>Why not the JDK's client: a relay makes tens to a few hundred calls and exits, and most of
 * its CPU over those calls was the JIT compiling the JDK client's asynchronous machinery (its
 * selector loop, {@code CompletableFuture} chains, flow adapters, method handles); an exchange
 * here is a few hundred lines of straight-line blocking code (measured in docs/performance.md).
 * What it does not do, and the gateway never asks for: HTTP/2, redirects (never followed), the
 * {@code Authenticator}'s challenge round trips (proxy credentials from the environment are sent
 * up front, to the proxy only), push promises, WebSockets.
 *
 * <p>Known differences from the JDK's client, none of which the relay relies on: an idle pooled
 * connection the server closed is found out when it is taken again (after 100 ms idle a 1 ms read
 * checks it, {@link Http1Pool}), not by a selector watching it while it waits; a request body is written whole before the response head is read (a
 * server that answers early and stops reading shows as a write error); host names resolve on
 * the exchange's thread: the time counts against the request deadline, but a look-up cannot be
 * cut short by it (nor by the connect timeout).
 *
 * <p>Bounds: connections idle in the pool ({@link Http1Pool}), a response head ({@link
 * Http1Head#MAX_BYTES}), a chunk-size line; the body is handed on piece by piece as the
 * subscriber asks for it, so what a body holds in memory is the subscriber's to bound. Exchanges
 * under way are as many as the callers start (the relay bounds its calls in flight).
 */
public final class Http1Client extends HttpClient {

  private volatile IdleWatchdog.Sweeper sweeper; // started at the first deadline or idle connection
  final Http1Pool pool = new Http1Pool(this::sweeper);
  final CookieHandler cookies; // or null
  final boolean tcpKeepAlive;
  private final Duration connectTimeout;
  private final Supplier<SSLContext> ssl;
  private volatile SSLContext sslContext;
  private final EnvProxySelector proxies; // or null: direct
  private final ThreadFactory threads = Thread.ofVirtual().name("http-", 0).factory();
  private final Set<Http1Exchange<?>> active = ConcurrentHashMap.newKeySet();
  private volatile boolean shutdown;

  /**
   * @param ssl the TLS context, asked for at the first https connection (a relay to an http URL
   *     never loads the TLS stack)
   * @param proxies the proxies to use, or null to connect directly
   * @param cookies where cookies are kept, or null for none
   */
  public Http1Client(Duration connectTimeout, Supplier<SSLContext> ssl, EnvProxySelector proxies,
      CookieHandler cookies, boolean tcpKeepAlive) {
    this.connectTimeout = connectTimeout;
    this.ssl = ssl;
    this.proxies = proxies;
    this.cookies = cookies;
    this.tcpKeepAlive = tcpKeepAlive;
  }

  // ---- what the exchanges ask of the client

  Proxy proxyFor(URI uri) {
    if (proxies == null) {
      return null;
    }
    List<Proxy> chosen = proxies.select(uri);
    return chosen.isEmpty() ? null : chosen.getFirst();
  }

  String proxyAuthorization(InetSocketAddress proxy) {
    return proxies == null ? null : proxies.proxyAuthorization(new Proxy(Proxy.Type.HTTP, proxy));
  }

  int connectMillis() {
    long millis = connectTimeout == null ? 0 : connectTimeout.toMillis();
    return (int) Math.min(Integer.MAX_VALUE, Math.max(millis, connectTimeout == null ? 0 : 1));
  }

  /**
   * The thread that fires request deadlines and closes idle connections: one sweep over the live
   * watchdogs a few times a second, instead of a timer wake-up per request.
   */
  IdleWatchdog.Sweeper sweeper() {
    IdleWatchdog.Sweeper s = sweeper;
    if (s == null) {
      synchronized (this) {
        s = sweeper;
        if (s == null) {
          s = new IdleWatchdog.Sweeper("http-deadlines");
          sweeper = s;
        }
      }
    }
    return s;
  }

  void ended(Http1Exchange<?> exchange) {
    active.remove(exchange);
  }

  // ---- HttpClient

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    Http1Exchange<T> exchange = new Http1Exchange<>(this, request, handler);
    active.add(exchange); // before the check: a shutdownNow() after it finds this exchange to abort
    if (shutdown) {
      active.remove(exchange);
      exchange.future.completeExceptionally(new IOException("the HTTP client is shut down"));
      return exchange.future;
    }
    threads.newThread(exchange::run).start();
    return exchange.future;
  }

  @Override
  public <T> CompletableFuture<HttpResponse<T>> sendAsync(HttpRequest request, HttpResponse.BodyHandler<T> handler,
      HttpResponse.PushPromiseHandler<T> pushPromiseHandler) {
    return sendAsync(request, handler); // HTTP/1.1 has no push
  }

  @Override
  public <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
      throws IOException, InterruptedException {
    CompletableFuture<HttpResponse<T>> future = sendAsync(request, handler);
    try {
      return future.get();
    } catch (InterruptedException e) {
      future.cancel(true);
      throw e;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException r) {
        throw r;
      }
      if (cause instanceof Error error) {
        throw error;
      }
      throw new IOException(cause == null ? "request failed" : cause.toString(), cause);
    }
  }

  @Override
  public Optional<CookieHandler> cookieHandler() {
    return Optional.ofNullable(cookies);
  }

  @Override
  public Optional<Duration> connectTimeout() {
    return Optional.ofNullable(connectTimeout);
  }

  @Override
  public Redirect followRedirects() {
    return Redirect.NEVER;
  }

  @Override
  public Optional<ProxySelector> proxy() {
    return Optional.ofNullable(proxies);
  }

  @Override
  public SSLContext sslContext() {
    SSLContext context = sslContext;
    if (context == null) {
      synchronized (this) {
        if (sslContext == null) {
          sslContext = ssl.get();
        }
        context = sslContext;
      }
    }
    return context;
  }

  @Override
  public SSLParameters sslParameters() {
    return sslContext().getDefaultSSLParameters();
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

  /** No new exchanges; those under way go on. */
  @Override
  public void shutdown() {
    shutdown = true;
    pool.close();
  }

  /** No new exchanges, and those under way are given up. */
  @Override
  public void shutdownNow() {
    shutdown();
    for (Http1Exchange<?> exchange : active) {
      exchange.abort(new IOException("the HTTP client was shut down"));
    }
    IdleWatchdog.Sweeper s = sweeper;
    if (s != null) {
      s.close();
    }
  }

  @Override
  public boolean awaitTermination(Duration duration) throws InterruptedException {
    long deadline = System.nanoTime() + duration.toNanos();
    while (!isTerminated() && System.nanoTime() < deadline) {
      Thread.sleep(10); // exchanges end on their own threads; nothing to wait on but the set
    }
    return isTerminated();
  }

  @Override
  public boolean isTerminated() {
    return shutdown && active.isEmpty();
  }

  @Override
  public void close() {
    shutdownNow();
  }
}
