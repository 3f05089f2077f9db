package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.protocol.EraProbeVerdict;
import java.util.concurrent.CompletableFuture;

/**
 * A fresh child's listener while the gateway asks it {@code server/discover} (deliverable 5 of
 * issue 14; era-2026.md section 3, pitfall 1): the first response it writes decides its era
 * ({@link EraProbeVerdict}: a discover result or an MCP-reserved error is the 2026 era; anything
 * else, silence within the probe's timeout, or an exit, the 2025 era). A 2026-era child is kept
 * and its lines go on to the pooled child that takes it over ({@link #handOver}); a 2025-era one is
 * closed, since some 2025 servers are left confused by a request before {@code initialize}, and
 * the pool spawns fresh processes for the 2025 handshake ({@link ChildStarter}).
 */
final class ChildProbe extends HandOver {

  /** The probe's answer line, or null when the child's stdout closed first. */
  final CompletableFuture<byte[]> answer = new CompletableFuture<>();

  @Override
  void early(byte[] line) {
    try {
      if (JsonRpcCodec.parse(line) instanceof JsonRpcMessage.Response) {
        answer.complete(line);
      }
    } catch (MalformedMessageException e) {
      // not JSON: not the answer; a 2025-era child may log on stdout before anything else
    }
  }

  @Override
  void closedEarly() {
    answer.complete(null);
  }

  /** The verdict on the probe's answer ({@code null}: none). */
  static EraProbeVerdict verdict(byte[] answer) {
    return answer == null ? EraProbeVerdict.transportFailure("no answer to server/discover") : EraProbeVerdict.classify(200, answer);
  }
}
