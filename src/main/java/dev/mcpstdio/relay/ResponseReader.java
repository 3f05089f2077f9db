package dev.mcpstdio.relay;

import dev.mcpstdio.net.IdleWatchdog;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.jsonrpc.StreamingScanner;
import dev.mcpstdio.wire.Bytes;
import dev.mcpstdio.wire.SseDecoder;
import dev.mcpstdio.wire.SseEvent;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Reads one response body as it arrives (push style, so a stalled or oversized body can be
 * abandoned at once by cancelling the subscription, which closes the connection).
 *
 * <p>Three shapes: a JSON body is collected up to the size bound and handed over whole; an event
 * stream is decoded incrementally and each {@code message} event's data is handed to the consumer
 * as it completes; either way the JSON is checked as it arrives (a {@link StreamingScanner}), so
 * the consumer need not read it again. Any other body is drained up to a small bound and dropped (so the connection can
 * be reused) or abandoned past it.
 */
final class ResponseReader implements HttpResponse.BodySubscriber<ResponseReader.Result> {

  /** How the body is read. */
  enum Format {
    JSON,
    EVENT_STREAM,
    DRAIN
  }

  /** Receives the messages of a body. */
  @FunctionalInterface
  interface MessageSink {
    /**
     * @param data one message: a JSON body trimmed and non-empty, an event's data as sent
     * @param layout what the scanner found while the body arrived, or null when it has nothing to
     *     say (the sink then checks and classifies the bytes itself)
     * @return whether the data was a usable JSON-RPC message
     */
    boolean accept(byte[] data, MessageLayout layout);
  }

  /** Bytes of an error body kept, for a JSON-RPC error inside it. */
  static final int DRAIN_LIMIT = 64 * 1024;

  /**
   * The end of one body.
   *
   * @param json the collected body in JSON or DRAIN format (DRAIN: null past its bound)
   * @param failure why reading stopped early, or null when the body ended normally
   * @param retryable false when reading again cannot help (size bound exceeded, bad encoding)
   * @param lastEventId the event stream's last id, for resuming it
   * @param retryMillis the event stream's requested reconnection delay, or -1
   * @param outOfMemory the failure is that the relay's heap could not hold the body
   */
  record Result(byte[] json, String failure, boolean retryable, String lastEventId, long retryMillis,
      boolean outOfMemory) {
    Result(byte[] json, String failure, boolean retryable, String lastEventId, long retryMillis) {
      this(json, failure, retryable, lastEventId, retryMillis, false);
    }
  }

  private final Format format;
  private final long maxBytes;
  private final CompletableFuture<Result> result = new CompletableFuture<>();
  private final AtomicBoolean finished = new AtomicBoolean();
  private final IdleWatchdog watchdog;
  private final ContentDecoder decoder;
  private final Body collected;
  private final MessageSink onMessage;
  private volatile Boolean bodyUsable; // JSON format: null until the body was handed over
  private final SseDecoder events;
  private volatile Flow.Subscription subscription;
  private long received;
  private boolean overflowed;
  private volatile boolean answered;
  private final MessageBudget.Hold hold;
  private final boolean ownsHold; // else the exchange's: it gives everything back when it ends
  private volatile long chargedSinceMessage; // what this reader charged since the last message it gave back
  private long presized; // room given up front (a declared length), charged before the first byte
  private long credit; // bytes still covered by that up-front charge

  /**
   * @param encoding the response's Content-Encoding, already checked to be supported
   * @param maxBytes bound on a JSON body or one event (decoded); 0 means none
   * @param onMessage receives each event-stream {@code message} event's data, and a JSON body
   *     (trimmed, non-empty) the moment it is complete; it says whether the body was usable
   */
  ResponseReader(
      Format format,
      String encoding,
      long maxBytes,
      Duration idleTimeout,
      String idleLabel,
      IdleWatchdog.Sweeper sweeper,
      MessageSink onMessage) {
    this(format, encoding, maxBytes, -1, idleTimeout, idleLabel, sweeper, onMessage, MessageBudget.UNBOUNDED.reader(), true);
  }

