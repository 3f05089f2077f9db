package dev.mcpstdio.net;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;

/**
 * One request and its response, on a virtual thread of its own: a connection from the pool or a
 * new one, the request head and body written, the response head read (1xx answers skipped), the
 * body handed to the handler's subscriber as it arrives and as the subscriber asks for it, and the
 * connection back to the pool when the body ended where its framing said.
 *
 * <p>The JDK client's contract, as the relay relies on it: the future completes with the
 * response when the subscriber's body completes; {@link HttpRequest#timeout()} bounds everything
 * up to the response head ({@link HttpTimeoutException}; fired by the client's sweeper, up to
 * {@link IdleWatchdog.Sweeper#MAX_TICK_NANOS} late), the connect timeout the TCP connection,
 * proxy tunnel and TLS handshake ({@link HttpConnectTimeoutException}); an address that cannot
 * be reached fails with {@link ConnectException}; cancelling the future closes the connection,
 * which ends a body being read with an error to its subscriber.
 */
final class Http1Exchange<T> {

  private final Http1Client client;
  private final HttpRequest request;
  private final HttpResponse.BodyHandler<T> handler;
  final Future future = new Future();
  private volatile Http1RequestBody body = new Http1RequestBody(); // the one being written (this placeholder until then), for abort
  private volatile Socket opening; // the socket while it connects, for abort
  /**
   * The connection while this exchange owns it: cleared when it goes back to the pool (or is
   * closed), so that an abort that comes later (a cancel as the answer arrives, a subscriber that
   * cancels after the body ended) can never close a connection another exchange has taken.
   */
  private final AtomicReference<Http1Connection> owned = new AtomicReference<>();
  private final AtomicReference<IOException> aborted = new AtomicReference<>(); // why it was given up
  /** 0 waiting for the response head, 1 the head came, 2 the request deadline passed first. */
  private final AtomicInteger phase = new AtomicInteger();
  private volatile Http1BodyFeed feed; // once the body is being read

  Http1Exchange(Http1Client client, HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    this.client = client;
    this.request = request;
    this.handler = handler;
  }

  /** The response future: cancelling it gives the exchange up. */
  final class Future extends CompletableFuture<HttpResponse<T>> {
    @Override
    public boolean cancel(boolean mayInterruptIfRunning) {
      boolean cancelled = super.cancel(mayInterruptIfRunning);
      if (cancelled) { // a response already complete is left alone, as the JDK's client does
        abort(new IOException("the request was cancelled"));
      }
      return cancelled;
    }
  }

  /** Gives the exchange up: its socket is closed, which ends whatever it is blocked in. */
  void abort(IOException why) {
    if (!aborted.compareAndSet(null, why)) {
      return;
    }
    body.abort();
    Http1BodyFeed f = feed;
    if (f != null) {
      f.abort(why); // wakes a read waiting for the subscriber's demand
    }
    close();
  }

  void run() {
    IdleWatchdog deadline = null;
    Http1Head head;
    Http1Body framing;
    try {
      Optional<Duration> timeout = request.timeout();
      if (timeout.isPresent()) {
        deadline = client.sweeper().watch(timeout.get(), () -> {
          if (phase.compareAndSet(0, 2)) { // only while the head is awaited: never a body on time
            abort(new HttpTimeoutException("request timed out"));
          }
        });
        deadline.start();
      }
      Http1Route route = Http1Route.of(request.uri(), client.proxyFor(request.uri()));
      Http1Connection c = client.pool.take(route);
      if (c == null) {
        c = connect(route);
      }
      owned.set(c);
      head = send(c, route);
      framing = Http1Body.of(head, request.method());
      if (!phase.compareAndSet(0, 1)) { // the deadline passed as the head came
        throw new HttpTimeoutException("request timed out");
      }
    } catch (Throwable t) {
      if (deadline != null) {
        deadline.stop();
      }
      close();
      future.completeExceptionally(failure(t));
      client.ended(this);
      return;
    }
    if (deadline != null) {
      deadline.stop();
    }
    try {
      readBody(head, framing);
    } finally {
      client.ended(this);
    }
  }

  /** Closes the connection, or the socket still connecting; from any thread. */
  private void close() {
    Http1Connection c = owned.getAndSet(null);
    if (c != null) {
      c.close();
    }
    Socket s = opening;
    if (s != null) {
      try {
        s.close();
      } catch (IOException ignored) {
        // closing is all that is left
      }
    }
  }

  /** What the caller sees of {@code t}: the reason of an abort rather than the closed socket it caused. */
  private Throwable failure(Throwable t) {
    IOException why = aborted.get();
    if (why != null && t != why) {
      why.addSuppressed(t);
      return why;
    }
    return t;
  }

  // ---- connecting

