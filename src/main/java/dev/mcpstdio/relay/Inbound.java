package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcMessage;

/** Receives every message the upstream server sends, from any stream. */
@FunctionalInterface
interface Inbound {
  void accept(JsonRpcMessage message);
}
