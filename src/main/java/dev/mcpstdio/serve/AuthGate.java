package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.auth.AuthorizationEndpoints;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.Replies;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The authentication gate as a handler: what it wraps sees only requests that carry the static
 * bearer token ({@link BearerGate}) or an access token the embedded authorization server issued
 * for this resource ({@link AuthorizationEndpoints}), or every request when neither is
 * configured; others are answered 401 with the {@code WWW-Authenticate} challenge that names the
 * protected-resource document. Each protected route is wrapped in a gate of its own; all share one
 * {@link BearerGate}. A request it lets through carries its principal ({@link Principals#ATTRIBUTE}):
 * the static token's, the signed-in user's name, or everyone's.
 */
final class AuthGate extends Handler.Wrapper {

  private final BearerGate bearer;
  private final AuthorizationEndpoints oauth; // null without --enable-oauth
  private final ServeConfig config;

  AuthGate(BearerGate bearer, AuthorizationEndpoints oauth, ServeConfig config, Handler protectedHandler) {
    super(protectedHandler);
    this.bearer = bearer;
    this.oauth = oauth;
    this.config = config;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    String principal = null;
    BearerGate.Verdict verdict;
    if (!bearer.enabled() && oauth == null) {
      principal = Principals.OPEN;
      verdict = BearerGate.Verdict.ALLOWED;
    } else {
      verdict = bearer.enabled() ? bearer.check(authorization)
          : BearerGate.token(authorization) == null ? BearerGate.Verdict.MISSING : BearerGate.Verdict.INVALID;
      if (verdict == BearerGate.Verdict.ALLOWED) {
        principal = Principals.STATIC_TOKEN;
      } else if (verdict == BearerGate.Verdict.INVALID && oauth != null) {
        principal = oauth.principal(BearerGate.token(authorization), request);
      }
    }
    if (principal != null) {
      request.setAttribute(Principals.ATTRIBUTE, principal);
      return super.handle(request, response, callback);
    }
    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, bearer.challenge(verdict, Origins.effective(request, config)));
    Replies.error(response, callback, 401, null, ErrorCodes.UPSTREAM_ERROR,
        verdict == BearerGate.Verdict.MISSING ? "authentication required" : "invalid access token");
    return true;
  }
}