  /**
   * @param declaredLength the body's Content-Length when it is not content-encoded, else -1
   * @param hold the body's share of the relay's message budget: charged as bytes arrive (past
   *     the budget the reader stops asking for more until it may go on); what an event stream's
   *     messages other than the answer cost is given back as each is delivered
   * @param ownsHold the hold is the reader's own (released when the body ends), else the
   *     exchange's, which keeps the answer charged until the exchange ends
   */
  ResponseReader(
      Format format,
      String encoding,
      long maxBytes,
      long declaredLength,
      Duration idleTimeout,
      String idleLabel,
      IdleWatchdog.Sweeper sweeper,
      MessageSink onMessage,
      MessageBudget.Hold hold,
      boolean ownsHold) {
    this.format = format;
    this.hold = hold;
    this.ownsHold = ownsHold;
    this.onMessage = onMessage;
    this.maxBytes = maxBytes <= 0 ? Long.MAX_VALUE : maxBytes;
    this.watchdog =
        sweeper.watch(
            idleTimeout,
            () -> {
              if (answered) {
                endEarly(); // the answer is in; the server just did not end the stream
              } else {
                fail("no data from upstream for " + seconds(idleTimeout) + " (" + idleLabel + ")", true);
              }
            });
    this.collected = format == Format.EVENT_STREAM ? null
        : new Body(format == Format.JSON && encoding.isEmpty() && declaredLength <= this.maxBytes ? declaredLength : -1,
            format == Format.JSON ? new StreamingScanner() : null);
    StreamingScanner eventScanner = format == Format.EVENT_STREAM ? new StreamingScanner() : null;
    this.events =
        format == Format.EVENT_STREAM
            ? new SseDecoder(
                maxBytes,
                eventScanner,
                (SseEvent e) -> {
                  if (e.isMessage()) {
                    onMessage.accept(e.data(), eventScanner.layout());
                    if (ownsHold || !answered) { // a notification or a server request: gone to the host
                      hold.giveBack(chargedSinceMessage);
                      chargedSinceMessage = 0;
                      credit = 0; // the up-front charge went back with it
                    }
                  }
                })
            : null;
    if (events != null && encoding.isEmpty() && declaredLength > 0) {
      events.expectAtMost(declaredLength);
      presized = Math.min(Math.min(declaredLength, this.maxBytes), SseDecoder.PRESIZE_MAX);
    } else if (format == Format.JSON && encoding.isEmpty() && declaredLength > 0 && declaredLength <= this.maxBytes) {
      presized = Math.min(declaredLength, Body.PREALLOCATE_MAX);
    }
    ContentDecoder.Sink sink = format == Format.EVENT_STREAM ? this::feedEvents : this::collect;
    // Bound on decoded bytes: a JSON body as a whole; an event stream is bounded per event by
    // its decoder (a long-lived stream may carry any number of events), a drained body by its own.
    this.decoder = ContentDecoder.forEncoding(encoding, format == Format.JSON ? maxBytes : 0, sink);
  }

  private static String seconds(Duration d) {
    return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
  }

  private void feedEvents(ByteBuffer chunk) throws IOException {
    events.feed(chunk);
  }

  private void collect(ByteBuffer chunk) throws IOException {
    int length = chunk.remaining();
    received += length;
    if (format == Format.DRAIN) {
      if (received > DRAIN_LIMIT) {
        overflowed = true;
        throw new ContentDecoder.TooLargeException("error body too large to keep");
      }
    } else if (received > maxBytes) {
      throw new ContentDecoder.TooLargeException(
          "response exceeds --max-message-size (" + maxBytes + " bytes); aborting");
    }
    collected.add(chunk);
  }

