package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.protocol.EraProbeVerdict;
import java.util.concurrent.CompletableFuture;

/**
 * A fresh child's listener while the gateway asks it {@code server/discover} (deliverable 5 of
 * issue 14; era-2026.md section 3, pitfall 1): the first response it writes decides its era
 * ({@link EraProbeVerdict}: a discover result or an MCP-reserved error is the 2026 era; anything
 * else, silence within the probe's timeout, or an exit, the 2025 era). A 2026-era child is kept
 * and its lines go on to the pooled child from then on ({@link #handOver}); a 2025-era one is
 * closed, since some 2025 servers are left confused by a request before {@code initialize}, and
 * the pool spawns a fresh process for the 2025 handshake.
 */
final class ChildProbe implements ChildProcess.Listener {

  /** The probe's answer line, or null when the child's stdout closed first. */
  final CompletableFuture<byte[]> answer = new CompletableFuture<>();
  private volatile ChildProcess.Listener next;

  /** From now on the child's lines go to {@code listener}. */
  void handOver(ChildProcess.Listener listener) {
    this.next = listener;
  }

  @Override
  public void onLine(byte[] line) {
    ChildProcess.Listener to = next;
    if (to != null) {
      to.onLine(line);
      return;
    }
    try {
      if (JsonRpcCodec.parse(line) instanceof JsonRpcMessage.Response) {
        answer.complete(line);
      }
    } catch (MalformedMessageException e) {
      // not JSON: not the answer; a 2025-era child may log on stdout before anything else
    }
  }

  @Override
  public void onOversizedLine(long length, byte[] head) {
    ChildProcess.Listener to = next;
    if (to != null) {
      to.onOversizedLine(length, head);
    }
  }

  @Override
  public void onStdoutClosed() {
    answer.complete(null);
    ChildProcess.Listener to = next;
    if (to != null) {
      to.onStdoutClosed();
    }
  }

  @Override
  public boolean onStderrLine(byte[] line) {
    ChildProcess.Listener to = next;
    return to != null && to.onStderrLine(line);
  }

  /** The verdict on the probe's answer ({@code null}: none). */
  static EraProbeVerdict verdict(byte[] answer) {
    return answer == null ? EraProbeVerdict.transportFailure("no answer to server/discover") : EraProbeVerdict.classify(200, answer);
  }
}
