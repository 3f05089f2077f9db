package dev.mcpstdio.serve.http;

import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Blocker;
import org.eclipse.jetty.util.Callback;

/** Writing whole HTTP replies: JSON bodies, JSON-RPC errors, empty statuses. */
public final class Replies {

  private Replies() {}

  public static void json(Response response, Callback callback, int status, byte[] body) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
    response.write(true, ByteBuffer.wrap(body), callback);
  }

  /** A JSON-RPC error (id null when the request's id is unknown) with an HTTP status. */
  public static void error(Response response, Callback callback, int status, JsonRpcId id, int code, String message) {
    json(response, callback, status, JsonRpcErrors.error(id, code, message));
  }

  public static void empty(Response response, Callback callback, int status) {
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, 0);
    response.write(true, null, callback);
  }

  public static void text(Response response, Callback callback, int status, String contentType, String body) {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    response.setStatus(status);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, contentType);
    response.getHeaders().put(HttpHeader.CONTENT_LENGTH, bytes.length);
    response.write(true, ByteBuffer.wrap(bytes), callback);
  }

  /**
   * Completes a stream's callback as the handler contract says ({@code Routes}): failed with the
   * write's failure when one failed (the client has gone; Jetty then aborts the connection),
   * succeeded otherwise.
   */
  public static void complete(Callback callback, Throwable failure) {
    if (failure == null) {
      callback.succeeded();
    } else {
      callback.failed(failure);
    }
  }

  /** Writes {@code bytes} and waits until they are on their way; used by stream writers. */
  public static void blockingWrite(Response response, boolean last, ByteBuffer bytes) throws IOException {
    try (Blocker.Callback done = Blocker.callback()) {
      response.write(last, bytes, done);
      done.block();
    }
  }
}
