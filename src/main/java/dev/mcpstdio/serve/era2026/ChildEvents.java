package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.protocol.McpErrorCodes;
import dev.mcpstdio.protocol.McpMethods;

/**
 * What the 2026-era endpoint does with what a pooled child says outside any answer: list changes
 * and resource updates go to the listen streams (a tools list change also relists the child's
 * tools for the ladder), its questions to the reverse MRTR bridge or refused, its death ends its
 * streams.
 */
final class ChildEvents implements PooledChild.Events {

  private final ListenHub listens;
  private final IdSpace ids;

  ChildEvents(ListenHub listens, IdSpace ids) {
    this.listens = listens;
    this.ids = ids;
  }

  @Override
  public void notification(PooledChild child, JsonRpcMessage.Notification notification) {
    if (notification.method().equals(McpMethods.TOOLS_LIST_CHANGED)) {
      ChildStarter.listTools(child, null, 0); // the ladder's rung 2d learns the new annotations
    }
    listens.deliver(child, notification);
  }

  @Override
  public void died(PooledChild child) {
    listens.childDied(child);
  }

  /**
   * The child asks its client something during a call. A client that did not declare the
   * capability the question needs gets -32021 naming it (HTTP 400), in place of the call's answer,
   * and the call is cancelled at the child (nobody waits for its answer); a declared one goes to
   * the reverse MRTR bridge. When the question is no call's ({@code during} null: none that may
   * ask is in flight, or several share the child, which a 2025-era child's question does not tell
   * apart, or the child is a 2026-era server, whose questions are never a call's), it is refused
   * and no call is failed: the child decides what its call does without.
   */
  @Override
  public void request(PooledChild child, Request request, PooledChild.Call during) {
    String needed = ClientAsks.CAPABILITY_OF.get(request.method());
    if (during != null && needed != null && !during.asks.declares(needed)) {
      IdSpace.Entry entry = ids.lookup(during.childId);
      JsonRpcId client = during.questions != null ? during.questions.answerAs
          : entry == null ? during.childId : entry.clientId();
      during.answerWith(400, JsonRpcErrors.error(client, McpErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY,
          "the server needs the client capability " + needed + " for this request",
          "{\"requiredCapabilities\":{" + Json.quote(needed) + ":{}}}"));
      child.refuse(request.id(), ErrorCodes.METHOD_NOT_FOUND, "the client did not declare the capability " + needed);
      child.cancel(during.childId, "the client cannot answer this call's question: it did not declare " + needed);
      return;
    }
    if (during != null && needed != null && during.questions != null) {
      if (during.questions.offer(request)) {
        return; // the reverse MRTR bridge asks the client (ReverseBridge)
      }
      child.refuse(request.id(), ErrorCodes.INTERNAL_ERROR, "the gateway cannot pass this question on: the call ended, or"
          + " asked more than " + ReverseBridge.MAX_QUESTIONS + " at once");
      return;
    }
    if (needed != null && !child.asks.declares(needed)) {
      child.refuse(request.id(), ErrorCodes.METHOD_NOT_FOUND, "the client did not declare the capability " + needed);
      return;
    }
    child.refuse(request.id(), ErrorCodes.METHOD_NOT_FOUND, "this gateway does not bridge server-initiated requests");
  }
}
