package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.MetaKeys;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ids serve gives a client's requests on a pooled child (mcp-stdio.md 4.6, "id remapped"):
 * children are shared, so two clients' ids (and progress tokens) may collide there; each request
 * goes to the child as {@code mcp-stdio/serve/<n>}, {@code n} from one counter for the whole
 * process, and its {@code _meta.progressToken}, when it has one, becomes the same string. The
 * answer and the progress notifications come back under the client's own id and token, their
 * bytes verbatim.
 *
 * <p>A client id that is a string beginning with {@link #PREFIX} (however it is escaped) is
 * refused (-32600): the namespace is the gateway's, and an id in it could pose as one of the
 * gateway's own requests to the child (its handshake, its {@code resources/subscribe}).
 *
 * <p>Bound: at most {@code capacity} requests in flight at once ({@link #DEFAULT_CAPACITY} unless
 * told otherwise); one more is refused ({@link Refused#full()}, which the endpoint answers 503)
 * until an entry is {@link #release released}. The endpoint releases each entry exactly once,
 * when the request's answer is written or the request is cancelled, so the table holds only
 * what is in flight. Thread-safe.
 */
public final class IdSpace {

  /** The gateway's namespace of ids and tokens on a pooled child. */
  public static final String PREFIX = "mcp-stdio/serve/";

  /**
   * Default bound on requests in flight through the 2026 path: ample for a pool of children each
   * with a handful of concurrent calls, small enough that the table stays a few hundred KiB.
   */
  public static final int DEFAULT_CAPACITY = 4096;

  /** Process-global: no two entries in the process, in any table, share a child id. */
  private static final AtomicLong COUNTER = new AtomicLong();

  private final int capacity;
  private final Map<JsonRpcId, Entry> entries = new HashMap<>();

  public IdSpace() {
    this(DEFAULT_CAPACITY);
  }

  public IdSpace(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be at least 1");
    }
    this.capacity = capacity;
  }

  /**
   * One request in flight.
   *
   * @param childId the id the child sees (also its progress token, when the client gave one)
   * @param clientId the client's id, its original JSON kept
   * @param clientToken the JSON text of the client's progress token, or null when it gave none
   */
  public record Entry(JsonRpcId childId, JsonRpcId clientId, String clientToken) {}

  /** The outcome of {@link #remap}. */
  public sealed interface Outbound permits Remapped, Refused {}

  /** The request as it goes to the child, and its entry. */
  public record Remapped(Request request, Entry entry) implements Outbound {}

  /**
   * The request cannot be remapped.
   *
   * @param code -32600 for an id in the gateway's namespace, -32603 when the table is full
   */
  public record Refused(int code, String message) implements Outbound {

    /** True when the table is full (HTTP 503; the id itself was fine). */
    public boolean full() {
      return code == ErrorCodes.INTERNAL_ERROR;
    }
  }

  /** True when {@code id} is a string in the gateway's namespace. */
  public static boolean isReserved(JsonRpcId id) {
    return id != null && id.isString() && id.value().startsWith(PREFIX);
  }

  /** Remaps {@code request}'s id (and progress token) and records the entry. */
  public Outbound remap(Request request) {
    if (isReserved(request.id())) {
      return new Refused(ErrorCodes.INVALID_REQUEST, "request ids beginning with " + PREFIX + " are reserved by the gateway");
    }
    JsonRpcId childId = JsonRpcId.relayOwned(PREFIX + COUNTER.incrementAndGet());
    byte[] bytes = request.bytes();
    Splice splice = new Splice(bytes).replace(request.idSpan(), childId.json());
    JsonSpan token = progressToken(bytes, request.params());
    if (token != null) {
      splice.replace(token, childId.json());
    }
    Entry entry = new Entry(childId, request.id(), token == null ? null : token.text(bytes));
    synchronized (entries) {
      if (entries.size() >= capacity) {
        return new Refused(ErrorCodes.INTERNAL_ERROR, "too many requests in flight; retry shortly");
      }
      entries.put(childId, entry);
    }
    return new Remapped((Request) Splice.parse(splice.apply()), entry);
  }

  /** The entry of the child's id {@code childId}, or null when none is in flight. */
  public Entry lookup(JsonRpcId childId) {
    synchronized (entries) {
      return entries.get(childId);
    }
  }

  /** Ends the entry of {@code childId}; returns it, or null when there was none. */
  public Entry release(JsonRpcId childId) {
    synchronized (entries) {
      return entries.remove(childId);
    }
  }

  /**
   * A bridged call goes on under a retry ({@code retry}, a new request of the client's): its
   * progress comes back under the retry's token from now on, or is dropped when the retry gave
   * none (the request that gave the old one has had its answer). No-op when the entry has ended.
   */
  public void retoken(JsonRpcId childId, Request retry) {
    JsonSpan token = progressToken(retry.bytes(), retry.params());
    String text = token == null ? null : token.text(retry.bytes());
    synchronized (entries) {
      entries.computeIfPresent(childId, (id, e) -> new Entry(e.childId(), e.clientId(), text));
    }
  }

  /** Entries in flight. */
  public int size() {
    synchronized (entries) {
      return entries.size();
    }
  }

  /**
   * A progress notification from the child, for the client.
   *
   * @param entry the request it belongs to
   * @param notification its bytes with the client's token
   */
  public record Progress(Entry entry, byte[] notification) {}

  /**
   * The client's view of a child's {@code notifications/progress}: null when its token is none of
   * ours in flight (the endpoint drops it), or when the client gave no token.
   */
  public Progress progress(Notification fromChild) {
    byte[] bytes = fromChild.bytes();
    Json.Member token = Splice.find(Json.members(bytes, fromChild.params()), MetaKeys.PROGRESS_TOKEN);
    JsonRpcId id = token == null ? null : Json.id(bytes, token.value());
    Entry entry = isReserved(id) ? lookup(id) : null;
    if (entry == null || entry.clientToken() == null) {
      return null;
    }
    return new Progress(entry, new Splice(bytes).replace(token.value(), entry.clientToken()).apply());
  }

  /** The span of {@code params._meta.progressToken} when it is a string or a number; else null. */
  private static JsonSpan progressToken(byte[] bytes, JsonSpan params) {
    Json.Member meta = Splice.find(Json.members(bytes, params), "_meta");
    List<Json.Member> members = meta == null ? null : Json.members(bytes, meta.value());
    Json.Member token = Splice.find(members, MetaKeys.PROGRESS_TOKEN);
    return token != null && Json.id(bytes, token.value()) != null ? token.value() : null;
  }
}
