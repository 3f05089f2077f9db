package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import java.util.Set;

/**
 * Which messages may be sent again after the server may already have received them.
 *
 * <p>A failure before the request left (connection refused, connect timeout) is always safe to
 * retry. After it left, only methods without side effects are replayed: running a {@code
 * tools/call} twice can do real damage, so its failure is reported instead. Notifications and the
 * host's responses are replayed: the server must tolerate duplicates of those.
 */
final class ReplaySafety {

  static final Set<String> IDEMPOTENT =
      Set.of(
          "initialize",
          "ping",
          "server/discover",
          "tools/list",
          "resources/list",
          "resources/templates/list",
          "resources/read",
          "resources/subscribe",
          "resources/unsubscribe",
          "prompts/list",
          "prompts/get",
          "completion/complete",
          "logging/setLevel");

  private ReplaySafety() {}

  static boolean mayReplay(Call call) {
    return switch (call.message()) {
      case Request r -> IDEMPOTENT.contains(r.method());
      case Batch b -> false;
      default -> true;
    };
  }
}