  private Http1Connection connect(Http1Route route) throws IOException {
    Socket socket = new Socket();
    opening = socket;
    try {
      IOException why = aborted.get();
      if (why != null) {
        throw why;
      }
      socket.setTcpNoDelay(true);
      if (client.tcpKeepAlive) {
        try {
          TcpKeepAlive.configure(socket);
        } catch (IOException | UnsupportedOperationException e) {
          // the OS refuses the option: the connection works without it, only a dead peer is noticed later
        }
      }
      String host = route.proxy() != null ? route.proxy().getHostString() : route.host();
      int port = route.proxy() != null ? route.proxy().getPort() : route.port();
      InetSocketAddress address = new InetSocketAddress(host, port);
      if (address.isUnresolved()) {
        throw new ConnectException("cannot resolve " + host);
      }
      int connectMillis = client.connectMillis();
      try {
        socket.connect(address, connectMillis);
      } catch (SocketTimeoutException e) {
        throw connectTimeout(e);
      }
      if (!route.tls()) {
        return new Http1Connection(route, socket, socket);
      }
      socket.setSoTimeout(connectMillis);
      try {
        if (route.proxy() != null) {
          tunnel(socket, route);
        }
        javax.net.ssl.SSLContext context;
        try {
          context = client.sslContext();
        } catch (java.io.UncheckedIOException e) {
          throw e.getCause();
        }
        SSLSocket tls = (SSLSocket) context.getSocketFactory()
            .createSocket(socket, route.host(), route.port(), true);
        SSLParameters parameters = tls.getSSLParameters();
        parameters.setEndpointIdentificationAlgorithm("HTTPS");
        parameters.setApplicationProtocols(new String[] {"http/1.1"});
        tls.setSSLParameters(parameters);
        tls.startHandshake();
        tls.setSoTimeout(0);
        return new Http1Connection(route, tls, socket);
      } catch (SocketTimeoutException e) {
        throw connectTimeout(e);
      }
    } catch (IOException | RuntimeException e) {
      socket.close();
      throw e;
    } finally {
      opening = null;
    }
  }

  private static HttpConnectTimeoutException connectTimeout(SocketTimeoutException cause) {
    HttpConnectTimeoutException e = new HttpConnectTimeoutException("HTTP connect timed out");
    e.initCause(cause);
    return e;
  }

  /** Opens a CONNECT tunnel through the route's proxy on {@code socket}. */
  private void tunnel(Socket socket, Http1Route route) throws IOException {
    Http1Connection plain = new Http1Connection(route, socket, socket);
    StringBuilder head = new StringBuilder(128)
        .append("CONNECT ").append(route.authority()).append(" HTTP/1.1\r\nHost: ").append(route.authority()).append("\r\n");
    String authorization = client.proxyAuthorization(route.proxy());
    if (authorization != null) {
      head.append("Proxy-Authorization: ").append(authorization).append("\r\n");
    }
    plain.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
    plain.flush();
    Http1Head answer = Http1Head.read(plain);
    if (answer == null) {
      throw new IOException("the proxy closed the connection instead of answering CONNECT");
    }
    if (answer.statusCode() == 407) {
      throw new IOException("the proxy asks for authentication (407) to CONNECT to " + route.authority());
    }
    if (answer.statusCode() < 200 || answer.statusCode() > 299 || plain.hasBuffered()) {
      throw new IOException("the proxy refused CONNECT to " + route.authority() + " (status " + answer.statusCode() + ")");
    }
  }

  // ---- the request

