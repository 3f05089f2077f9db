package dev.mcpstdio.testing;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;

/**
 * How {@link Fake2026Server} answers one exchange: a complete body, an event stream of {@link
 * Step}s, a hang, or a dropped connection. Extra response headers are name/value pairs.
 */
public sealed interface Fake2026Reply {

  /** 200 {@code application/json}. */
  static Fake2026Reply json(String body, String... headers) {
    return new Body(200, "application/json", body, headers);
  }

  /** Any status with a JSON body. */
  static Fake2026Reply json(int status, String body, String... headers) {
    return new Body(status, "application/json", body, headers);
  }

  /** Any status, any content type (null for none), any body. */
  static Fake2026Reply body(int status, String contentType, String body, String... headers) {
    return new Body(status, contentType, body, headers);
  }

  /** A status with an empty body (202 for an accepted notification, say). */
  static Fake2026Reply status(int status, String... headers) {
    return new Body(status, null, "", headers);
  }

  /** 200 {@code text/event-stream}: the steps in order, then the end of the response. */
  static Fake2026Reply sse(Step... steps) {
    return new Events(200, List.of(steps), new String[0]);
  }

  static Fake2026Reply sse(List<Step> steps, String... headers) {
    return new Events(200, List.copyOf(steps), headers);
  }

  /**
   * Reads the request and never answers: the server holds the exchange until the client closes
   * it (recorded as {@link Fake2026Exchange#clientClosedEarly()}) or the server stops.
   */
  static Fake2026Reply hang() {
    return new Hang();
  }

  /** Reads the request, then closes the connection without any response. */
  static Fake2026Reply drop() {
    return new Drop();
  }

  record Body(int status, String contentType, String body, String[] headers) implements Fake2026Reply {}

  record Events(int status, List<Step> steps, String[] headers) implements Fake2026Reply {}

  record Hang() implements Fake2026Reply {}

  record Drop() implements Fake2026Reply {}

  /** One step of an event stream. */
  sealed interface Step {

    /** {@code event: message} carrying one JSON-RPC message (2026 events have no ids). */
    static Step event(String json) {
      return new Raw("event: message\ndata: " + json + "\n\n");
    }

    /** An SSE comment line (a keep-alive); clients must ignore it. */
    static Step comment(String text) {
      return new Raw(": " + text + "\n\n");
    }

    /** Bytes written as they are. */
    static Step raw(String text) {
      return new Raw(text);
    }

    /** Waits this long (ends early, failing the stream, if the server stops). */
    static Step pause(Duration duration) {
      return new Pause(duration);
    }

    /** Waits until the latch opens (bounded by {@link Await#DEFAULT}). */
    static Step await(CountDownLatch latch) {
      return new Await(latch);
    }

    /** Holds the stream open, writing nothing more, until the client closes it or the server stops. */
    static Step hang() {
      return new HangStep();
    }

    /** Cuts the connection here: the response never ends cleanly. */
    static Step cut() {
      return new Cut();
    }

    /**
     * Writes steps taken from {@code queue} as they arrive, until an {@link #end()} or {@link
     * #cut()} is taken, the client closes the stream or the server stops.
     */
    static Step queue(BlockingQueue<Step> queue) {
      return new Queue(queue);
    }

    /** In a {@link #queue}: ends the stream cleanly. Elsewhere: ends the steps there. */
    static Step end() {
      return new End();
    }

    record Raw(String text) implements Step {}

    record Pause(Duration duration) implements Step {}

    record Await(CountDownLatch latch) implements Step {}

    record HangStep() implements Step {}

    record Cut() implements Step {}

    record Queue(BlockingQueue<Step> queue) implements Step {}

    record End() implements Step {}
  }
}
