package dev.mcpstdio.serve;

import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.serve.era2025.Session;
import dev.mcpstdio.stdio.Log;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Logs each request on stderr once it completes: remote address, method, path with any query
 * replaced by {@code ?<redacted>} (a query may carry a session id or a secret), status, duration,
 * the session's short id, and the failure's type when it failed; with {@code --log-format json}
 * each of those is a field of its own.
 */
final class AccessLog extends Handler.Wrapper {

  /** Request attributes {@link McpPost} sets: the POSTed message's method and its JSON-RPC id (JSON), for the JSON access log. */
  static final String RPC_METHOD = AccessLog.class.getName() + ".rpcMethod";
  static final String RPC_ID = AccessLog.class.getName() + ".rpcId";

  /** A client's id is cut to this many characters in the log. */
  static final int MAX_LOGGED_ID = 128;

  private final Log log;

  AccessLog(Log log, Handler logged) {
    super(logged);
    this.log = log;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    long started = System.nanoTime();
    Request.addCompletionListener(request, failure -> log(request, response, started, failure));
    return super.handle(request, response, callback);
  }

  private static String loggedText(Object value) {
    if (value == null) {
      return null;
    }
    String text = Log.visible(value.toString());
    return text.length() > MAX_LOGGED_ID ? text.substring(0, MAX_LOGGED_ID) + "..." : text;
  }

  private void log(Request request, Response response, long started, Throwable failure) {
    String query = request.getHttpURI().getQuery();
    String target = request.getHttpURI().getPath() + (query == null ? "" : "?<redacted>");
    String session = request.getHeaders().get(McpHeaders.SESSION_ID);
    if (session == null) {
      session = response.getHeaders().get(McpHeaders.SESSION_ID);
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    String shortSession = session == null ? null : Session.shortId(session.replaceAll("[^0-9A-Za-z]", ""));
    String remote = Request.getRemoteAddr(request);
    String failed = failure == null ? null : failure.getClass().getSimpleName();
    log.event(Log.Level.INFO, "http: " + remote + " \"" + request.getMethod() + " " + target + "\" "
        + response.getStatus() + " " + ms + " ms"
        + (shortSession == null ? "" : " session " + shortSession)
        + (failed == null ? "" : " (" + failed + ")"),
        "component", "http", "remote", remote, "method", request.getMethod(), "path", target, "status", response.getStatus(),
        "durationMs", ms, "session", shortSession, "rpcMethod", loggedText(request.getAttribute(RPC_METHOD)),
        "requestId", loggedText(request.getAttribute(RPC_ID)), "failure", failed);
  }
}
