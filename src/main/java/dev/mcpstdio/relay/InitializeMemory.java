package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The host's own handshake, kept so a lost session can be re-established exactly as the host
 * established it: same capabilities and client info (so sampling, elicitation and roots keep
 * working), the version the server negotiated, and a relay-owned id so the answer stays internal.
 */
final class InitializeMemory {

  private static final byte[] DEFAULT_INITIALIZED =
      "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"
          .getBytes(StandardCharsets.UTF_8);

  private final AtomicLong sequence = new AtomicLong();
  private volatile Request initialize;
  private volatile Notification initialized;

  void remember(JsonRpcMessage message) {
    if (message instanceof Request r && "initialize".equals(r.method())) {
      initialize = r;
    } else if (message instanceof Notification n && "notifications/initialized".equals(n.method())) {
      initialized = n;
    }
  }


  /** The host's initialize with a fresh relay-owned id, asking for {@code version} if known. */
  Request replayInitialize(String version) {
    Request original = initialize;
    if (original == null) {
      return null;
    }
    Request replay =
        Rewrites.withId(
            original, JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "reinit-" + sequence.incrementAndGet()));
    if (version != null) {
      replay = Rewrites.withParam(replay, "protocolVersion", Json.quote(version));
    }
    return replay;
  }

  Notification replayInitialized() {
    Notification n = initialized;
    if (n != null) {
      return n;
    }
    try {
      return (Notification) JsonRpcCodec.parse(DEFAULT_INITIALIZED);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException(e);
    }
  }
}
