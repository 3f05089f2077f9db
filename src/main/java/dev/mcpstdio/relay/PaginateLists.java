package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.UnaryOperator;

/**
 * Answers a list request that did not ask for a page ({@code tools/list}, {@code resources/list},
 * {@code resources/templates/list}, {@code prompts/list} without {@code cursor}) with every page
 * merged: hosts that stop after the first page lose tools otherwise (claude-code#39586). A host
 * that pages itself (sends {@code cursor}) is passed through untouched.
 *
 * <p>Pages are fetched with relay-owned ids and the merged answer carries the host's id. At most
 * {@link #MAX_PAGES} pages are fetched, and no more than {@code --max-message-size} bytes of
 * them. A failure of the first page is the request's failure; a failure (or a bound) after that
 * yields the pages so far with {@code nextCursor} pointing at the first one missing, so nothing is
 * silently lost. A host's cancel is forwarded under the id of the page in flight (the only id the
 * server knows) and stops the paging.
 */
final class PaginateLists implements Interceptor {

  static final int MAX_PAGES = 100;

  static final Map<String, String> LIST_FIELDS =
      Map.of(
          "tools/list", "tools",
          "resources/list", "resources",
          "resources/templates/list", "resourceTemplates",
          "prompts/list", "prompts");

  private final AnswerLedger ledger;
  private final long maxBytes;
  private final Log log;
  private final AtomicLong sequence = new AtomicLong();
  private final UnaryOperator<JsonRpcId> hostIds;
  // the request's id as it travels (a reused id's alias: a cancelled list and the list that reused
  // its id must not share an entry) -> the page in flight
  private final Map<JsonRpcId, JsonRpcId> pageInFlight = new ConcurrentHashMap<>();

  /**
   * @param hostIds the host's id behind a request's id ({@link ReusedIds#hostId}: a reused id
   *     reaches this link as its alias, while the ledger and the host's cancel know the host's id)
   * @param maxBytes bound on the merged result (the pages' bytes, summed); 0 means none
   */
  PaginateLists(AnswerLedger ledger, UnaryOperator<JsonRpcId> hostIds, long maxBytes, Log log) {
    this.ledger = ledger;
    this.hostIds = hostIds;
    this.maxBytes = maxBytes <= 0 ? Long.MAX_VALUE : maxBytes;
    this.log = log;
  }

  /**
   * The relay-owned id of the page being fetched for the request that travels as {@code id} (the
   * host's id, or the alias of a reused one), or null.
   */
  JsonRpcId pageInFlight(JsonRpcId id) {
    return pageInFlight.get(id);
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    if (call.internal() || !(call.message() instanceof Request request)) {
      return chain.proceed(call);
    }
    String field = LIST_FIELDS.get(request.method());
    if (field == null || !unpaged(request)) {
      return chain.proceed(call);
    }
    return paginate(chain, call, request, field);
  }

  /** True when the request has no params, or params without a cursor. */
  static boolean unpaged(Request request) {
    if (request.params() == null) {
      return true;
    }
    Map<String, JsonSpan> params = Json.fields(request.bytes(), request.params());
    return params != null && !params.containsKey("cursor");
  }

  private Outcome paginate(Chain chain, Call call, Request request, String field)
      throws InterruptedException {
    JsonRpcId hostId = hostIds.apply(request.id());
    try {
      return fetchPages(chain, call, request, hostId, field);
    } finally {
      pageInFlight.remove(request.id());
    }
  }

  /** Pages go upstream under ids of their own; answers carry {@code request}'s id (an alias translates). */
  private Outcome fetchPages(Chain chain, Call call, Request request, JsonRpcId hostId, String field)
      throws InterruptedException {
    List<ListMerge.Page> pages = new ArrayList<>();
    String cursor = null;
    Outcome first = null;
    long merged = 0;
    for (int page = 1; page <= MAX_PAGES; page++) {
      JsonRpcId pageId = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "page-" + sequence.incrementAndGet());
      Request pageRequest = Rewrites.withId(request, pageId);
      if (cursor != null) {
        pageRequest = Rewrites.withParam(pageRequest, "cursor", Json.quote(cursor));
      }
      Call pageCall = new Call(pageRequest, pageRequest.bytes(), call.headers(), true, new CompletableFuture<>());
      if (page == 1) {
        pageCall.handover().whenComplete((ok, e) -> call.handover().complete(null));
      }
      pageInFlight.put(request.id(), pageId);
      Outcome outcome = chain.proceed(pageCall);
      if (ledger.isCancelled(hostId)) {
        log.info(request.method() + " " + hostId + " was cancelled; stopped paging");
        ledger.closeCancelled(hostId); // the host gave up: it expects nothing more
        return outcome instanceof Outcome.Delivered d ? d.withAnswer(null) : outcome;
      }
      if (page == 1) {
        first = outcome;
      }
      Response answer = outcome instanceof Outcome.Delivered d ? d.answer() : null;
      if (answer == null || answer.isError() || answer.result() == null) {
        if (page == 1) {
          // the server's own error under the request's id, or no answer: the request fails as a whole
          return answer != null ? ((Outcome.Delivered) outcome).withAnswer(Rewrites.withId(answer, request.id())) : outcome;
        }
        log.warn(
            request.method() + ": page " + page + " failed (" + SessionLink.describe(outcome)
                + "); returning " + (page - 1) + " pages with nextCursor to resume");
        return deliver(outcome, request, pages, field, cursor);
      }
      if (page == 1 && nextCursor(answer) == null) {
        return ((Outcome.Delivered) outcome).withAnswer(Rewrites.withId(answer, request.id())); // one page: the server's bytes
      }
      merged += answer.result().length();
      if (merged > maxBytes) {
        log.warn(request.method() + ": the merged list would exceed --max-message-size; returning "
            + pages.size() + " pages with nextCursor to resume");
        return deliver(first, request, pages, field, cursor);
      }
      pages.add(new ListMerge.Page(answer.bytes(), answer.result()));
      cursor = nextCursor(answer);
      if (cursor == null) {
        return deliver(first, request, pages, field, null);
      }
    }
    log.warn(request.method() + ": stopped after " + MAX_PAGES + " pages; nextCursor lets the host continue");
    return deliver(first, request, pages, field, cursor);
  }

  private Outcome deliver(
      Outcome outcome, Request request, List<ListMerge.Page> pages, String field, String resume) {
    byte[] result = ListMerge.merge(pages, field, resume);
    String json =
        "{\"jsonrpc\":\"2.0\",\"id\":" + request.id().json() + ",\"result\":"
            + new String(result, StandardCharsets.UTF_8) + "}";
    try {
      JsonRpcMessage merged = JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
      return new Outcome.Delivered(200, outcome.headers(), (Response) merged, true);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException("merged list is malformed", e);
    }
  }

  /** The answer's {@code nextCursor} when it is a non-empty string, else null (the last page). */
  static String nextCursor(Response answer) {
    String cursor = Json.string(answer.bytes(), Json.field(answer.bytes(), answer.result(), "nextCursor"));
    return cursor == null || cursor.isEmpty() ? null : cursor;
  }
}
