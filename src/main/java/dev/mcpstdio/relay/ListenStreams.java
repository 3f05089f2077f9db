package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.stdio.Log;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What a 2025-era host learns from the GET stream and {@code resources/subscribe}, in the 2026
 * era: change notifications come on {@code subscriptions/listen} streams the relay keeps open.
 *
 * <ul>
 *   <li>The list stream, opened once the host sent {@code notifications/initialized} (never
 *       before: nothing may precede the initialize answer), asks for the list changes of the
 *       families the server has (the host was told {@code listChanged} for each: {@link Era2026Host#advertised}).
 *   <li>The resource stream asks for {@code resources/updated} of the URIs the host subscribed to
 *       (at most {@link #MAX_SUBSCRIPTIONS}); it is opened on the first subscription, and reopened
 *       whenever the set changes: the old stream's response is closed first, so no change is told
 *       twice. A host's {@code resources/subscribe} is answered once the stream asking for the new
 *       set is acknowledged ({@link #awaitSubscribed}, at most {@link #SUBSCRIBE_ACK_WAIT}), so an
 *       update the host provokes right after that answer is not lost to a stream still opening.
 * </ul>
 *
 * <p>A notification reaches the host only after the stream's {@code
 * notifications/subscriptions/acknowledged}, only when it has no id and is of a kind the ack
 * honours (for a URI, one the ack names and the host still wants), and without {@code
 * _meta.subscriptionId}. A stream ends for good when the server ends the subscription (a result
 * for the listen, or {@code notifications/cancelled} naming it), or refuses it with an error that
 * will not change (-32601, -32020, -32021, -32022, or an error answer); one that fails before its
 * ack is given up; one that fails after its ack is opened again on the relay's reconnect schedule
 * ({@link RetryPolicy#reconnects}).
 */
final class ListenStreams {

  static final int MAX_SUBSCRIPTIONS = 256;

  /**
   * Bound on holding a {@code resources/subscribe} answer until the resource stream with the new
   * set is acknowledged; past it (a slow or failing server) the host is answered anyway.
   */
  static final Duration SUBSCRIBE_ACK_WAIT = Duration.ofSeconds(5);

  /** Sends one listen and reads its stream to the end; every message on it goes to the sink. */
  @FunctionalInterface
  interface Opener {
    Outcome listen(Call call, Inbound sink) throws InterruptedException;
  }

  private final Era2026Session session;
  private final Opener opener;
  private final ResponseCloser closer;
  private final Inbound toHost;
  private final Sleeper sleeper;
  private final Log log;
  private final AtomicLong ids = new AtomicLong();
  private final Stream lists = new Stream("list");
  private final Stream resources = new Stream("resource");
  private final TreeSet<String> subscribed = new TreeSet<>(); // guarded by this
  private volatile boolean stopped;

  ListenStreams(Era2026Session session, Opener opener, ResponseCloser closer, Inbound toHost, Sleeper sleeper, Log log) {
    this.session = session;
    this.opener = opener;
    this.closer = closer;
    this.toHost = toHost;
    this.sleeper = sleeper;
    this.log = log;
  }

  /** The host is initialized: the list stream opens (once), for the families that announce list changes. */
  void hostInitialized() {
    String filter = listFilter(Era2026Host.advertised(session.serverCapabilities()));
    if (filter != null) {
      lists.open(filter);
    }
  }

  /** Adds a subscription; false when the bound is reached (the subscription is refused). */
  boolean subscribe(String uri) {
    String filter;
    synchronized (this) {
      if (!subscribed.contains(uri) && subscribed.size() >= MAX_SUBSCRIPTIONS) {
        return false;
      }
      if (!subscribed.add(uri)) {
        return true;
      }
      filter = resourceFilter();
    }
    resources.open(filter);
    return true;
  }

  void unsubscribe(String uri) {
    String filter;
    synchronized (this) {
      if (!subscribed.remove(uri)) {
        return;
      }
      filter = subscribed.isEmpty() ? null : resourceFilter();
    }
    if (filter == null) {
      resources.close();
    } else {
      resources.open(filter);
    }
  }

  /**
   * Waits until the resource stream asking for the set as it is now has been acknowledged, the
   * stream ended, or {@code bound} passed; true when acknowledged.
   */
  boolean awaitSubscribed(Duration bound) throws InterruptedException {
    return resources.awaitAcknowledged(bound);
  }

  synchronized boolean isSubscribed(String uri) {
    return subscribed.contains(uri);
  }

  void stop() {
    stopped = true;
    lists.close();
    resources.close();
    lists.interrupt(); // one waiting to reconnect ends now, not after its pause
    resources.interrupt();
  }

  private String resourceFilter() {
    StringBuilder uris = new StringBuilder("[");
    for (String uri : subscribed) {
      if (uris.length() > 1) {
        uris.append(',');
      }
      uris.append(Json.quote(uri));
    }
    return "{\"resourceSubscriptions\":" + uris.append(']') + "}";
  }

  /** The list stream's filter for what the server announces, or null when it announces no list changes. */
  static String listFilter(String capabilities) {
    if (capabilities == null) {
      return null;
    }
    byte[] bytes = capabilities.getBytes(StandardCharsets.UTF_8);
    StringBuilder filter = new StringBuilder("{");
    for (Map.Entry<String, String> family : Map.of("tools", "toolsListChanged", "prompts", "promptsListChanged",
        "resources", "resourcesListChanged").entrySet().stream().sorted(Map.Entry.comparingByKey()).toList()) {
      JsonSpan caps = Json.field(bytes, new JsonSpan(0, bytes.length), family.getKey());
      JsonSpan listChanged = Json.field(bytes, caps, "listChanged");
      if (listChanged != null && listChanged.is(bytes, "true")) {
        filter.append(filter.length() > 1 ? "," : "").append('"').append(family.getValue()).append("\":true");
      }
    }
    return filter.length() == 1 ? null : filter.append('}').toString();
  }

  /** One listen stream: its thread, the filter it should have, the listen in flight. */
  private final class Stream {
    private final String kind;
    private String filter; // guarded by this; null: closed
    private Thread thread; // guarded by this
    private volatile JsonRpcId current;
    private volatile long generation;
    private long ackedGeneration = -1; // guarded by this: the newest generation a server acknowledged

    Stream(String kind) {
      this.kind = kind;
    }

    /** Opens the stream with {@code newFilter}, or reopens it (the old response closed first). */
    void open(String newFilter) {
      JsonRpcId old;
      synchronized (this) {
        if (stopped || newFilter.equals(filter) && thread != null) {
          return;
        }
        filter = newFilter;
        generation++;
        old = current;
        if (thread == null) {
          thread = Thread.ofVirtual().name("mcp-stdio-listen-" + kind).start(this::run);
          return;
        }
      }
      if (old != null) {
        closer.close(old); // the loop opens it again with the new filter
      }
    }

    synchronized void interrupt() {
      if (thread != null) {
        thread.interrupt();
      }
    }

    void close() {
      JsonRpcId old;
      synchronized (this) {
        filter = null;
        generation++;
        old = current;
        notifyAll(); // nothing is asked for now: no one waits for an ack
      }
      if (old != null) {
        closer.close(old);
      }
    }

    /** A listen of generation {@code gen} was acknowledged. */
    synchronized void acknowledgedUpTo(long gen) {
      if (gen > ackedGeneration) {
        ackedGeneration = gen;
        notifyAll();
      }
    }

    /**
     * See {@link ListenStreams#awaitSubscribed}: the ack of this generation or of a later one (which
     * asks for a set made from this one) ends the wait, and so does a stream closed, parked or
     * given up.
     */
    synchronized boolean awaitAcknowledged(Duration bound) throws InterruptedException {
      long gen = generation;
      long deadline = System.nanoTime() + bound.toNanos();
      while (ackedGeneration < gen && filter != null && thread != null && !stopped) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        TimeUnit.NANOSECONDS.timedWait(this, left);
      }
      return ackedGeneration >= gen;
    }

    private void run() {
      RetryPolicy.Reconnects reconnects = RetryPolicy.reconnects();
      try {
        while (!stopped) {
          String f;
          long gen;
          synchronized (this) {
            f = filter;
            gen = generation;
            if (f == null) {
              thread = null; // parked: the next open starts a new thread
              notifyAll();
              return;
            }
          }
          End end = once(f, gen);
          if (end == End.FOR_GOOD) {
            synchronized (this) {
              thread = null;
              filter = null;
              notifyAll(); // given up: no ack is coming
            }
            return;
          }
          if (end == End.ESTABLISHED) {
            reconnects.worked();
          }
          if (generation != gen) {
            continue; // reopened with another filter: at once
          }
          Duration wait = reconnects.failed();
          log.info(kind + " listen stream ended; opening it again in " + wait.toMillis() + " ms");
          sleeper.sleep(wait);
        }
      } catch (InterruptedException e) {
        // stopping
      } catch (RuntimeException e) {
        log.warn(kind + " listen stream failed (" + e + "); change notifications stop");
      }
    }

    private End once(String f, long gen) throws InterruptedException {
      JsonRpcId id = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "listen-" + kind + "/" + ids.incrementAndGet());
      String json = "{\"jsonrpc\":\"2.0\",\"id\":" + id.json()
          + ",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":" + f + "}}";
      Call call = Call.internal(Era2026Wire.parse(json.getBytes(StandardCharsets.UTF_8)));
      Sink sink = new Sink(id, () -> acknowledgedUpTo(gen));
      current = id;
      Outcome outcome;
      try {
        if (generation != gen) {
          return End.ESTABLISHED; // reopened before it went: go round again
        }
        outcome = opener.listen(call, sink);
      } finally {
        current = null;
      }
      Outcome.tailOf(outcome).answerWritten();
      if (generation != gen || stopped) {
        return End.ESTABLISHED; // closed by the relay: not the server's doing
      }
      Response error = Era2026Requests.errorOf(outcome);
      if (error != null) {
        log.warn(kind + " listen stream refused by the server (error " + error.errorCode()
            + "); change notifications of this kind will not reach the host");
        return End.FOR_GOOD;
      }
      if (sink.endedByServer || outcome instanceof Outcome.Delivered d && d.answer() != null) {
        log.info("the server ended the " + kind + " listen stream");
        return End.FOR_GOOD;
      }
      if (!sink.acknowledged) {
        if (outcome instanceof Outcome.Refused r && (r.status() == 401 || r.status() == 403)) {
          return End.FAILED; // try again with a fresh login
        }
        log.warn(kind + " listen stream failed before the server acknowledged it (" + SessionLink.describe(outcome)
            + "); change notifications of this kind will not reach the host");
        return End.FOR_GOOD;
      }
      return End.ESTABLISHED;
    }
  }

  private enum End { ESTABLISHED, FAILED, FOR_GOOD }

  /** What one listen stream carries, filtered for the host. */
  private final class Sink implements Inbound {
    private final JsonRpcId id;
    private final Runnable onAck;
    volatile boolean acknowledged;
    volatile boolean endedByServer;
    private volatile Set<String> honoured = Set.of(); // filter keys the ack honours
    private volatile Set<String> honouredUris = Set.of();

    Sink(JsonRpcId id, Runnable onAck) {
      this.id = id;
      this.onAck = onAck;
    }

    @Override
    public void accept(JsonRpcMessage message) {
      if (!(message instanceof Notification n)) {
        log.debug("a listen stream carried something other than a notification; dropped");
        return;
      }
      byte[] bytes = n.bytes();
      if (!"2.0".equals(Json.string(bytes, Json.field(bytes, new JsonSpan(0, bytes.length), "jsonrpc")))) {
        return;
      }
      switch (n.method()) {
        case "notifications/subscriptions/acknowledged" -> acknowledge(n);
        case "notifications/cancelled" -> {
          JsonRpcId named = Json.id(bytes, Json.field(bytes, n.params(), "requestId"));
          if (id.equals(named)) {
            endedByServer = true;
            closer.close(id); // the subscription is over: its stream need not wait for the server to close it
          }
        }
        case "notifications/tools/list_changed" -> listChanged(n, "toolsListChanged");
        case "notifications/prompts/list_changed" -> listChanged(n, "promptsListChanged");
        case "notifications/resources/list_changed" -> listChanged(n, "resourcesListChanged");
        case "notifications/resources/updated" -> {
          String uri = Json.string(bytes, Json.field(bytes, n.params(), "uri"));
          if (acknowledged && uri != null && honouredUris.contains(uri) && isSubscribed(uri)) {
            toHost.accept(forHost(n));
          }
        }
        default -> log.debug("dropped " + n.method() + " from a listen stream");
      }
    }

    private void acknowledge(Notification ack) {
      if (acknowledged) {
        return;
      }
      byte[] bytes = ack.bytes();
      JsonSpan notifications = Json.field(bytes, ack.params(), "notifications");
      Map<String, JsonSpan> fields = Json.fields(bytes, notifications);
      if (fields == null) {
        return; // not an ack: it names what it honours
      }
      Set<String> keys = new java.util.HashSet<>();
      fields.forEach((key, value) -> {
        if (value.is(bytes, "true")) {
          keys.add(key);
        }
      });
      List<JsonSpan> uris = Json.elements(bytes, fields.get("resourceSubscriptions"));
      Set<String> named = new java.util.HashSet<>();
      if (uris != null) {
        for (JsonSpan uri : uris) {
          String u = Json.string(bytes, uri);
          if (u != null) {
            named.add(u);
          }
        }
      }
      honoured = Set.copyOf(keys);
      honouredUris = Set.copyOf(named);
      acknowledged = true;
      onAck.run();
    }

    private void listChanged(Notification n, String key) {
      if (acknowledged && honoured.contains(key)) {
        toHost.accept(forHost(n));
      }
    }
  }

  /** The notification without {@code _meta.subscriptionId} (and without an {@code _meta} left empty). */
  static JsonRpcMessage forHost(Notification n) {
    byte[] bytes = n.bytes();
    JsonSpan meta = Json.field(bytes, n.params(), "_meta");
    if (meta == null) {
      return n;
    }
    String kept = Era2026Wire.withoutMembers(bytes, meta, Set.of(MetaKeys.SUBSCRIPTION_ID));
    if (kept == null) {
      return n;
    }
    String params = "{}".equals(kept) ? Era2026Wire.withoutMembers(bytes, n.params(), Set.of("_meta"))
        : new String(meta.replace(bytes, kept.getBytes(StandardCharsets.UTF_8)), StandardCharsets.UTF_8);
    if ("{}".equals(kept)) {
      return Era2026Wire.parse(n.params().replace(bytes, params.getBytes(StandardCharsets.UTF_8)));
    }
    return Era2026Wire.parse(params.getBytes(StandardCharsets.UTF_8));
  }
}
