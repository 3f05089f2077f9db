package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.stdio.EmitGate;
import dev.mcpstdio.stdio.Log;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Everything the relay writes to the host in answer to a request, from the server or in its own
 * words, goes through here: the one place that decides whether an answer may go out for an id.
 *
 * <p>The {@link AnswerLedger} knows which ids are open; this class adds which call answers each
 * one. Usually that is the call that sent it; a request that reused the id of a cancelled one
 * still in flight takes the id over ({@link #supersede}), and the cancelled call then ends in
 * silence (the one deliberate silence: the host gave up on it). The owner map holds one entry per
 * request in flight, so it is bounded by the ledger's capacity.
 *
 * <p>Messages from the server arrive through {@link #accept} (the {@link Inbound} of every
 * stream): answers under a relay-owned alias are translated back to the host's id, and an array
 * reaches the host as an array only when it answers a host batch.
 */
final class HostAnswers implements Inbound {

  private final AnswerLedger ledger;
  private final EmitGate gate;
  private final ReusedIds reusedIds;
  private final Log log;
  private final Map<JsonRpcId, Call> owners = new ConcurrentHashMap<>(); // request id -> the call that answers it

  HostAnswers(AnswerLedger ledger, EmitGate gate, ReusedIds reusedIds, Log log) {
    this.ledger = ledger;
    this.gate = gate;
    this.reusedIds = reusedIds;
    this.log = log;
  }

  /** {@code call}, about to be launched, answers its request's id from now on. */
  void owns(Call call) {
    if (call.message() instanceof Request r) {
      owners.put(r.id(), call);
    }
  }

  /** True while {@code call} still answers {@code id} (false once a reused id took it over). */
  boolean isOwner(Call call, JsonRpcId id) {
    return owners.get(id) == call;
  }

  /**
   * A fresh request opened {@code id}: an earlier call under it may still be settling after its
   * answer went out, and must not mistake the new request for its own.
   */
  void opened(JsonRpcId id) {
    owners.remove(id);
  }

  /** {@code call}'s exchange ended: it answers nothing any more, and its alias is not needed. */
  void ended(Call call) {
    if (call.message() instanceof Request r && owners.remove(r.id(), call)) {
      reusedIds.forget(r.id());
    }
  }

  /**
   * Takes {@code id} over for a new request from the cancelled call that owns it; from then on
   * that call ends in silence. Atomic with {@link #answerFor} for the same id: the cancelled
   * call either answered first (and the id is then no longer open for a takeover) or never will.
   */
  boolean supersede(JsonRpcId id) {
    boolean[] taken = {false};
    owners.compute(id, (k, owner) -> {
      taken[0] = ledger.supersede(k);
      return taken[0] ? null : owner;
    });
    return taken[0];
  }

  /**
   * Answers {@code id} with the relay's own error on behalf of {@code call}. A single request's
   * call answers only while it still owns the id (a takeover by a reused id in between leaves the
   * new request's answer alone); a batch's members are never taken over.
   */
  void answerFor(Call call, JsonRpcId id, int code, String message, String data) {
    if (!(call.message() instanceof Request)) {
      answerOwn(id, code, message, data);
      return;
    }
    boolean[] closed = {false};
    owners.computeIfPresent(id, (k, owner) -> {
      closed[0] = owner == call && ledger.closeForOwnAnswer(k);
      return owner;
    });
    if (closed[0]) {
      gate.own(JsonRpcErrors.error(id, code, message, data));
    }
  }

  /**
   * The chain ended without the server's answer to {@code id}: the server's own JSON-RPC error in
   * an HTTP error body when it names this request (under the host's id or its alias), else the
   * relay's description of what went wrong.
   */
  void answerFailure(Call call, JsonRpcId id, Outcome outcome) {
    if (outcome instanceof Outcome.Refused r && r.error() != null && id.equals(reusedIds.hostId(r.error().id()))) {
      accept(r.error()); // the server's own error for this request says it best
      if (!ledger.isOpen(id)) {
        return;
      }
    }
    UpstreamErrors.Error error = UpstreamErrors.describe(call, outcome);
    answerFor(call, id, error.code(), error.message(), error.data());
  }

  /** Answers an open request with the relay's own error, unless it was answered already. */
  void answerOwn(JsonRpcId id, int code, String message, String data) {
    if (ledger.closeForOwnAnswer(id)) {
      gate.own(JsonRpcErrors.error(id, code, message, data));
    }
  }

  /** Every request still open gets {@code message} as its error (a null id is never open). */
  void answerEveryOpen(int code, String message) {
    for (JsonRpcId id : ledger.openIds()) {
      answerOwn(id, code, message, null);
    }
  }

  /** Answers a message that was never sent upstream (so never entered the ledger). */
  void reject(JsonRpcId id, int code, String message) {
    gate.own(JsonRpcErrors.error(id, code, message));
  }

  /**
   * Answers every request in {@code message} (one, or a batch's) with the relay's error.
   *
   * @param mayBeOpen admission may have opened them in the ledger (they are then closed by this
   *     answer, once); false when they never reached it (an open entry for the id is another
   *     request's, and stays; and a batch's invalid members, never answered either, get theirs)
   */
  void rejectRequests(JsonRpcMessage message, boolean mayBeOpen, int code, String why) {
    List<JsonRpcMessage> members = message instanceof Batch b ? b.members() : List.of(message);
    for (JsonRpcMessage m : members) {
      if (m instanceof Request r && mayBeOpen && ledger.isOpen(r.id())) {
        answerOwn(r.id(), code, why, null);
      } else if (m instanceof Request r) {
        reject(r.id(), code, why);
      } else if (m instanceof JsonRpcMessage.Invalid invalid && !mayBeOpen && invalid.id() != null) {
        reject(invalid.id(), ErrorCodes.INVALID_REQUEST, "Invalid Request: " + invalid.reason()); // its own answer
      }
    }
  }

  /** A message from the server, on any stream, on its way to the host. */
  @Override
  public void accept(JsonRpcMessage message) {
    if (message instanceof Response r && Rewrites.isRelayOwned(r.id())) {
      Response own = reusedIds.translate(r);
      if (own == null) {
        log.debug("dropped a stray answer to the relay's own request " + r.id());
      } else {
        gate.relay(own);
      }
      return;
    }
    if (message instanceof Batch b && !ledger.answersHostBatch(b)) {
      // Only a host batch is answered with a batch: anything else the server sent as an array
      // (a one-element array answering a single request, say) reaches the host message by message.
      log.debug("an upstream batch of " + b.members().size() + " answers no host batch; relaying its members one by one");
      for (JsonRpcMessage member : b.members()) {
        accept(member);
      }
      return;
    }
    gate.relay(message);
  }
}
