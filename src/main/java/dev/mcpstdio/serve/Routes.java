package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.serve.http.Replies;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The route table: which handler answers which path, in one place ({@link ServeGateway#routes}
 * fills it). Routes are tried in the order they were added and the first whose path matches
 * handles the request; a path no route matches is answered 404 with a JSON-RPC error. Paths are
 * matched on the request's decoded path, exactly or as a prefix that ends at a {@code /} (so
 * {@code /callbacks} matches {@code /callbacks/x} but never {@code /callbacksx}).
 *
 * <p>The callback contract every handler of the tree keeps (Jetty's, written down): a handler that
 * returns true completes the callback exactly once, succeeded once its last write completed, failed
 * with the failure when a write (or anything else) failed, never both; one that returns false
 * leaves the request to the next handler and completes nothing. Reply writers ({@code Replies})
 * hand the callback to the final write, so a failed write fails it; stream writers fail it with the
 * write's exception.
 */
final class Routes extends Handler.AbstractContainer {

  private record Route(String description, Predicate<String> path, Handler handler) {}

  private final List<Route> routes = new ArrayList<>();

  /** Requests for exactly {@code path}. */
  Routes exact(String path, Handler handler) {
    return add(path, p -> p.equals(path), handler);
  }

  /** Requests for {@code path} itself or anything below it ({@code path + "/..."}). */
  Routes subtree(String path, Handler handler) {
    return add(path + "[/...]", p -> p.equals(path) || p.startsWith(path + "/"), handler);
  }

  /** Requests for anything strictly below {@code path} ({@code path + "/..."}, not the path itself). */
  Routes below(String path, Handler handler) {
    return add(path + "/...", p -> p.startsWith(path + "/"), handler);
  }

  private Routes add(String description, Predicate<String> path, Handler handler) {
    routes.add(new Route(description, path, handler));
    addBean(handler, true);
    if (getServer() != null) {
      handler.setServer(getServer());
    }
    return this;
  }

  @Override
  public List<Handler> getHandlers() {
    return routes.stream().map(Route::handler).toList();
  }

  @Override
  public boolean handle(Request request, Response response, Callback callback) throws Exception {
    String path = request.getHttpURI().getPath();
    for (Route route : routes) {
      if (route.path().test(path)) {
        if (route.handler().handle(request, response, callback)) {
          return true;
        }
        break;
      }
    }
    Replies.error(response, callback, 404, null, ErrorCodes.UPSTREAM_ERROR, "not found");
    return true;
  }

  /** The table, for the start-up log at debug level. */
  List<String> describe() {
    return routes.stream().map(Route::description).toList();
  }
}
