package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A host that reuses a request id it cancelled moments ago (MCP forbids reusing ids in a session,
 * but hosts do it) still gets exactly the answer to its new request. The server may yet send the
 * late answer of the cancelled one under the same id, so the new request goes upstream under an
 * alias the relay owns, and its answer comes back to the host under the host's id; the late answer
 * under the bare id is held back by the {@link AnswerLedger}, which {@link #alias} tells what the
 * real answer will be.
 *
 * <p>The first link of both chains (Streamable HTTP and HTTP+SSE). An alias lives as long as its
 * request's exchange (the relay calls {@link #forget} when it ends); at most as many as requests
 * in flight. Only single requests are aliased: a batch member never reuses an id this way (the
 * ledger refuses it as a duplicate while the cancelled one is open, and does not mark it).
 */
final class ReusedIds implements Interceptor {

  private final AnswerLedger ledger;
  private final AtomicLong sequence = new AtomicLong();
  private final Map<JsonRpcId, JsonRpcId> aliasOf = new ConcurrentHashMap<>(); // host id -> alias
  private final Map<JsonRpcId, JsonRpcId> hostIdOf = new ConcurrentHashMap<>(); // alias -> host id

  ReusedIds(AnswerLedger ledger) {
    this.ledger = ledger;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    if (!(call.message() instanceof Request request) || !ledger.isReused(request.id())) {
      return chain.proceed(call);
    }
    JsonRpcId alias = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "reused-" + sequence.incrementAndGet());
    aliasOf.put(request.id(), alias);
    hostIdOf.put(alias, request.id());
    // Kept until the exchange ends (forget): over HTTP+SSE the answer comes on the event stream
    // after this returns.
    return chain.proceed(call.withBody(Rewrites.withId(request, alias)));
  }

  /** The host's exchange for {@code hostId} ended: its alias, if it had one, is no longer needed. */
  void forget(JsonRpcId hostId) {
    JsonRpcId alias = aliasOf.remove(hostId);
    if (alias != null) {
      hostIdOf.remove(alias);
    }
  }

  /** The host's id behind {@code id} when it is an alias, else {@code id} itself. */
  JsonRpcId hostId(JsonRpcId id) {
    JsonRpcId hostId = id == null ? null : hostIdOf.get(id);
    return hostId != null ? hostId : id;
  }

  /** The alias a host id travels under now, or null. */
  JsonRpcId aliasOf(JsonRpcId hostId) {
    return aliasOf.get(hostId);
  }

  /**
   * The server's answer to an aliased request, under the host's id again (and announced to the
   * ledger as the one answer to let through); null when {@code answer} is not for an alias.
   */
  Response translate(Response answer) {
    JsonRpcId hostId = answer.id() == null ? null : hostIdOf.get(answer.id());
    if (hostId == null) {
      return null;
    }
    Response own = Rewrites.withId(answer, hostId);
    ledger.expect(own);
    return own;
  }
}