  @Override
  public CompletionStage<Result> getBody() {
    return result;
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    if (finished.get()) {
      s.cancel(); // refused before it began (bad encoding, too long): close the connection
      return;
    }
    watchdog.start();
    // The room a declared length gets at once is memory held from the first byte: charged now.
    credit = presized;
    chargedSinceMessage = presized;
    if (presized == 0 || hold.charge(presized, this::resume)) {
      s.request(1);
    }
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    if (finished.get()) {
      return;
    }
    watchdog.touch();
    // Charged before the bytes are decoded, so that a message delivered while they are (and
    // given back then) gives back what they cost.
    long bytes = 0;
    for (ByteBuffer item : items) {
      bytes += item.remaining();
    }
    long covered = Math.min(bytes, credit);
    credit -= covered;
    bytes -= covered;
    chargedSinceMessage += bytes;
    boolean goOn = hold.charge(bytes, this::resume);
    try {
      for (ByteBuffer item : items) {
        decoder.feed(item);
      }
    } catch (ContentDecoder.TooLargeException e) {
      if (format == Format.DRAIN) {
        finish(new Result(null, null, true, null, -1));
        subscription.cancel();
        return;
      }
      fail(e.getMessage(), false);
      return;
    } catch (SseDecoder.SseException e) {
      fail(e.getMessage(), false);
      return;
    } catch (IOException | RuntimeException e) {
      fail(e.getMessage() == null ? e.toString() : e.getMessage(), false);
      return;
    } catch (OutOfMemoryError e) {
      failOutOfMemory();
      return;
    }
    if (goOn) {
      subscription.request(1);
    }
  }

  /** The budget has room again for this body: ask for its next bytes. */
  private void resume() {
    if (!finished.get()) {
      watchdog.touch(); // the time it waited was the relay's, not the server's
      subscription.request(1);
    }
  }

