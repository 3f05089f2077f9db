package dev.mcpstdio.oauth;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The redirect target of one authorization (RFC 8252 §7.3): an HTTP listener on
 * {@code 127.0.0.1} and a fresh ephemeral port, for this flow only, closed on every way out of it
 * (so no flow ever finds its port taken by an earlier one). It answers {@code GET /callback} once:
 * the first request carrying {@code code} or {@code error} is the answer, later ones are told it
 * was received already; one whose {@code state} is not the flow's is turned away (so another local
 * process cannot spoil a sign-in by guessing the port); a bare visit gets a neutral waiting page;
 * any other path is 404. Pages
 * echo nothing the request carried, and are sent {@code no-store} with no referrer.
 */
public final class LoopbackCallback implements AutoCloseable {

  /** The parameters the authorization server sent back (first value of each). */
  public record Answer(Map<String, String> params) {
    public String get(String name) {
      return params.get(name);
    }
  }

  private final HttpServer server;
  private final CompletableFuture<Answer> answer = new CompletableFuture<>();
  private final java.util.concurrent.atomic.AtomicBoolean taken = new java.util.concurrent.atomic.AtomicBoolean();
  private volatile String expectedState; // null: any answer is taken (and checked by the flow)

  /** Only an answer carrying this {@code state} is taken; others (another local process's guess) are turned away. */
  public void expect(String state) {
    this.expectedState = state;
  }

  private LoopbackCallback(HttpServer server) {
    this.server = server;
  }

  public static LoopbackCallback start() throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 8);
    LoopbackCallback callback = new LoopbackCallback(server);
    server.createContext("/", callback::handle);
    server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    server.start();
    return callback;
  }

  /** {@code http://127.0.0.1:<port>/callback}. */
  public String redirectUri() {
    return "http://127.0.0.1:" + server.getAddress().getPort() + "/callback";
  }

  /** The answer, once the browser brings it; a {@link TimeoutException} after {@code timeout}. */
  public Answer await(Duration timeout) throws InterruptedException, TimeoutException {
    try {
      return answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause()); // never completed exceptionally
    }
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      if (!exchange.getRequestMethod().equals("GET") || !exchange.getRequestURI().getPath().equals("/callback")) {
        reply(exchange, 404, "Not found.");
        return;
      }
      Map<String, String> params = FormEncoding.decode(exchange.getRequestURI().getRawQuery());
      if (!params.containsKey("code") && !params.containsKey("error")) {
        reply(exchange, 200, "Waiting for the sign-in to finish.");
        return;
      }
      String expected = expectedState;
      if (expected != null && !Pkce.sameState(expected, params.get("state"))) {
        reply(exchange, 400, "This answer is not for the sign-in in progress.");
        return;
      }
      boolean first = taken.compareAndSet(false, true);
      try {
        reply(exchange, 200, first ? "Signed in. You can close this tab and return to your application."
            : "This sign-in was received already. You can close this tab.");
      } finally {
        if (first) {
          answer.complete(new Answer(params)); // after the page went out: the flow closes this listener next
        }
      }
    }
  }

  private static void reply(HttpExchange exchange, int status, String message) throws IOException {
    byte[] page = ("<!doctype html><html><head><meta charset=\"utf-8\"><title>mcp-stdio</title></head><body><p>"
        + message + "</p></body></html>").getBytes(StandardCharsets.UTF_8); // fixed text: nothing echoed
    exchange.getResponseHeaders().set("Content-Type", "text/html; charset=utf-8");
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("Referrer-Policy", "no-referrer");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange.sendResponseHeaders(status, page.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(page);
    }
  }
  @Override
  public void close() {
    server.stop(0);
  }
}
