package dev.mcpstdio.protocol;

import dev.mcpstdio.jsonrpc.Json;
import java.nio.charset.StandardCharsets;

/** The {@code notifications/cancelled} a gateway writes itself, built in one place (relay and serve). */
public final class Cancellation {

  private Cancellation() {}

  /**
   * {@code {"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":<id>,"reason":<reason>}}}.
   *
   * @param requestIdJson the cancelled request's id as JSON (its original form)
   * @param reason why, for the peer's log (quoted here)
   */
  public static byte[] notification(String requestIdJson, String reason) {
    return ("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":" + requestIdJson
        + ",\"reason\":" + Json.quote(reason) + "}}").getBytes(StandardCharsets.UTF_8);
  }
}
