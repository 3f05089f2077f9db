package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.auth.AccessTokens;
import dev.mcpstdio.serve.auth.TokenVerdict;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.metrics.ServeMetrics;
import dev.mcpstdio.stdio.Log;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The authentication gate as a handler: what it wraps sees only requests that carry the static
 * bearer token ({@link BearerGate}) or an access token that {@link AccessTokens} (the embedded
 * authorization server, or an external identity provider) accepts for this resource, or every
 * request when neither is configured. Others are answered 401 with the {@code WWW-Authenticate}
 * challenge that names the protected-resource document; a good token without a required scope
 * 403 {@code insufficient_scope} with the scope (RFC 6750 section 3.1); a token that cannot be
 * checked now (the provider unreachable) 503 with {@code Retry-After}. Each protected route is
 * wrapped in a gate of its own; all share one {@link BearerGate}. A request it lets through
 * carries its principal ({@link Principals#ATTRIBUTE}): the static token's, the user's name, or
 * everyone's.
 */
final class AuthGate extends Handler.Wrapper {

  /** Seconds a client is asked to wait when the identity provider cannot be reached. */
  static final int RETRY_AFTER_SECONDS = 5;

  private final BearerGate bearer;
  private final AccessTokens tokens; // null: only the static bearer, or nothing
  private final java.util.function.Function<Request, String> resource;
  private final ServeConfig config;
  private final Log log;
  private final dev.mcpstdio.serve.http.RepeatedFailures unchecked;
  private final ServeMetrics metrics;

  /**
   * @param resource this endpoint's URL for a request, the audience its tokens must be for (the
   *     embedded server's is the request's own origin, as it issued them; an external provider's
   *     is fixed at start-up)
   * @param unchecked where tokens that could not be checked are reported (shared by every gate)
   */
  AuthGate(BearerGate bearer, AccessTokens tokens, java.util.function.Function<Request, String> resource, ServeConfig config,
      dev.mcpstdio.serve.http.RepeatedFailures unchecked, ServeMetrics metrics, Log log, Handler protectedHandler) {
    super(protectedHandler);
    this.metrics = metrics;
    this.bearer = bearer;
    this.tokens = tokens;
    this.resource = resource;
    this.config = config;
    this.unchecked = unchecked;
    this.log = log;
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    if (!bearer.enabled() && tokens == null) {
      request.setAttribute(Principals.ATTRIBUTE, Principals.OPEN);
      return super.handle(request, response, callback);
    }
    String authorization = request.getHeaders().get(HttpHeader.AUTHORIZATION);
    BearerGate.Verdict verdict = bearer.enabled() ? bearer.check(authorization)
        : BearerGate.token(authorization) == null ? BearerGate.Verdict.MISSING : BearerGate.Verdict.INVALID;
    if (verdict == BearerGate.Verdict.ALLOWED) {
      request.setAttribute(Principals.ATTRIBUTE, Principals.STATIC_TOKEN);
      return super.handle(request, response, callback);
    }
    String origin = Origins.effective(request, config);
    if (verdict == BearerGate.Verdict.INVALID && tokens != null) {
      switch (tokens.verify(BearerGate.token(authorization), resource.apply(request))) {
        case TokenVerdict.Accepted accepted -> {
          metrics.tokenChecked("accepted");
          unchecked.succeeded("access tokens are checked again");
          request.setAttribute(Principals.ATTRIBUTE, accepted.principal());
          return super.handle(request, response, callback);
        }
        case TokenVerdict.InsufficientScope missing -> {
          metrics.tokenChecked("insufficient_scope");
          request.setAttribute(ServeMetrics.REJECTION_ATTRIBUTE, ServeMetrics.Rejection.INSUFFICIENT_SCOPE);
          response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, bearer.insufficientScope(missing.scope(), origin));
          Replies.error(response, callback, 403, null, ErrorCodes.UPSTREAM_ERROR, "insufficient scope: the token needs " + missing.scope());
          return true;
        }
        case TokenVerdict.Unavailable unavailable -> {
          metrics.tokenChecked("unavailable");
          request.setAttribute(ServeMetrics.REJECTION_ATTRIBUTE, ServeMetrics.Rejection.AUTH_UNAVAILABLE);
          // the reason (hosts, statuses of the provider) is the operator's, not the client's
          unchecked.failed("access tokens cannot be checked now: " + unavailable.reason());
          response.getHeaders().put(HttpHeader.RETRY_AFTER, String.valueOf(RETRY_AFTER_SECONDS));
          Replies.error(response, callback, 503, null, ErrorCodes.UPSTREAM_ERROR,
              "the access token cannot be checked now; try again shortly");
          return true;
        }
        case TokenVerdict.Rejected rejected -> {
          metrics.tokenChecked("rejected");
          log.debug("access token refused: " + rejected.reason());
        }
      }
    }
    request.setAttribute(ServeMetrics.REJECTION_ATTRIBUTE,
        verdict == BearerGate.Verdict.MISSING ? ServeMetrics.Rejection.AUTH_MISSING : ServeMetrics.Rejection.AUTH_INVALID);
    response.getHeaders().put(HttpHeader.WWW_AUTHENTICATE, bearer.challenge(verdict, origin,
        tokens == null ? java.util.List.of() : tokens.requiredScopes()));
    Replies.error(response, callback, 401, null, ErrorCodes.UPSTREAM_ERROR,
        verdict == BearerGate.Verdict.MISSING ? "authentication required" : "invalid access token");
    return true;
  }
}
