package dev.mcpstdio.serve.http;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.PartialMessage;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Reading request bodies within three bounds: one body's size ({@code --max-message-size}, refused
 * with 413, before it is read when declared), the bytes of all bodies held at once across the
 * gateway ({@link #BYTES}; 503 with {@code Retry-After} past it), and the time a body may take
 * ({@code --body-timeout} plus one second for every {@link #MIN_BODY_RATE}
 * bytes it has delivered; 408 past it, or when the connection goes idle mid-body).
 *
 * <p>The allowance is charged for the buffer a body is being read into, and that buffer grows
 * only as bytes arrive (it starts at {@link #FIRST_BUFFER}, doubles, never passes the declared
 * length): a declared {@code Content-Length} reserves nothing, so clients that declare large
 * bodies and send them slowly hold only what they sent, never the allowance of everyone else. A
 * body read here is held until {@link #release} is called with it. Every refusal closes the
 * connection (the rest of the body is not read) and carries the request's id when the bytes read
 * so far show it.
 */
public final class RequestBodies {

  /** The rate a body must keep up once its base deadline has passed: one more second per this many bytes. */
  public static final long MIN_BODY_RATE = 16 * 1024;


  /** Request bodies held at once (being read, and waiting for their answers), in bytes at most. */
  static final long BYTES = 256L << 20;

  /** The buffer a body starts in; at most twice the bytes that arrived are ever held for it. */
  public static final int FIRST_BUFFER = 8 * 1024;

  private final long maxMessageSize;
  private final long timeoutNanos;
  private final ByteBudget bodies = new ByteBudget(BYTES);
  private final AtomicInteger reading = new AtomicInteger();

  public RequestBodies(long maxMessageSize, Duration bodyTimeout) {
    this.maxMessageSize = maxMessageSize;
    this.timeoutNanos = bodyTimeout.toNanos();
  }

  /** Gives back the bytes of a body returned by {@link #read}. */
  public void release(byte[] body) {
    bodies.giveBack(body.length);
  }

  /** Bodies being read right now (their bytes still arriving). */
  public int reading() {
    return reading.get();
  }

  /** Bytes of the allowance taken now, by bodies being read and bodies held. */
  public long held() {
    return bodies.used();
  }

  /**
   * The body, read within the bounds above, its bytes taken from the allowance; null after
   * answering 408, 413, 400 or 503 itself.
   */
  public byte[] read(Request request, Response response, Callback callback) throws InterruptedException {
    long max = maxMessageSize <= 0 ? Integer.MAX_VALUE - 16 : Math.min(maxMessageSize, Integer.MAX_VALUE - 16);
    long declared = request.getLength(); // -1 when chunked; Jetty has refused malformed lengths already
    if (declared > max) {
      tooLarge(response, callback, null, max);
      return null;
    }
    long limit = declared >= 0 ? declared : max;
    long started = System.nanoTime();
    Semaphore arrived = new Semaphore(0);
    byte[] buffer = new byte[0];
    int size = 0;
    boolean kept = false;
    reading.incrementAndGet();
    try {
      while (true) {
        Content.Chunk chunk = request.read();
        if (chunk == null) {
          long left = started + timeoutNanos + size * 1_000_000_000L / MIN_BODY_RATE - System.nanoTime();
          if (left > 0) {
            request.demand(arrived::release);
            if (arrived.tryAcquire(left, TimeUnit.NANOSECONDS)) {
              continue;
            }
          }
          timedOut(response, callback, head(buffer, size), "the request body did not arrive in time (--body-timeout)");
          return null;
        }
        if (Content.Chunk.isFailure(chunk)) {
          JsonRpcId id = head(buffer, size);
          if (chunk.getFailure() instanceof TimeoutException) {
            timedOut(response, callback, id, "the connection went idle in the middle of the request body");
          } else {
            close(response);
            Replies.error(response, callback, 400, id, ErrorCodes.INVALID_REQUEST, "the request body ended early");
          }
          return null;
        }
        ByteBuffer bytes = chunk.getByteBuffer();
        int n = bytes.remaining();
        if (size + (long) n > max) {
          chunk.release();
          tooLarge(response, callback, head(buffer, size), max);
          return null;
        }
        if (size + n > buffer.length) {
          int grown = (int) Math.max(size + n, Math.min(limit, Math.max(FIRST_BUFFER, 2L * buffer.length)));
          if (!bodies.tryTake(grown - buffer.length)) {
            chunk.release();
            busy(response, callback, head(buffer, size));
            return null;
          }
          buffer = Arrays.copyOf(buffer, grown); // taken before the copy: the allowance covers it
        }
        bytes.get(buffer, size, n);
        size += n;
        boolean last = chunk.isLast();
        chunk.release();
        if (last) {
          break;
        }
      }
      byte[] body = size == buffer.length ? buffer : Arrays.copyOf(buffer, size);
      bodies.giveBack(buffer.length - body.length); // the body keeps exactly its own bytes
      kept = true;
      return body;
    } finally {
      if (!kept) {
        bodies.giveBack(buffer.length);
      }
      reading.decrementAndGet();
    }
  }

  /** The request's id, when the bytes read so far show it. */
  private static JsonRpcId head(byte[] buffer, int size) {
    return size == 0 ? null : PartialMessage.requestId(Arrays.copyOf(buffer, Math.min(size, 64 * 1024)));
  }

  private static void close(Response response) {
    response.getHeaders().put(HttpHeader.CONNECTION, "close");
  }

  private static void timedOut(Response response, Callback callback, JsonRpcId id, String why) {
    close(response);
    Replies.error(response, callback, 408, id, ErrorCodes.INVALID_REQUEST, why);
  }

  private static void busy(Response response, Callback callback, JsonRpcId id) {
    close(response);
    response.getHeaders().put(HttpHeader.RETRY_AFTER, "1");
    Replies.error(response, callback, 503, id, ErrorCodes.UPSTREAM_ERROR,
        "the gateway is holding as many request bodies as it may (" + (BYTES >> 20) + " MiB); retry shortly");
  }

  private static void tooLarge(Response response, Callback callback, JsonRpcId id, long max) {
    close(response);
    Replies.error(response, callback, 413, id, ErrorCodes.INVALID_REQUEST,
        "message too large (limit " + max + " bytes, --max-message-size)");
  }
}
