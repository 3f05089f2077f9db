package dev.mcpstdio.serve.metrics;

import dev.mcpstdio.protocol.McpMethods;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.core.metrics.Info;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * What serve tells its operator at {@code /metrics} (docs/reference.md, *Metrics*, lists every series):
 * sessions, children, MCP messages by era, method and outcome with their latency, bytes, requests
 * refused and why, and the OAuth endpoints' outcomes. One registry per gateway (never the
 * library's global one), so that two gateways in one process count apart.
 *
 * <p>Cost on the MCP path: a message's data points are looked up once per (era, method) and kept,
 * so counting one is a map read and a few striped additions; gauges of state the gateway already
 * keeps (sessions, children, connections) are read only when scraped. Label values come from fixed
 * sets (methods outside the protocol's are counted as {@code other}), so the series are bounded
 * whatever clients send.
 */
public final class ServeMetrics {

  /** The request attribute by which a guard says why it refused a request (a {@link Rejection}). */
  public static final String REJECTION_ATTRIBUTE = ServeMetrics.class.getName() + ".rejection";

  /** Method label of a POSTed JSON-RPC response (a client answering the server). */
  static final String RESPONSE = "response";

  /** Method label of any method outside {@link #METHODS}. */
  static final String OTHER = "other";

  /** Why a request was refused before it reached what it asked for. */
  public enum Rejection {
    HOST("host"), ORIGIN("origin"), AUTH_MISSING("auth_missing"), AUTH_INVALID("auth_invalid"),
    INSUFFICIENT_SCOPE("insufficient_scope"), AUTH_UNAVAILABLE("auth_unavailable"), BODY_TOO_LARGE("body_too_large"),
    BODY_TIMEOUT("body_timeout"), CAPACITY("capacity");

    final String label;

    Rejection(String label) {
      this.label = label;
    }
  }

  /** How an HTTP exchange ended, from its status. */
  enum Outcome {
    OK("ok"), CLIENT_ERROR("client_error"), SERVER_ERROR("server_error"), ABORTED("aborted");

    final String label;

    Outcome(String label) {
      this.label = label;
    }

    static Outcome of(int status, boolean failed) {
      return failed ? ABORTED : status >= 500 ? SERVER_ERROR : status >= 400 ? CLIENT_ERROR : OK;
    }
  }

  /** What the metrics read of the gateway's state when scraped. */
  public record State(IntSupplier sessionsOpen, LongSupplier openedStreamable,
      LongSupplier openedHttpSse, IntSupplier childrenAlive, LongSupplier childrenStarted, IntSupplier connections) {}

  /** The MCP methods a client sends (requests and notifications, both eras), each its own label value. */
  static final java.util.Set<String> METHODS = java.util.Set.of("initialize", "ping", McpMethods.TOOLS_LIST,
      McpMethods.TOOLS_CALL, McpMethods.PROMPTS_LIST, McpMethods.PROMPTS_GET, McpMethods.RESOURCES_LIST,
      McpMethods.RESOURCES_TEMPLATES_LIST, McpMethods.RESOURCES_READ, "resources/subscribe", "resources/unsubscribe",
      "logging/setLevel", "completion/complete", McpMethods.SERVER_DISCOVER, McpMethods.SUBSCRIPTIONS_LISTEN,
      "notifications/initialized", "notifications/cancelled", McpMethods.PROGRESS, "notifications/roots/list_changed",
      "tasks/get", "tasks/result", "tasks/list", "tasks/cancel");

  /** Upper bounds of the latency buckets, in seconds: a loopback ping to a minute-long tool call. */
  static final double[] LATENCY_BOUNDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Counter messages;
  private final Histogram latency;
  private final Counter received;
  private final Counter sent;
  private final Map<Rejection, CounterDataPoint> rejections = new EnumMap<>(Rejection.class);
  private final Counter oauth;
  private final Counter tokenChecks;
  /** Per era label, per method label: the data points of one kind of message. */
  private final Map<String, Map<String, Points>> points = new ConcurrentHashMap<>();

  private record Points(CounterDataPoint[] byOutcome, DistributionDataPoint latency) {}

  public ServeMetrics(String version, State state) {
    Info.builder().name("mcp_stdio_build_info").help("The gateway's version").labelNames("version").register(registry)
        .setLabelValues(version);
    GaugeWithCallback.builder().name("mcp_stdio_serve_sessions_open").help("2025-era sessions open now (both transports)")
        .callback(cb -> cb.call(state.sessionsOpen().getAsInt())).register(registry);
    CounterWithCallback.builder().name("mcp_stdio_serve_sessions_opened").help("2025-era sessions opened since the start, by transport")
        .labelNames("transport").callback(cb -> {
          cb.call(state.openedStreamable().getAsLong(), "streamable_http");
          cb.call(state.openedHttpSse().getAsLong(), "http_sse");
        }).register(registry);
    GaugeWithCallback.builder().name("mcp_stdio_serve_children_alive").help("Child processes started and not yet exited (both eras, warm ones included)")
        .callback(cb -> cb.call(state.childrenAlive().getAsInt())).register(registry);
    CounterWithCallback.builder().name("mcp_stdio_serve_children_spawned").help("Child processes started since the start")
        .callback(cb -> cb.call(state.childrenStarted().getAsLong())).register(registry);
    GaugeWithCallback.builder().name("mcp_stdio_serve_connections_open").help("Network connections open now")
        .callback(cb -> cb.call(state.connections().getAsInt())).register(registry);
    messages = Counter.builder().name("mcp_stdio_serve_messages")
        .help("MCP messages POSTed to the endpoint, by era, method and how their HTTP exchange ended")
        .labelNames("era", "method", "outcome").withoutExemplars().register(registry);
    latency = Histogram.builder().name("mcp_stdio_serve_message_duration_seconds")
        .help("From a POSTed message's arrival to the end of its HTTP exchange (its answer, or the end of its event stream)")
        .labelNames("era", "method").classicOnly().classicUpperBounds(LATENCY_BOUNDS).withoutExemplars().register(registry);
    received = Counter.builder().name("mcp_stdio_serve_received_bytes").help("Request body bytes read").withoutExemplars().register(registry);
    sent = Counter.builder().name("mcp_stdio_serve_sent_bytes").help("Response body bytes written").withoutExemplars().register(registry);
    Counter rejected = Counter.builder().name("mcp_stdio_serve_rejected_requests")
        .help("Requests refused before reaching what they asked for, by reason").labelNames("reason").withoutExemplars().register(registry);
    for (Rejection r : Rejection.values()) {
      rejections.put(r, rejected.labelValues(r.label));
    }
    oauth = Counter.builder().name("mcp_stdio_serve_oauth_requests")
        .help("Requests to the embedded authorization server, by endpoint and outcome (ok, refused: an OAuth error, error: the server failed)")
        .labelNames("endpoint", "outcome").withoutExemplars().register(registry);
    tokenChecks = Counter.builder().name("mcp_stdio_serve_token_checks")
        .help("Access tokens checked at the protected endpoints, by verdict").labelNames("verdict").withoutExemplars().register(registry);
  }

  public PrometheusRegistry registry() {
    return registry;
  }

  /** One MCP message's exchange ended: {@code era} "2025" or "2026"; {@code method} null for a response. */
  public void message(String era, String method, int status, boolean failed, long nanos) {
    String methodLabel = method == null ? RESPONSE : METHODS.contains(method) ? method : OTHER;
    Points p = points.computeIfAbsent(era, e -> new ConcurrentHashMap<>()).computeIfAbsent(methodLabel, m -> {
      CounterDataPoint[] byOutcome = new CounterDataPoint[Outcome.values().length];
      for (Outcome o : Outcome.values()) {
        byOutcome[o.ordinal()] = messages.labelValues(era, m, o.label);
      }
      return new Points(byOutcome, latency.labelValues(era, m));
    });
    p.byOutcome()[Outcome.of(status, failed).ordinal()].inc();
    p.latency().observe(nanos / 1e9);
  }

  /** Body bytes of one finished request. */
  void bytes(long in, long out) {
    if (in > 0) {
      received.inc(in);
    }
    if (out > 0) {
      sent.inc(out);
    }
  }

  void rejected(Rejection reason) {
    rejections.get(reason).inc();
  }

  /** One request to the authorization server's {@code endpoint} ended with {@code outcome}. */
  void oauth(String endpoint, String outcome) {
    oauth.labelValues(endpoint, outcome).inc();
  }

  /** An access token was judged: accepted, rejected, insufficient_scope or unavailable. */
  public void tokenChecked(String verdict) {
    tokenChecks.labelValues(verdict).inc();
  }
}
