package dev.mcpstdio.serve.metrics;

import dev.mcpstdio.serve.metrics.ServeMetrics.Rejection;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Counts every request once it completes, outside the guards so that what they refuse is counted
 * too: its body bytes both ways; a refusal, by the reason a guard gave ({@link
 * ServeMetrics#REJECTION_ATTRIBUTE}) or else by a status that only a bound answers with (408 body
 * too slow, 413 body too large, 503 a cap reached); and a request to one of the authorization
 * server's endpoints by outcome (an error redirect of the authorization endpoint counts as
 * refused, like a 4xx).
 */
public final class RequestMetrics extends Handler.Wrapper {

  private final ServeMetrics metrics;
  private final Map<String, String> oauthEndpoints;

  /**
   * @param oauthEndpoints the authorization server's paths, each with its endpoint label; empty
   *     without the embedded server
   */
  public RequestMetrics(ServeMetrics metrics, Map<String, String> oauthEndpoints, Handler counted) {
    super(counted);
    this.metrics = metrics;
    this.oauthEndpoints = Map.copyOf(oauthEndpoints);
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Request.addCompletionListener(request, failure -> completed(request, response, failure));
    return super.handle(request, response, callback);
  }

  private void completed(Request request, Response response, Throwable failure) {
    metrics.bytes(Request.getContentBytesRead(request), Response.getContentBytesWritten(response));
    int status = response.getStatus();
    Rejection reason = request.getAttribute(REJECTION) instanceof Rejection r ? r : switch (status) {
      case 408 -> Rejection.BODY_TIMEOUT;
      case 413 -> Rejection.BODY_TOO_LARGE;
      case 503 -> Rejection.CAPACITY;
      default -> null;
    };
    if (reason != null) {
      metrics.rejected(reason);
    }
    String endpoint = oauthEndpoints.isEmpty() ? null : oauthEndpoints.get(request.getHttpURI().getPath());
    if (endpoint != null) {
      metrics.oauth(endpoint, oauthOutcome(status, failure, response.getHeaders().get(HttpHeader.LOCATION)));
    }
  }

  private static final String REJECTION = ServeMetrics.REJECTION_ATTRIBUTE;

  static String oauthOutcome(int status, Throwable failure, String location) {
    if (failure != null || status >= 500) {
      return "error";
    }
    if (status >= 400 || (status >= 300 && location != null && hasErrorParameter(location))) {
      return "refused";
    }
    return "ok";
  }

  /** Whether a redirect's query (or fragment) carries an OAuth {@code error} parameter. */
  private static boolean hasErrorParameter(String location) {
    int q = location.indexOf('?');
    if (q < 0) {
      return false;
    }
    for (String pair : location.substring(q + 1).split("[&#]")) {
      if (pair.startsWith("error=")) {
        return true;
      }
    }
    return false;
  }
}