  /** The heap could not hold the body: it is abandoned and the failure says so. */
  private void failOutOfMemory() {
    watchdog.stop();
    if (finish(new Result(null, OUT_OF_MEMORY, false, lastEventId(), retry(), true))) {
      decoder.abort();
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }

  static final String OUT_OF_MEMORY =
      "the relay ran out of memory reading this answer (raise its heap: MCP_STDIO_JAVA_OPTS=-Xmx512m)";

  @Override
  public void onError(Throwable t) {
    watchdog.stop();
    String reason = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    finish(new Result(bytes(), "upstream stream interrupted: " + reason, true, lastEventId(), retry()));
  }

  /**
   * The client reported the body's failure on the response instead of to this reader (which of
   * the two it uses is a race inside the client): the body ends as {@link #onError} ends it, or
   * as it had already ended.
   */
  Result interrupted(Throwable t) {
    onError(t);
    return result.join();
  }

  @Override
  public void onComplete() {
    watchdog.stop();
    try {
      decoder.finish();
      if (events != null) {
        events.finish();
      }
    } catch (IOException | RuntimeException e) {
      finish(new Result(bytes(), e.getMessage(), false, lastEventId(), retry()));
      return;
    }
    byte[] body;
    try {
      body = overflowed ? null : bytes();
      if (format == Format.JSON) {
        // Hand the answer over here, on the client's thread, rather than after the waiting exchange
        // thread wakes up: one thread hop less between the server's reply and the host.
        byte[] json = Bytes.trim(body);
        bodyUsable = json.length == 0 ? null : onMessage.accept(json, collected.layout());
        // Delivered: nothing of it is kept here. (The HTTP client may keep this reader, the last
        // one of a pooled connection, until the connection's next exchange: it must not keep a
        // megabyte answer alive with it, uncharged.)
        body = null;
        collected.clear();
      }
    } catch (OutOfMemoryError e) {
      failOutOfMemory();
      return;
    }
    finish(new Result(body, null, true, lastEventId(), retry()));
  }

  /** For a JSON body: null when it was empty, else whether it was a usable JSON-RPC message. */
  Boolean bodyUsable() {
    return bodyUsable;
  }

  /**
   * The stream's purpose is served (it carried the request's answer). A server should end the
   * stream now; if it stays silent for {@code grace}, the relay ends it instead, as a normal end,
   * rather than holding a connection and an exchange open until the read timeout.
   */
  void answered(Duration grace) {
    answered = true;
    watchdog.shorten(grace);
  }

  private void endEarly() {
    if (finish(new Result(bytes(), null, true, lastEventId(), retry()))) {
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }

  /** Abandons the body; the connection is closed. */
  void fail(String reason, boolean retryable) {
    watchdog.stop();
    if (finish(new Result(bytes(), reason, retryable, lastEventId(), retry()))) {
      decoder.abort();
      Flow.Subscription s = subscription;
      if (s != null) {
        s.cancel();
      }
    }
  }

  private boolean finish(Result r) {
    if (finished.compareAndSet(false, true)) {
      watchdog.stop();
      if (ownsHold) {
        hold.release();
      } else if (r.failure() != null) {
        hold.giveBack(chargedSinceMessage); // an abandoned body's bytes are garbage; a retry reads anew
      }
      result.complete(r);
      return true;
    }
    return false;
  }

  private byte[] bytes() {
    return collected == null ? null : collected.bytes();
  }

  /**
   * A JSON body being collected. With a declared length (up to {@link #PREALLOCATE_MAX}: a server
   * that declares more and sends little must not pin memory) the bytes are copied into one array of
   * that size as they arrive, so the client's buffers die young (a megabyte kept in them until the
   * end would survive a young collection and be promoted); without one, the buffers are kept and
   * joined once at the end. Either way each byte is copied once, and a JSON body is scanned as it
   * comes. Synchronized because a timeout may end the body from the sweeper thread while the
   * client's thread is adding to it.
   */
  private static final class Body {
    private final StreamingScanner scanner; // null unless the body is JSON
    private final int declared; // -1 when unknown
    private byte[] target; // with a declared length: the body, filled to at
    private int at;
    private final List<ByteBuffer> chunks = new ArrayList<>();
    private int size;

    /** Declared lengths above this are not trusted with an array up front. */
    static final int PREALLOCATE_MAX = 2 << 20;

    Body(long declared, StreamingScanner scanner) {
      this.scanner = scanner;
      this.declared = declared >= 0 && declared <= PREALLOCATE_MAX ? (int) declared : -1;
    }

    synchronized void add(ByteBuffer chunk) {
      int n = chunk.remaining();
      if (declared >= 0 && chunks.isEmpty() && at + n <= declared) {
        if (target == null) {
          target = new byte[declared];
        }
        chunk.get(target, at, n);
        scan(target, at, n);
        at += n;
        return;
      }
      if (target != null) { // more than was declared: fall back to keeping the buffers
        chunks.add(ByteBuffer.wrap(target, 0, at));
        size = at;
        target = null;
      }
      if (chunk.hasArray()) {
        scan(chunk.array(), chunk.arrayOffset() + chunk.position(), n);
      } else if (scanner != null) {
        scanner.abandon(); // bytes it cannot see: the body is classified whole at its end
      }
      chunks.add(chunk);
      size += n;
    }

    private void scan(byte[] bytes, int offset, int length) {
      if (scanner != null) {
        scanner.feed(bytes, offset, length);
      }
    }

    /** What the scanner found, for a JSON body read to its end; null when it has nothing to say. */
    synchronized MessageLayout layout() {
      return scanner == null ? null : scanner.layout();
    }

    synchronized void clear() {
      target = null;
      chunks.clear();
      at = 0;
      size = 0;
    }

    synchronized byte[] bytes() {
      if (chunks.isEmpty()) {
        if (target == null) {
          return new byte[0];
        }
        return at == target.length ? target : java.util.Arrays.copyOf(target, at);
      }
      byte[] out = new byte[size];
      int offset = 0;
      for (ByteBuffer chunk : chunks) {
        int n = chunk.remaining();
        chunk.duplicate().get(out, offset, n);
        offset += n;
      }
      return out;
    }
  }

  private String lastEventId() {
    return events == null ? null : events.lastEventId();
  }

  private long retry() {
    return events == null ? -1 : events.retryMillis();
  }
}
