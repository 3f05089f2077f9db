package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;

/**
 * Closes the response stream of the 2026-era request that travels as an id: how a 2026 server
 * learns that its client gave up on a request (a cancelled call, a listen whose filter changed).
 * Nothing happens when no such request is in flight.
 */
@FunctionalInterface
interface ResponseCloser {
  void close(JsonRpcId travelledId);
}
