package dev.mcpstdio.serve;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import java.io.IOException;
import java.io.InputStream;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Reading request bodies within two bounds: one body's size ({@code --max-message-size}, refused
 * with 413 before it is read when declared) and the bytes of all bodies held at once across the
 * gateway ({@link #BYTES}; 503 with {@code Retry-After} past it). A body read here is held until
 * {@link #release} is called with it.
 */
final class RequestBodies {

  /** Request bodies held at once (read, and waiting for their answers), in bytes at most. */
  static final long BYTES = 256L << 20;

  private final long maxMessageSize;
  private final ByteBudget bodies = new ByteBudget(BYTES);

  RequestBodies(long maxMessageSize) {
    this.maxMessageSize = maxMessageSize;
  }

  /** Gives back the bytes of a body returned by {@link #read}. */
  void release(byte[] body) {
    bodies.giveBack(body.length);
  }

  /**
   * The body, read only when its declared size is within the bound and the gateway's allowance for
   * bodies has room (its bytes are then taken from this allowance); null after answering 413 or
   * 503 itself, with the connection closed since the rest of the body is not read.
   */
  byte[] read(Request request, Response response, Callback callback) throws IOException {
    long max = maxMessageSize <= 0 ? Integer.MAX_VALUE - 16 : Math.min(maxMessageSize, Integer.MAX_VALUE - 16);
    long declared = request.getLength(); // -1 when chunked; Jetty has refused malformed lengths already
    if (declared > max) {
      tooLarge(response, callback, max);
      return null;
    }
    long reserved = declared >= 0 ? declared : 0;
    if (!bodies.tryTake(reserved)) {
      busy(response, callback);
      return null;
    }
    byte[] body;
    try (InputStream in = Request.asInputStream(request)) {
      if (declared >= 0) {
        body = in.readNBytes((int) declared);
      } else {
        body = readChunked(in, max, response, callback);
        if (body == null) {
          return null;
        }
      }
    } catch (IOException | RuntimeException e) {
      bodies.giveBack(reserved);
      throw e;
    }
    if (body.length == reserved) {
      return body; // a declared length: already taken
    }
    bodies.giveBack(reserved);
    if (!bodies.tryTake(body.length)) { // a chunked body: its steps were given back, take it whole
      busy(response, callback);
      return null;
    }
    return body;
  }

  /** A body without a declared length, read in steps that each take their share of the allowance. */
  private byte[] readChunked(InputStream in, long max, Response response, Callback callback) throws IOException {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    byte[] step = new byte[64 * 1024];
    long taken = 0;
    try {
      for (int n; (n = in.read(step)) > 0; ) {
        if (out.size() + n > max) {
          tooLarge(response, callback, max);
          return null;
        }
        if (!bodies.tryTake(n)) {
          busy(response, callback);
          return null;
        }
        taken += n;
        out.write(step, 0, n);
      }
      return out.toByteArray();
    } finally {
      bodies.giveBack(taken); // readBody takes the whole body's bytes again
    }
  }

  private static void busy(Response response, Callback callback) {
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
    Replies.error(response, callback, 503, null, ErrorCodes.UPSTREAM_ERROR,
        "the gateway is holding as many request bodies as it may (" + (BYTES >> 20) + " MiB); retry shortly");
  }

  private static void tooLarge(Response response, Callback callback, long max) {
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
    Replies.error(response, callback, 413, null, ErrorCodes.INVALID_REQUEST,
        "message too large (limit " + max + " bytes, --max-message-size)");
  }}
