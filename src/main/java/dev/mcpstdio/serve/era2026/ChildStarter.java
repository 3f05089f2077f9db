package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.protocol.EraProbeVerdict;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * How a process becomes a ready {@link PooledChild}, for the {@link ChildPool} (which decides
 * when, and keeps the books): the one probe of the command ({@code server/discover}, {@link
 * ChildProbe}), a 2026-era child's start (asked {@code server/discover}, whose result stands for
 * its initialize), a 2025-era child's handshake (initialize, notifications/initialized, then the
 * gateway lists its tools), and a process spawned ahead of need ({@link WarmProcess}) that a
 * child takes over instead of spawning its own.
 */
final class ChildStarter {

  private static final String CLIENT_INFO = "{\"name\":\"mcp-stdio serve\",\"version\":\"" + dev.mcpstdio.Version.get() + "\"}";

  /** The handshake's ids, in the gateway's own namespace (a client id there is refused). */
  private static final String HANDSHAKE_ID_PREFIX = "mcp-stdio/serve/init/";

  /** How long a fresh child may take to answer the gateway's {@code server/discover} probe. */
  static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  /** The {@code _meta} of the gateway's own 2026-era requests to a 2026-era child. */
  static final String GATEWAY_META = "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/clientInfo\":" + CLIENT_INFO + "}";

  /** Pages of a child's tool list the gateway reads after the handshake, at most. */
  static final int MAX_TOOL_PAGES = 20;

  private final ChildPool.Settings settings;
  private final Log log;
  /** Runs a process's close off the caller's thread (the pool's closers). */
  private final Consumer<Runnable> closer;
  /** Told when a 2025-era child became ready (the pool then starts its next warm process). */
  private final Runnable ready2025;

  ChildStarter(ChildPool.Settings settings, Log log, Consumer<Runnable> closer, Runnable ready2025) {
    this.settings = settings;
    this.log = log;
    this.closer = closer;
    this.ready2025 = ready2025;
  }

  private String command() {
    return settings.child().argv().getFirst();
  }

  /**
   * Processes spawned and not yet owned by a pooled child (attached) or by the pool (as its warm
   * process), so that {@link #close} can end them: a probe that takes its 10 s, say, does not keep
   * its process past the gateway's shutdown.
   */
  private final java.util.Set<ChildProcess> starting = java.util.concurrent.ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  /** Spawns a process for {@code principal}'s child (null: for nobody yet, a probe or a process ahead of need). */
  private ChildProcess spawn(ChildLog childLog, ChildProcess.Listener listener, String principal) throws IOException {
    ChildProcess process = ChildProcess.start(settings.childOf(principal), settings.maxLineBytes(), childLog, settings.ladder(),
        listener);
    settings.census().track(process);
    starting.add(process);
    if (closed) { // close() may have run before the add: this one is ended here
      abandon(process);
      throw new IOException("the gateway is shutting down");
    }
    return process;
  }

  /** {@code process} is owned now (attached to its child, or the pool's warm process): no longer this starter's to end. */
  private void settled(ChildProcess process) {
    starting.remove(process);
  }

  /** Ends a process spawned here that nothing will own. */
  private void abandon(ChildProcess process) {
    settled(process);
    closer.accept(process::close);
  }

  /** Ends every process still being started (the gateway's shutdown); later spawns are ended at once. */
  void close() {
    closed = true;
    for (ChildProcess p : List.copyOf(starting)) {
      abandon(p);
    }
  }

  /** What the probe of the command found. */
  record Probed(boolean era2026, WarmProcess kept) {}

  /**
   * Probes the command once, on a process of its own (the pool's child {@code serial}): a discover
   * result, or an error code from the range MCP reserves, makes it a 2026-era server, and that
   * process is kept ({@link Probed#kept}, its discover answer with it) for the first child to take
   * over; anything else (an error such as -32601, silence within {@link #PROBE_TIMEOUT}, an exit)
   * makes it a 2025-era server, and the process is closed, since some 2025 servers are confused by
   * a request before {@code initialize}.
   */
  Probed probe(long serial) throws IOException, InterruptedException {
    ChildLog childLog = new ChildLog(log.tagged("pool child " + serial), settings.stderrLimit());
    ChildProbe probe = new ChildProbe();
    ChildProcess process = spawn(childLog, probe, null);
    EraProbeVerdict verdict;
    byte[] answer;
    try {
      answer = discover(process, probe, serial);
      verdict = ChildProbe.verdict(answer);
    } catch (InterruptedException | RuntimeException e) {
      abandon(process);
      throw e;
    }
    log.info("pool: " + command() + " is a " + (verdict.isEra2026() ? "2026" : "2025") + "-era server (" + verdict.reason() + ")");
    settled(process);
    if (verdict.isEra2026()) {
      return new Probed(true, new WarmProcess(serial, childLog, process, probe, System.nanoTime(), answer));
    }
    closer.accept(() -> {
      process.close();
      childLog.flush();
    });
    return new Probed(false, null);
  }

