package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.net.http.HttpHeaders;

/** What became of one HTTP attempt to deliver a {@link Call}. */
sealed interface Outcome {

  /** Response headers, or empty ones when no response arrived. */
  HttpHeaders headers();

  /**
   * A 2xx response with a body was read to its end.
   *
   * @param answer the response to the call's request id, when the body carried it
   * @param emitted whether any message from the body was relayed to the host
   */
  record Delivered(int status, HttpHeaders headers, Response answer, boolean emitted)
      implements Outcome {}

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
  record Failed(String reason, boolean sent, boolean emitted, boolean retryable) implements Outcome {
    @Override
    public HttpHeaders headers() {
      return HttpHeaders.of(java.util.Map.of(), (a, b) -> true);
    }
  }
}
