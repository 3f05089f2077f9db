package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.metrics.ServeMetrics;
import dev.mcpstdio.stdio.Log;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The DNS-rebinding guard as a handler: every request passes {@link HostGuard}'s Host and Origin
 * check before anything it wraps sees it (invariant 7); a refused one is answered 403 and its
 * connection closed.
 */
final class HostOriginGuard extends Handler.Wrapper {

  private final HostGuard guard;
  private final Log log;

  HostOriginGuard(HostGuard guard, Log log, Handler protectedHandler) {
    super(protectedHandler);
    this.guard = guard;
    this.log = log;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String refusal = guard.refusal(request.getHeaders().get(HttpHeader.HOST), request.getHeaders().get(HttpHeader.ORIGIN));
    if (refusal == null) {
      return super.handle(request, response, callback);
    }
    request.setAttribute(ServeMetrics.REJECTION_ATTRIBUTE,
        refusal.equals(HostGuard.ORIGIN_REFUSED) ? ServeMetrics.Rejection.ORIGIN : ServeMetrics.Rejection.HOST);
    log.warn("refused " + request.getMethod() + " " + request.getHttpURI().getPath() + ": " + refusal);
    // Its body is never read, so the connection cannot carry another request: say so, or a
    // client that reuses it races the close and sees its next request cut off.
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    Replies.error(response, callback, 403, null, ErrorCodes.UPSTREAM_ERROR, "forbidden: " + refusal);
    return true;
  }
}
