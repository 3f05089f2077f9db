package dev.mcpstdio.serve.http;

import dev.mcpstdio.wire.Ndjson;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Response;

/**
 * A {@code text/event-stream} reply written event by event. Each JSON-RPC message is one
 * {@code message} event with one {@code data:} line (a raw CR or LF, which valid JSON can only
 * hold as whitespace, becomes a space), so no splitting is ever needed. Writes block the calling virtual
 * thread until the bytes are handed to the connection, which is the back-pressure a slow client
 * exerts; a failed write means the client has gone.
 */
public final class EventStream {

  private static final byte[] EVENT_HEAD = "event: message\ndata: ".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] EVENT_TAIL = "\n\n".getBytes(StandardCharsets.US_ASCII);
  private static final byte[] KEEP_ALIVE = ": keepalive\n\n".getBytes(StandardCharsets.US_ASCII);

  private final Response response;

  public EventStream(Response response) {
    this.response = response;
  }

  /** Sends the status and headers; the stream is open from here on. */
  public void open() throws IOException {
    headers();
    Replies.blockingWrite(response, false, ByteBuffer.allocate(0)); // commit: the client sees the stream start
  }

  /**
   * Opens a resumable stream (SEP-1699) with its priming event, in the same write as the headers:
   * an id with empty data, and how long a client should wait before reconnecting with it.
   */
  public void openPrimed(String id, long retryMillis) throws IOException {
    headers();
    Replies.blockingWrite(response, false, ByteBuffer.wrap(
        ("id: " + id + "\nretry: " + retryMillis + "\ndata: \n\n").getBytes(StandardCharsets.US_ASCII)));
  }

  private void headers() {
    response.setStatus(200);
    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream");
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-cache, no-store");
    response.getHeaders().put("X-Accel-Buffering", "no");
  }

  public void message(byte[] json) throws IOException {
    Replies.blockingWrite(response, false, event(json, null));
  }

  /** One message event, with an {@code id:} line when {@code id} is not null (a resumable stream). */
  public void message(byte[] json, String id) throws IOException {
    Replies.blockingWrite(response, false, event(json, id));
  }

  /** An event with a name other than {@code message} (the legacy transport's {@code endpoint}). */
  public void event(String name, byte[] json) throws IOException {
    // Raw CR or LF (whitespace in valid JSON) would split the data line.
    byte[] data = Ndjson.singleLine(json);
    ByteBuffer event = ByteBuffer.allocate(name.length() + data.length + 16);
    event.put(("event: " + name + "\ndata: ").getBytes(StandardCharsets.US_ASCII)).put(data).put(EVENT_TAIL).flip();
    Replies.blockingWrite(response, false, event);
  }

  /** The last event, ending the stream in the same write. */
  public void last(byte[] json, String id) throws IOException {
    Replies.blockingWrite(response, true, event(json, id));
  }

  private static ByteBuffer event(byte[] json, String id) {
    // Raw CR or LF can only be whitespace in valid JSON; they would split the data line.
    byte[] line = Ndjson.singleLine(json);
    byte[] idLine = id == null ? new byte[0] : ("id: " + id + "\n").getBytes(StandardCharsets.US_ASCII);
    ByteBuffer event = ByteBuffer.allocate(idLine.length + EVENT_HEAD.length + line.length + EVENT_TAIL.length);
    event.put(idLine).put(EVENT_HEAD).put(line).put(EVENT_TAIL).flip();
    return event;
  }

  public void keepAlive() throws IOException {
    Replies.blockingWrite(response, false, ByteBuffer.wrap(KEEP_ALIVE));
  }

  /** Ends the stream (the last chunk); failures are ignored, the client has gone anyway. */
  public void close() {
    try {
      Replies.blockingWrite(response, true, ByteBuffer.allocate(0));
    } catch (IOException e) {
      // nothing more to tell this client
    }
  }
}
