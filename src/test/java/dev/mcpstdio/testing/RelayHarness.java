package dev.mcpstdio.testing;

import dev.mcpstdio.net.OutboundHttp;
import dev.mcpstdio.relay.Relay;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.relay.RetryPolicy;
import dev.mcpstdio.relay.Sleeper;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.stdio.StdoutWire;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

/**
 * A relay running in-process against a loopback server, with stdin, stdout and stderr in memory.
 *
 * <p>Waits between retries are recorded in {@link #sleeps} and shortened to at most {@link
 * #MAX_REAL_SLEEP}, so a test can assert the relay honoured a {@code Retry-After} of 30 s without
 * waiting for it.
 */
public final class RelayHarness implements AutoCloseable {

  public static final Duration MAX_REAL_SLEEP = Duration.ofMillis(20);
  public static final Duration TIMEOUT = Duration.ofSeconds(10);

  public final TestPipe stdin = new TestPipe();
  public final LineCollector stdout = new LineCollector();
  public final LineCollector stderr = new LineCollector();
  public final List<Duration> sleeps = new CopyOnWriteArrayList<>();
  public final Relay relay;
  private final CompletableFuture<Integer> exit = new CompletableFuture<>();

  private RelayHarness(RelayConfig config, boolean realSleeps) {
    this(config, realSleeps, Map.of());
  }

  private RelayHarness(RelayConfig config, boolean realSleeps, Map<String, String> env) {
    this(config, realSleeps, env, null);
  }

  private RelayHarness(RelayConfig config, boolean realSleeps, Map<String, String> env,
      dev.mcpstdio.relay.Authorization auth) {
    this(config, realSleeps, env, auth, dev.mcpstdio.relay.InFlightBounds.forThisProcess());
  }

  private RelayHarness(RelayConfig config, boolean realSleeps, Map<String, String> env,
      dev.mcpstdio.relay.Authorization auth, dev.mcpstdio.relay.InFlightBounds bounds) {
    Sleeper sleeper =
        d -> {
          sleeps.add(d);
          Sleeper.REAL.sleep(realSleeps || d.compareTo(MAX_REAL_SLEEP) < 0 ? d : MAX_REAL_SLEEP);
        };
    HttpClient client;
    try {
      client = OutboundHttp.create(new OutboundHttp.Settings(config.connectTimeout(), config.caFiles(), env));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
    Log log = new Log(stderr, config.logLevel(), new Redactor());
    relay = new Relay(config, client, stdin, new StdoutWire(stdout), log, sleeper, auth, bounds);
    Thread.ofVirtual().name("relay-harness").start(() -> {
      try {
        exit.complete(relay.run());
      } catch (Throwable t) {
        exit.completeExceptionally(t);
      }
    });
  }

  /**
   * Defaults tuned for tests: debug logs, short grace, fast retries, and the 2025 era without a
   * probe ({@code --protocol-era legacy}: the era the fake servers speak, and what the pinned
   * 2025 wire is pinned under); tests of the 2026 era or of the probe choose theirs.
   */
  public static RelayConfig config(URI url) {
    return RelayConfig.defaults(url)
        .withEra(new RelayConfig.EraSettings(dev.mcpstdio.relay.ProtocolEra.Choice.LEGACY, null))
        .withRetry(new RetryPolicy(3, Duration.ofMillis(10), Duration.ofSeconds(60)))
        .withMode(false, Log.Level.DEBUG, Duration.ofMillis(500));
  }

  /** A relay that takes on at most what {@code bounds} allow at once. */
  public static RelayHarness startWithBounds(URI url, dev.mcpstdio.relay.InFlightBounds bounds) {
    return new RelayHarness(config(url), false, Map.of(), null, bounds);
  }

  public static RelayHarness start(URI url) {
    return new RelayHarness(config(url), false);
  }

  public static RelayHarness start(URI url, UnaryOperator<RelayConfig> customize) {
    return new RelayHarness(customize.apply(config(url)), false);
  }

  /** A relay whose environment (proxy variables) is {@code env}. */
  public static RelayHarness startWithEnv(URI url, Map<String, String> env, UnaryOperator<RelayConfig> customize) {
    return new RelayHarness(customize.apply(config(url)), false, env);
  }

  /** A relay that signs in itself with {@code auth}. */
  public static RelayHarness startWithAuthorization(URI url, dev.mcpstdio.relay.Authorization auth) {
    return new RelayHarness(config(url), false, Map.of(), auth);
  }

  public static RelayHarness startWithRealSleeps(URI url, UnaryOperator<RelayConfig> customize) {
    return new RelayHarness(customize.apply(config(url)), true);
  }

  public void send(String json) {
    stdin.writeLine(json);
  }

  public String next() {
    return stdout.next(TIMEOUT);
  }

  /** The next stdout line that mentions {@code "id":<idJson>}. */
  public String answerTo(String idJson) {
    return stdout.nextMatching(l -> hasId(l, idJson), TIMEOUT);
  }

  /**
   * The answers to {@code idsJson} by id, in whatever order they came: answers to requests that
   * were open together may come in either order. Lines are looked at, not consumed.
   */
  public Map<String, String> answersTo(String... idsJson) {
    return Await.value("answers to " + List.of(idsJson) + "; stdout so far: " + stdout.snapshot(), TIMEOUT, () -> {
      Map<String, String> found = new java.util.LinkedHashMap<>();
      for (String line : stdout.snapshot()) {
        for (String id : idsJson) {
          if (hasId(line, id)) {
            found.putIfAbsent(id, line);
          }
        }
      }
      return found.size() == idsJson.length ? found : null;
    });
  }

  /** True when the line is a response whose id is the JSON value {@code idJson}. */
  public static boolean hasId(String line, String idJson) {
    try {
      var node = Jsons.parse(line);
      var id = node.get("id");
      return id != null && !node.has("method") && id.equals(Jsons.parse(idJson));
    } catch (RuntimeException e) {
      return false;
    }
  }

  /** Sends the standard initialize and returns the relayed answer. */
  public String initialize() {
    send(INITIALIZE);
    String answer = answerTo("0");
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
    return answer;
  }

  public static final String INITIALIZE =
      "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{\"sampling\":{},\"elicitation\":{}},\"clientInfo\":{\"name\":\"test-host\",\"version\":\"1\"}}}";

  /** Closes stdin and waits for the relay to finish; returns its exit code. */
  public int closeAndAwait() {
    stdin.close();
    try {
      return exit.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception e) {
      throw new AssertionError("relay did not exit: " + e);
    }
  }

  /** Begins the relay's shutdown, as a signal does (returns once it has finished). */
  public void shutdown(String reason) {
    relay.shutdown(reason);
  }

  public String log() {
    return String.join("\n", stderr.snapshot());
  }

  @Override
  public void close() {
    stdin.close();
    relay.shutdown("test finished");
    try {
      exit.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (Exception ignored) {
      // reported by the test that cares
    }
  }
}
