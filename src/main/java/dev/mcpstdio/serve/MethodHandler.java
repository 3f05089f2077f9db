package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.http.Replies;
import java.util.LinkedHashMap;
import java.util.Map;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * One endpoint: an action per HTTP method. Any other method is answered 405 with {@code Allow}
 * naming the methods served, or 404 where the endpoint should not reveal itself to other methods
 * (the health checks and the protected-resource document, which only ever answered reads).
 */
final class MethodHandler extends Handler.Abstract {

  /** What an endpoint does for one method; it completes the callback as {@link Routes} says. */
  @FunctionalInterface
  interface Action {
    void handle(Request request, Response response, Callback callback) throws Exception;
  }

  private final Map<String, Action> actions = new LinkedHashMap<>();
  private final boolean notFoundOtherwise;
  private final String allow;

  private MethodHandler(Map<String, Action> actions, boolean notFoundOtherwise) {
    this.actions.putAll(actions);
    this.notFoundOtherwise = notFoundOtherwise;
    this.allow = String.join(", ", actions.keySet());
  }

  /** Starts an endpoint whose other methods get 405. */
  static Builder on(String method, Action action) {
    return new Builder().on(method, action);
  }

  static final class Builder {
    private final Map<String, Action> actions = new LinkedHashMap<>();

    Builder on(String method, Action action) {
      actions.put(method, action);
      return this;
    }

    /** Other methods get 405 with {@code Allow}. */
    MethodHandler build() {
      return new MethodHandler(actions, false);
    }

    /** Other methods get 404, as if the path were not there. */
    MethodHandler elseNotFound() {
      return new MethodHandler(actions, true);
    }
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    Action action = actions.get(request.getMethod());
    if (action != null) {
      action.handle(request, response, callback);
    } else if (notFoundOtherwise) {
      Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "not found");
    } else {
      response.getHeaders().put(HttpHeader.ALLOW, allow);
      Replies.error(response, callback, 405, null, ErrorCodes.UPSTREAM_ERROR, "method not allowed");
    }
    return true;
  }
}
