package dev.mcpstdio.cli;

import dev.mcpstdio.demo.DemoServer;
import dev.mcpstdio.net.EnvProxySelector;
import dev.mcpstdio.net.OutboundHttp;
import dev.mcpstdio.relay.Authorization;
import dev.mcpstdio.relay.ConnectivityCheck;
import dev.mcpstdio.relay.Relay;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.relay.Sleeper;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.ServeGateway;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.stdio.StdoutWire;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** The {@code mcp-stdio} entry point: picks the mode and maps outcomes to exit codes. */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  static int run(String[] args, Map<String, String> env) {
    // First of all: own fd 1, so nothing in this process can write stray bytes onto the wire.
    StdoutWire wire = StdoutWire.claimProcessStdout();
    CliOptions.withoutUnusedConverters();
    Redactor redactor = new Redactor();
    Log early = Log.stderr(Log.Level.INFO, redactor);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    // A thread that dies of an unexpected exception says so through the logger (scrubbed, on
    // stderr) rather than the JVM's default handler.
    Thread.setDefaultUncaughtExceptionHandler(
        (thread, e) -> early.error("unexpected " + e + " in thread " + thread.getName()));
    try {
      if (args.length == 1 && args[0].equals("train")) {
        return TrainCommand.run();
      }
      if (args.length == 2 && args[0].equals("train") && args[1].equals("serve")) {
        return ServeTraining.run(early);
      }
      FlightRecording.startIfAsked(early);
      if (args.length >= 1 && args[0].equals("serve")) {
        SlowInitializers.startInBackground();
        ServeCommand.Parsed parsed = ServeCommand.parse(Arrays.copyOfRange(args, 1, args.length), env, early, err);
        return parsed.exitNow() != null ? parsed.exitNow() : serve(parsed.config(), Log.stderr(parsed.config().logLevel(), redactor, parsed.logFormat()));
      }
      if (args.length >= 1 && args[0].equals("auth")) {
        return AuthCommand.run(Arrays.copyOfRange(args, 1, args.length), env, wire, early.tagged("auth"), err);
      }
      if (args.length >= 1 && args[0].equals("probe")) {
        return ProbeCommand.run(Arrays.copyOfRange(args, 1, args.length), early);
      }
      if (args.length == 1 && args[0].equals("demo")) {
        return new DemoServer(wire, early.tagged("demo")).run(new FileInputStream(FileDescriptor.in));
      }
      RelayCommand.Parsed parsed = RelayCommand.parse(args, env, early, err);
      if (parsed.exitNow() != null) {
        return parsed.exitNow();
      }
      return relay(parsed.config(), wire, Log.stderr(parsed.config().logLevel(), redactor, parsed.logFormat()), env,
          new FileInputStream(FileDescriptor.in));
    } catch (UsageException e) {
      early.error(e.getMessage());
      return e.exitCode();
    } catch (InterruptedException e) {
      return ExitCodes.INTERRUPTED;
    } catch (IOException | RuntimeException e) {
      early.error("internal error: " + e);
      return ExitCodes.FAILURE;
    }
  }

  private static int serve(ServeConfig config, Log log) throws InterruptedException {
    ServeGateway gateway = new ServeGateway(config, log);
    CountDownLatch stop = new CountDownLatch(1);
    Signals.onTermination(signal -> {
      log.info("received signal " + signal + ", shutting down");
      stop.countDown();
    });
    try {
      gateway.start();
    } catch (Exception e) {
      log.error(e instanceof ServeGateway.StartRefused refused ? refused.getMessage()
          : "cannot listen on " + config.host() + ":" + config.port() + ": " + rootMessage(e));
      closeQuietly(gateway, log);
      return ExitCodes.FAILURE;
    }
    log.info(gateway.describe());
    stop.await();
    closeQuietly(gateway, log);
    return ExitCodes.OK;
  }

  /** The relay's counts at exit: one line on stderr, and with {@code --metrics-file} a JSON object in that file (0600, replaced atomically). */
  static void reportCounts(dev.mcpstdio.relay.RelayCounts.Snapshot counts, RelayConfig config, int code, long uptimeMillis, Log log) {
    log.info("relayed " + counts.summary());
    if (config.metricsFile() != null) {
      String origin = dev.mcpstdio.relay.Relay.origin(config.url());
      try {
        dev.mcpstdio.oauth.PrivateFiles.write(config.metricsFile(),
            counts.json(uptimeMillis, origin, code).getBytes(java.nio.charset.StandardCharsets.UTF_8));
      } catch (IOException | RuntimeException e) {
        log.warn("cannot write --metrics-file " + config.metricsFile() + ": " + e.getMessage());
      }
    }
  }

  private static void closeQuietly(ServeGateway gateway, Log log) {
    try {
      gateway.close();
    } catch (Exception e) {
      log.warn("shutdown: " + rootMessage(e));
    }
  }

  private static String rootMessage(Throwable e) {
    Throwable t = e;
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.getMessage() == null ? t.toString() : t.getMessage();
  }

  /** Runs the relay on {@code stdin} (the process's own, or {@code mcp-stdio train}'s script). */
  static int relay(RelayConfig config, StdoutWire wire, Log log, Map<String, String> env, InputStream stdin)
      throws InterruptedException {
    HttpClient client;
    try {
      client = OutboundHttp.create(
          new OutboundHttp.Settings(config.connectTimeout(), config.caFiles(), env, config.tcpKeepAlive()));
    } catch (IOException | IllegalArgumentException e) {
      log.error(e.getMessage());
      return ExitCodes.FAILURE;
    }
    EnvProxySelector proxies = EnvProxySelector.fromEnvironment(env);
    if (proxies != null) {
      log.debug("proxies from the environment: " + proxies.describe());
    }
    Authorization auth;
    try {
      auth = config.oauth() == null ? null : OAuthWiring.create(config, env, log);
    } catch (IOException e) {
      log.error(e.getMessage());
      return ExitCodes.FAILURE;
    }
    if (config.check()) {
      return ConnectivityCheck.run(config, client, log, auth);
    }
    Relay relay =
        new Relay(config, client, stdin, wire, log, Sleeper.REAL, auth);
    relay.haltIfShutdownStalls();
    Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
      log.error("unexpected " + e + " in thread " + thread.getName());
      relay.threadDied(thread, e);
    });
    Signals.onTermination(relay::shutdownBegins, signal -> relay.shutdown("received signal " + signal));
    long started = System.nanoTime();
    int code = relay.run();
    wire.close(); // may wait for a write to a host that stopped reading: still watched
    reportCounts(relay.counts(), config, code, (System.nanoTime() - started) / 1_000_000, log);
    relay.exited();
    return code;
  }
}
