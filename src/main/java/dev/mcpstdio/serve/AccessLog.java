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
 * the session's short id, and the failure's type when it failed.
 */
final class AccessLog extends Handler.Wrapper {

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

  private void log(Request request, Response response, long started, Throwable failure) {
    String query = request.getHttpURI().getQuery();
    String target = request.getHttpURI().getPath() + (query == null ? "" : "?<redacted>");
    String session = request.getHeaders().get(McpHeaders.SESSION_ID);
    if (session == null) {
      session = response.getHeaders().get(McpHeaders.SESSION_ID);
    }
    long ms = (System.nanoTime() - started) / 1_000_000;
    log.info("http: " + Request.getRemoteAddr(request) + " \"" + request.getMethod() + " " + target + "\" "
        + response.getStatus() + " " + ms + " ms"
        + (session == null ? "" : " session " + Session.shortId(session.replaceAll("[^0-9A-Za-z]", "")))
        + (failure == null ? "" : " (" + failure.getClass().getSimpleName() + ")"));
  }
}