  /**
   * Writes the request head as the JDK's HTTP/1.1 client lays it out (the 2025 era's wire is
   * pinned byte for byte by golden tests): the body's framing first, then {@code Host} (the URI's
   * own port, if it names one), the caller's headers in the order of its {@link HttpHeaders} map,
   * and the cookies last, joined in one {@code Cookie} line. No framing header when the request
   * has no body publisher ({@code GET()}, {@code DELETE()}); {@code Content-Length: 0} for an
   * empty one; chunked when its length is unknown.
   */
  private void writeRequest(Http1Connection c, Http1Route route) throws IOException {
    URI uri = request.uri();
    String host = uri.getPort() >= 0 ? uri.getHost() + ":" + uri.getPort() : uri.getHost();
    StringBuilder head = new StringBuilder(256).append(request.method()).append(' ');
    if (route.absoluteForm()) {
      head.append("http://").append(host);
    }
    String path = uri.getRawPath();
    head.append(path == null || path.isEmpty() ? "/" : path);
    if (uri.getRawQuery() != null) {
      head.append('?').append(uri.getRawQuery());
    }
    head.append(" HTTP/1.1\r\n");
    HttpRequest.BodyPublisher publisher = request.bodyPublisher().orElse(null);
    long length = publisher == null ? 0 : publisher.contentLength();
    boolean chunked = length < 0;
    if (chunked) {
      head.append("Transfer-Encoding: chunked\r\n");
    } else if (publisher != null) {
      head.append("Content-Length: ").append(length).append("\r\n");
    }
    head.append("Host: ").append(host).append("\r\n");
    if (route.absoluteForm()) {
      String authorization = client.proxyAuthorization(route.proxy());
      if (authorization != null) {
        head.append("Proxy-Authorization: ").append(authorization).append("\r\n");
      }
    }
    Map<String, List<String>> headers = request.headers().map();
    headers.forEach((name, values) -> values.forEach(v -> head.append(name).append(": ").append(v).append("\r\n")));
    if (client.cookies != null) {
      List<String> cookies = new java.util.ArrayList<>();
      client.cookies.get(uri, headers).forEach((name, values) -> {
        if (name.equalsIgnoreCase("cookie")) {
          cookies.addAll(values);
        }
      });
      if (!cookies.isEmpty()) {
        head.append("Cookie: ").append(String.join("; ", cookies)).append("\r\n");
      }
    }
    c.write(head.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1));
    if (publisher != null) {
      Http1RequestBody written = new Http1RequestBody(); // the exchange's one attempt: retries are new exchanges
      body = written;
      if (aborted.get() != null) {
        written.abort();
      }
      written.write(publisher, c, chunked);
    }
    c.flush();
  }

  /** Writes the request and reads the response head on {@code c}. */
  private Http1Head send(Http1Connection c, Http1Route route) throws IOException {
    IOException why = aborted.get();
    if (why != null) {
      throw why;
    }
    writeRequest(c, route);
    return readHead(c, null);
  }

  private Http1Head readHead(Http1Connection c, Http1Head first) throws IOException {
    Http1Head next = first;
    while (true) {
      Http1Head head = next != null ? next : Http1Head.read(c);
      next = null;
      if (head == null) {
        throw new IOException("the server closed the connection without answering");
      }
      int status = head.statusCode();
      if (status == 101) {
        throw new IOException("the server switched protocols (101), which this client does not ask for");
      }
      if (status >= 200 || status < 100) {
        if (client.cookies != null) {
          client.cookies.put(request.uri(), head.headers().map());
        }
        return head;
      }
      // 100 Continue, 103 Early Hints: informational, the real answer follows
    }
  }

  // ---- the response body

  private void readBody(Http1Head head, Http1Body framing) {
    Http1Connection c = owned.get();
    if (c == null) { // aborted as the head came
      future.completeExceptionally(failure(new IOException("the exchange was given up")));
      return;
    }
    HttpResponse.BodySubscriber<T> subscriber;
    try {
      subscriber = handler.apply(head);
    } catch (Throwable t) {
      close();
      future.completeExceptionally(t);
      return;
    }
    Http1BodyFeed feed = new Http1BodyFeed(() -> abort(new IOException("the response body was cancelled")));
    this.feed = feed;
    if (aborted.get() != null) {
      feed.abort(aborted.get());
    }
    SSLSession session = c.sslSession();
    boolean subscribed = false;
    boolean completed = false;
    try {
      subscriber.getBody().whenComplete((value, error) -> {
        if (error != null) {
          future.completeExceptionally(error);
        } else {
          future.complete(new Http1Response<>(head.statusCode(), request, head.headers(), value, session));
        }
      });
      subscriber.onSubscribe(feed);
      subscribed = true;
      while (true) {
        // The end is signalled without waiting for demand (Reactive Streams allows it, the JDK's
        // client does it): a subscriber that paused still hears that the body is complete, and
        // the connection goes back to the pool now rather than at its next request.
        byte[] piece = null;
        if (!framing.ended(c)) {
          if (!feed.awaitDemand()) {
            close(); // the subscriber wants no more of it: the rest is not read
            return;
          }
          piece = framing.next(c);
        }
        if (piece == null) {
          // Given back (or closed) before the subscriber hears of the end: its onComplete may
          // start the next request, which should find the connection idle.
          if (framing.delimited() && head.keepsConnection() && owned.compareAndSet(c, null)) {
            client.pool.release(c, idleLimitNanos(head));
          } else {
            close();
          }
          completed = true;
          subscriber.onComplete();
          return;
        }
        subscriber.onNext(List.of(ByteBuffer.wrap(piece)));
      }
    } catch (Throwable t) {
      close();
      Throwable why = failure(t);
      if (completed) { // the subscriber's own onComplete failed: it has had its last signal
        future.completeExceptionally(why);
        return;
      }
      if (subscribed && !feed.cancelled()) {
        try {
          subscriber.onError(why);
        } catch (RuntimeException | Error ignored) {
          // the subscriber's own failure; the future below carries the exchange's
        }
      }
      future.completeExceptionally(why);
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** How long the connection may wait in the pool: our bound, or less when the server announced less. */
  private static long idleLimitNanos(Http1Head head) {
    long limit = TimeUnit.SECONDS.toNanos(OutboundHttp.KEEPALIVE_SECONDS);
    long announced = head.keepAliveTimeoutSeconds();
    if (announced >= 0) {
      limit = Math.min(limit, TimeUnit.SECONDS.toNanos(announced - 1));
    }
    return limit;
  }

  /** A response as the JDK's API shapes it. */
  record Http1Response<T>(int statusCode, HttpRequest request, HttpHeaders headers, T body, SSLSession session)
      implements HttpResponse<T> {
    @Override
    public Optional<HttpResponse<T>> previousResponse() {
      return Optional.empty();
    }

    @Override
    public Optional<SSLSession> sslSession() {
      return Optional.ofNullable(session);
    }

    @Override
    public URI uri() {
      return request.uri();
    }

    @Override
    public java.net.http.HttpClient.Version version() {
      return java.net.http.HttpClient.Version.HTTP_1_1;
    }
  }
}
