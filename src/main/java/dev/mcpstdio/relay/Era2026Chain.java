package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The relay's chain in the 2026 era, and what it owns: the era's state ({@link Era2026Session}),
 * the listen streams, the MRTR bridge, and the ids it gives its own requests. Built once by
 * {@code Relay}; the 2025 chain never meets any of it.
 *
 * <p>The chain: the relay's first links (reused ids, normalise) → {@link Era2026Host} → paginate →
 * {@link Era2026Results} → {@link MrtrBridge} → {@link Era2026Requests} → retry (a re-issue gets
 * a new id) → auth → {@link Upstream#post2026}. The probe ({@link #discover}) runs through its
 * tail (requests → retry → auth), the listen streams through requests → auth.
 */
final class Era2026Chain {

  private final Era2026Session session = new Era2026Session();
  private final Upstream upstream;
  private final AnswerLedger ledger;
  private final ReusedIds reusedIds;
  private final ListenStreams listens;
  private final List<Interceptor> links;
  private final List<Interceptor> probeLinks; // server/discover, the relay's own
  private final AtomicLong ownIds = new AtomicLong();
  // A host request re-issued after a broken attempt, while its retries last (so at most one entry
  // per request in flight): the id it travelled as -> its re-issued id, and back.
  private final Map<JsonRpcId, JsonRpcId> reissuedAs = new ConcurrentHashMap<>();
  private final Map<JsonRpcId, JsonRpcId> reissueOrigins = new ConcurrentHashMap<>();

  /**
   * @param first the links every chain of the relay starts with (reused ids, normalise)
   * @param auth the relay's own sign-in, or null
   */
  Era2026Chain(RelayConfig config, Upstream upstream, Inbound toHost, AnswerLedger ledger, ReusedIds reusedIds,
      PaginateLists pages, List<Interceptor> first, Authorization auth, Sleeper sleeper, Log log) {
    this.upstream = upstream;
    this.ledger = ledger;
    this.reusedIds = reusedIds;
    ToolHeaders toolHeaders = new ToolHeaders(log);
    Era2026Requests requests = new Era2026Requests(session, toolHeaders, log);
    MrtrBridge bridge = new MrtrBridge(session, toHost, this::close, log);
    List<Interceptor> listen = new ArrayList<>(List.of(requests));
    if (auth != null) {
      listen.add(new AuthLink(auth));
    }
    List<Interceptor> listenLinks = List.copyOf(listen);
    this.listens = new ListenStreams(session,
        (call, sink) -> Interceptor.run(listenLinks, c -> upstream.listen(c, sink), call),
        upstream::cancel2026, toHost, sleeper, log);
    List<Interceptor> tail = new ArrayList<>();
    tail.add(requests);
    tail.add(new RetryLink(config.retry(), sleeper, log, ledger.counts(), new RetryLink.Reissue() {
      @Override
      public Call reissue(Call original) {
        return reissued(original);
      }

      @Override
      public void done(Call original) {
        reissuesDone(original);
      }
    }));
    if (auth != null) {
      tail.add(new AuthLink(auth));
    }
    upstream.cancelledBy(this::cancelledByHost);
    List<Interceptor> chain = new ArrayList<>(first);
    chain.add(new Era2026Host(session, this::rediscover, this::close, bridge, listens, log));
    chain.add(pages);
    chain.add(new Era2026Results(session, toolHeaders, log));
    chain.add(bridge);
    chain.addAll(tail);
    this.links = List.copyOf(chain);
    this.probeLinks = List.copyOf(tail);
  }

  Era2026Session session() {
    return session;
  }

  /** Runs a call through the 2026 chain. */
  Outcome deliver(Call call) throws InterruptedException {
    return Interceptor.run(links, upstream::post2026, call);
  }

  /** The listen streams end (the relay is shutting down). */
  void stop() {
    listens.stop();
  }

  /** One {@code server/discover} of the relay's own (the era probe, a re-seed), carrying the host's capabilities once known. */
  Outcome discover() throws InterruptedException {
    JsonRpcId id = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "discover-" + ownIds.incrementAndGet());
    String json = "{\"jsonrpc\":\"2.0\",\"id\":" + id.json() + ",\"method\":\"server/discover\",\"params\":{}}";
    Call call = Call.internal(Era2026Wire.parse(json.getBytes(StandardCharsets.UTF_8)));
    return Interceptor.run(probeLinks, upstream::post2026, call);
  }

  /** Discovers again (with the host's capabilities): true when the server answered with a result. */
  private boolean rediscover() throws InterruptedException {
    Outcome outcome = discover();
    if (EraDecision.classify(outcome) == EraDecision.Verdict.RESULT && outcome instanceof Outcome.Delivered d) {
      session.discovered(d.answer());
      return true;
    }
    return false;
  }

  /** A request sent again after its response stream broke: a new id of the relay's own. */
  private Call reissued(Call call) {
    if (!(call.message() instanceof Request r)) {
      return call;
    }
    JsonRpcId id = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "reissue-" + ownIds.incrementAndGet());
    if (!call.internal()) { // the host may cancel it: its cancel names the id the request came with
      JsonRpcId before = reissuedAs.put(r.id(), id);
      if (before != null) {
        reissueOrigins.remove(before);
      }
      reissueOrigins.put(id, r.id());
    }
    return call.withBody(Rewrites.withId(r, id));
  }

  /** The retries of {@code call} are over: its re-issued id, if any, is forgotten. */
  private void reissuesDone(Call call) {
    JsonRpcId id = call.requestId();
    JsonRpcId reissue = id == null ? null : reissuedAs.remove(id);
    if (reissue != null) {
      reissueOrigins.remove(reissue);
    }
  }

  /**
   * Closes the response stream of the request that travels as {@code id}, and that of its
   * re-issue when its first attempt broke (the host's cancel names the id it knows).
   */
  private void close(JsonRpcId id) {
    upstream.cancel2026(id);
    JsonRpcId reissue = reissuedAs.get(id);
    if (reissue != null) {
      upstream.cancel2026(reissue);
    }
  }

  /**
   * Whether the request that travels as {@code id} (a re-issue, an alias or the host's own id) is
   * one the host cancelled and that is still open: such a request is not sent.
   */
  private boolean cancelledByHost(JsonRpcId id) {
    JsonRpcId host = reusedIds.hostId(reissueOrigins.getOrDefault(id, id));
    return ledger.isCancelled(host) && ledger.isOpen(host);
  }
}
