package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.era2026.Principals;
import dev.mcpstdio.serve.http.Replies;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The authentication gate as a handler: what it wraps sees only requests that {@link BearerGate}
 * allowed; others are answered 401 with the {@code WWW-Authenticate} challenge that names the
 * protected-resource document. Each protected route is wrapped in a gate of its own; all share one
 * {@link BearerGate}. A request it lets through carries its principal ({@link Principals#ATTRIBUTE}).
 */
final class AuthGate extends Handler.Wrapper {

  private final BearerGate bearer;
  private final ServeConfig config;

  AuthGate(BearerGate bearer, ServeConfig config, Handler protectedHandler) {
    super(protectedHandler);
    this.bearer = bearer;
    this.config = config;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    BearerGate.Verdict verdict = bearer.check(request.getHeaders().get(HttpHeader.AUTHORIZATION));
    if (verdict == BearerGate.Verdict.ALLOWED) {
      request.setAttribute(Principals.ATTRIBUTE, bearer.enabled() ? Principals.STATIC_TOKEN : Principals.OPEN);
      return super.handle(request, response, callback);
    }
    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, bearer.challenge(verdict, Origins.effective(request, config)));
    Replies.error(response, callback, 401, null, ErrorCodes.UPSTREAM_ERROR,
        verdict == BearerGate.Verdict.MISSING ? "authentication required" : "invalid access token");
    return true;
  }
}
