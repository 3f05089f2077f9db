package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;

/**
 * Notes the ids the host cancels ({@code notifications/cancelled}), so that a response the server
 * sends anyway is not written after the host gave up on it. The notification itself is forwarded:
 * the server should stop the work.
 */
final class TrackCancels implements Interceptor {

  private final AnswerLedger ledger;

  TrackCancels(AnswerLedger ledger) {
    this.ledger = ledger;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    JsonRpcId id = cancelledId(chain.call());
    if (id != null) {
      ledger.cancel(id);
    }
    return chain.proceed(chain.call());
  }

  /** The id named by a {@code notifications/cancelled}, or null. */
  static JsonRpcId cancelledId(Call call) {
    if (call.message() instanceof Notification n && "notifications/cancelled".equals(n.method())) {
      return Json.id(n.bytes(), Json.field(n.bytes(), n.params(), "requestId"));
    }
    return null;
  }
}
