package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.net.http.HttpHeaders;
import java.util.Map;

/** What became of one HTTP attempt to deliver a {@link Call}. */
sealed interface Outcome {

  /** Response headers, or empty ones when no response arrived. */
  HttpHeaders headers();

  /**
   * A 2xx response with a body carried the call's answer, or was read to its end without it.
   *
   * <p>The answer travels up the chain in the outcome: no transport writes it to the host, so a
   * link can act on it (merge pages, replace it with a retry); the top of the chain writes what
   * comes out ({@code Relay} through {@code HostAnswers}). The response may go on after the answer
   * (an event stream the server keeps open for a moment): whatever it carries then waits until
   * the answer is written ({@link AnswerTail#answerWritten}), so the host sees the server's order.
   *
   * @param answer the response to the call's request id, when the body carried it
   * @param emitted whether any other message from the body was relayed to the host
   * @param tail the rest of the response after the answer
   */
  record Delivered(int status, HttpHeaders headers, Response answer, boolean emitted, AnswerTail tail)
      implements Outcome {

    /** A response that has ended, nothing of it held back. */
    Delivered(int status, HttpHeaders headers, Response answer, boolean emitted) {
      this(status, headers, answer, emitted, AnswerTail.ENDED);
    }

    /** This outcome with another answer (pages merged, an id translated), the same response behind it. */
    Delivered withAnswer(Response newAnswer) {
      return new Delivered(status, headers, newAnswer, emitted, tail);
    }
  }

  /**
   * What may still come on a response after the call's answer arrived: messages that wait for the
   * answer to be written first, and the response's end.
   */
  interface AnswerTail {
    /** The answer was written (or will never be): what came after it may go to the host now. */
    void answerWritten();

    /**
     * Waits until the response has ended (bounded by the reader's timeouts: a stream that stays
     * open after its answer is ended {@code Upstream.ANSWERED_GRACE} after it falls silent).
     */
    void awaitEnd() throws InterruptedException;

    /** A response with nothing after its answer. */
    AnswerTail ENDED = new AnswerTail() {
      @Override
      public void answerWritten() {}

      @Override
      public void awaitEnd() {}
    };
  }

  /**
   * The relay answered the request itself (the 2026 era answers {@code initialize}, {@code ping}
   * and the like locally): a delivered outcome with a response that no server sent.
   */
  static Delivered answeredLocally(dev.mcpstdio.jsonrpc.JsonRpcMessage.Response answer) {
    return new Delivered(200, NO_HEADERS, answer, false);
  }

  /** As above, with the relay's own error. */
  static Delivered answeredLocally(dev.mcpstdio.jsonrpc.JsonRpcId id, int code, String message) {
    byte[] bytes = dev.mcpstdio.jsonrpc.JsonRpcErrors.error(id, code, message);
    return answeredLocally((dev.mcpstdio.jsonrpc.JsonRpcMessage.Response) Era2026Wire.parse(bytes));
  }

  /** The tail of {@code outcome} when it delivered an answer, else {@link AnswerTail#ENDED}. */
  static AnswerTail tailOf(Outcome outcome) {
    return outcome instanceof Delivered d ? d.tail() : AnswerTail.ENDED;
  }

  /** A 2xx response without a body (202 Accepted for notifications and responses). */
  record Accepted(int status, HttpHeaders headers) implements Outcome {}

  /**
   * A non-2xx status.
   *
   * @param error the body, when it was a JSON-RPC error response (kept for the host)
   */
  record Refused(int status, HttpHeaders headers, Response error) implements Outcome {}

  /**
   * No complete response.
   *
   * @param sent whether the request body had been handed to the connection (the server may have
   *     acted on it)
   * @param emitted whether part of the response already reached the host
   * @param retryable false when trying again cannot help (a response over the size bound)
   */
  record Failed(Kind kind, String reason, boolean sent, boolean emitted, boolean retryable)
      implements Outcome {

    /** A transport failure. */
    Failed(String reason, boolean sent, boolean emitted, boolean retryable) {
      this(Kind.TRANSPORT, reason, sent, emitted, retryable);
    }

    /** A failure of the relay's own making, not to be retried, its reason the whole story. */
    static Failed of(Kind kind, String reason) {
      return new Failed(kind, reason, true, false, false);
    }

    @Override
    public HttpHeaders headers() {
      return NO_HEADERS;
    }
  }

  /** Why an attempt failed, where the error written for it says so in its own words. */
  enum Kind {
    /** The network or the server's side of HTTP. */
    TRANSPORT,
    /** The session was lost and could not be re-established. */
    SESSION_LOST,
    /** The relay is shutting down. */
    SHUTDOWN,
    /** The relay failed itself. */
    INTERNAL,
    /** The message or its answer did not fit in the relay's heap. */
    OUT_OF_MEMORY,
    /** The relay could not sign in to the server (OAuth). */
    UNAUTHORIZED,
    /**
     * The server took the message, but its answer, which travels apart from the POST (HTTP+SSE,
     * 2024-11-05: on the event stream), never came: the stream was lost, or it did not come in
     * time. A request the host cancelled ends in silence then: it expects nothing more.
     */
    NO_ANSWER
  }

  HttpHeaders NO_HEADERS = HttpHeaders.of(Map.of(), (a, b) -> true);
}