  /** Asks {@code process} {@code server/discover}: its answer line, or null (none within the timeout, or it exited). */
  private static byte[] discover(ChildProcess process, ChildProbe probe, long serial) throws InterruptedException {
    byte[] discover = ("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/serve/probe/" + serial + "\",\"method\":\"server/discover\","
        + "\"params\":{\"_meta\":" + GATEWAY_META + "}}").getBytes(StandardCharsets.UTF_8);
    if (!process.send(discover)) {
      return null;
    }
    try {
      return probe.answer.get(PROBE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      return null;
    }
  }

  /** A process spawned ahead of need for the pool's child {@code serial}: not yet asked anything. */
  WarmProcess spawnAhead(long serial) throws IOException {
    ChildLog childLog = new ChildLog(log.tagged("pool child " + serial), settings.stderrLimit());
    HandOver listener = new HandOver();
    ChildProcess process = spawn(childLog, listener, null);
    settled(process); // the pool's from here
    childLog.info("pool: started " + command() + " (pid " + process.pid() + ") ahead of need, for the next child");
    return new WarmProcess(serial, childLog, process, listener, System.nanoTime(), null);
  }

  /**
   * Starts {@code child}, on its warm process when the pool gave it one, else on a process of its
   * own; {@code child.ready} completes (or fails) when it can take requests.
   */
  void start(PooledChild child, boolean era2026) {
    WarmProcess ahead = child.warmProcess;
    child.warmProcess = null;
    if (ahead != null && !settings.childOf(child.principal).equals(settings.child())) {
      // the process ahead of need (the probe's) was spawned for nobody: this user's child needs its own environment
      ahead.childLog().info("pool: closing the process started ahead of need: a signed-in user's child starts with --user-env");
      closer.accept(ahead.process()::close);
      ahead = null;
    }
    try {
      if (era2026) {
        start2026(child, ahead);
      } else {
        handshake2025(child, ahead);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      fail(child, e);
    } catch (IOException | RuntimeException e) {
      log.error("pool: could not start " + command() + ": " + e.getMessage());
      fail(child, e);
    }
  }

  /** Fails the child's waiters; a process attached to it is closed when the pool retires it. */
  private static void fail(PooledChild child, Exception e) {
    child.initialized.completeExceptionally(e);
    child.ready.completeExceptionally(e);
  }

  /**
   * A 2026-era child: its discover result (the probe's, when it takes over the probed process)
   * stands for its initialize; a listen of the gateway's own is opened on it so list changes reach
   * the listen hub, and its tools are listed when it has any.
   */
  private void start2026(PooledChild child, WarmProcess ahead) throws IOException, InterruptedException {
    ChildProcess process;
    HandOver listener;
    byte[] answer;
    if (ahead != null && ahead.discovered() != null) {
      process = ahead.process();
      listener = ahead.listener();
      answer = ahead.discovered();
    } else {
      ChildProbe probe = new ChildProbe();
      process = spawn(child.childLog, probe, child.principal);
      listener = probe;
      boolean era2026;
      try {
        answer = discover(process, probe, child.serial);
        era2026 = ChildProbe.verdict(answer).isEra2026();
      } catch (InterruptedException | RuntimeException e) {
        abandon(process);
        throw e;
      }
      if (!era2026) {
        abandon(process);
        throw new IllegalStateException("the server did not answer server/discover as a 2026-era server");
      }
    }
    if (!child.attach(process, null)) { // retired while it was started (the gateway closing)
      abandonRetired(child, process);
      return;
    }
    settled(process);
    child.era2026 = true;
    if (!listener.handOver(child)) { // it exited just before
      child.onStdoutClosed();
      return;
    }
    log.info("pool: started " + command() + " (pid " + process.pid() + "), a 2026-era server");
    JsonSpan result = Json.field(answer, Splice.whole(answer), "result");
    child.initialized.complete(result == null ? "{}".getBytes(StandardCharsets.UTF_8)
        : Arrays.copyOfRange(answer, result.start(), result.end()));
    child.request("subscriptions/listen", "{\"notifications\":{\"toolsListChanged\":true,\"promptsListChanged\":true,"
        + "\"resourcesListChanged\":true},\"_meta\":" + GATEWAY_META + "}", ignored -> {});
    listToolsIfAny(child, child.initialized.join());
  }

  /** A child retired while it started: its process closed, its waiters failed. */
  private void abandonRetired(PooledChild child, ChildProcess process) {
    abandon(process);
    child.initialized.completeExceptionally(new IllegalStateException("the child was retired while it started"));
  }

  /** The 2025 handshake, on a process of its own or on the warm process it takes over. */
  private void handshake2025(PooledChild child, WarmProcess ahead) throws IOException {
    JsonRpcId handshake = JsonRpcId.relayOwned(HANDSHAKE_ID_PREFIX + child.serial);
    ChildProcess process = ahead != null ? ahead.process() : spawn(child.childLog, child, child.principal);
    if (!child.attach(process, handshake)) { // retired while it was spawned (the gateway closing)
      abandonRetired(child, process);
      return;
    }
    settled(process);
    child.ready.thenRun(ready2025);
    if (ahead != null) {
      if (!ahead.listener().handOver(child)) { // it exited just before
        child.onStdoutClosed();
        return;
      }
      log.info("pool: took over " + command() + " (pid " + process.pid() + "), started ahead of need, for 2026-era requests");
    } else {
      log.info("pool: started " + command() + " (pid " + process.pid() + ") for 2026-era requests");
    }
    byte[] init = ("{\"jsonrpc\":\"2.0\",\"id\":" + handshake.json() + ",\"method\":\"initialize\",\"params\":{"
        + "\"protocolVersion\":\"2025-11-25\",\"capabilities\":" + child.asks.capabilitiesJson()
        + ",\"clientInfo\":" + CLIENT_INFO + "}}").getBytes(StandardCharsets.UTF_8);
    if (!child.send(init)) {
      child.initialized.completeExceptionally(new IllegalStateException("the server did not read its stdin"));
    }
    child.initialized.thenAccept(result -> {
      child.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}".getBytes(StandardCharsets.UTF_8));
      listToolsIfAny(child, result);
    });
  }

  /** Ready now when {@code initialized} (its InitializeResult or discover result) names no tools; else once they are listed. */
  private static void listToolsIfAny(PooledChild child, byte[] initialized) {
    if (Json.field(initialized, Json.field(initialized, Splice.whole(initialized), "capabilities"), "tools") == null) {
      child.ready.complete(null);
    } else {
      listTools(child, null, 0);
    }
  }

  /**
   * Lists the child's tools (following {@code nextCursor}, at most {@link #MAX_TOOL_PAGES} pages)
   * so the ladder knows their {@code x-mcp-header} annotations; the child is ready when the list
   * ends, or an error, or the last page allowed, whichever comes first.
   */
  static void listTools(PooledChild child, String cursorJson, int page) {
    String meta = child.era2026 ? "\"_meta\":" + GATEWAY_META : null;
    String params = cursorJson == null ? (meta == null ? null : "{" + meta + "}")
        : "{\"cursor\":" + cursorJson + (meta == null ? "" : "," + meta) + "}";
    boolean sent = child.request("tools/list", params, answer -> {
      if (answer.result() == null) {
        child.ready.complete(null);
        return;
      }
      child.tools.learn(answer.bytes(), answer.result());
      JsonSpan next = Json.field(answer.bytes(), answer.result(), "nextCursor");
      if (next == null || page + 1 >= MAX_TOOL_PAGES || Json.string(answer.bytes(), next) == null) {
        child.ready.complete(null);
      } else {
        listTools(child, next.text(answer.bytes()), page + 1);
      }
    });
    if (!sent) {
      child.ready.complete(null);
    }
  }
}
