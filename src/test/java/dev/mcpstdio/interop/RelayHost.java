package dev.mcpstdio.interop;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.spec.McpSchema;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A real stdio MCP host: the official Java SDK's {@link McpSyncClient} over its {@link
 * StdioClientTransport}, spawning {@code java <launcher flags> -jar mcp-stdio.jar [args] URL} exactly
 * the way an MCP host spawns a stdio server.
 *
 * <p>The host's handlers (sampling, elicitation) and consumers (progress, logging) are recorded so
 * tests can see what crossed the relay in the server-to-host direction.
 */
final class RelayHost implements AutoCloseable {

  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  final McpSyncClient client;
  final StdioClientTransport transport;
  final List<String> stderr = new CopyOnWriteArrayList<>();
  final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
  final List<McpSchema.LoggingMessageNotification> logs = new CopyOnWriteArrayList<>();
  final List<McpSchema.CreateMessageRequest> samplingRequests = new CopyOnWriteArrayList<>();
  final List<McpSchema.ElicitFormRequest> elicitationRequests = new CopyOnWriteArrayList<>();
  private boolean closed;

  /** What the host answers to the server's requests. */
  record Answers(
      Function<McpSchema.CreateMessageRequest, McpSchema.CreateMessageResult> sampling,
      Function<McpSchema.ElicitFormRequest, McpSchema.ElicitResult> elicitation) {

    /** Sampling answers "sampled: PROMPT"; elicitation accepts with {@code ok: true}. */
    static Answers defaults() {
      return new Answers(
          request -> {
            String prompt = ((McpSchema.TextContent) request.messages().getFirst().content()).text();
            return McpSchema.CreateMessageResult.builder()
                .role(McpSchema.Role.ASSISTANT)
                .content(new McpSchema.TextContent("sampled: " + prompt))
                .model("host-model")
                .stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN)
                .build();
          },
          request -> new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("ok", true)));
    }
  }

  private RelayHost(List<String> relayArgs, Map<String, String> env, Answers answers) {
    List<String> args = new ArrayList<>(JarProcess.JVM_FLAGS);
    args.add("-jar");
    args.add(JarProcess.jar().toString());
    args.addAll(relayArgs);
    ServerParameters params = ServerParameters.builder(JarProcess.java()).args(args).env(env).build();
    transport = new StdioClientTransport(params, McpJsonDefaults.getMapper());
    transport.setStdErrorHandler(stderr::add);
    McpClient.SyncSpec spec =
        McpClient.sync(transport)
            .requestTimeout(REQUEST_TIMEOUT)
            .initializationTimeout(REQUEST_TIMEOUT)
            .clientInfo(new McpSchema.Implementation("relay-interop-host", "1.0.0"))
            .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().build())
            .progressConsumer(progress::add)
            .loggingConsumer(logs::add)
            .sampling(request -> {
              samplingRequests.add(request);
              return answers.sampling().apply(request);
            })
            .elicitation(request -> {
              elicitationRequests.add(request);
              return answers.elicitation().apply(request);
            });
    client = spec.build();
  }

  /** Spawns the relay for {@code url} (plus extra relay flags before it); not yet initialized. */
  static RelayHost spawn(String url, String... relayFlags) {
    List<String> args = new ArrayList<>(List.of(relayFlags));
    args.add(url);
    return new RelayHost(args, Map.of(), Answers.defaults());
  }

  static RelayHost spawn(List<String> relayArgs, Map<String, String> env, Answers answers) {
    return new RelayHost(relayArgs, env, answers);
  }

  /** The relay's OS process (the SDK keeps it private; tests need its exit code). */
  Process process() {
    return RelayStdio.process(transport);
  }

  /** Waits for a progress/logging/... condition the host observes. */
  void await(String what, java.util.function.BooleanSupplier condition) {
    Await.until(what + "; relay stderr:\n" + String.join("\n", stderr), Duration.ofSeconds(20), condition);
  }

  /**
   * The host ends the session the way the SDK does it (close stdin, SIGTERM, wait) and returns the
   * relay's exit code; fails if the relay or any process it started is still alive.
   */
  int closeAndAwaitExit() {
    Process p = process();
    List<ProcessHandle> descendants = p.descendants().toList();
    closed = true;
    client.closeGracefully();
    int exit = RelayStdio.awaitExit(p, () -> String.join("\n", stderr));
    for (ProcessHandle d : descendants) {
      Await.until("descendant " + d.pid() + " of the relay to end", Duration.ofSeconds(5), () -> !d.isAlive());
    }
    return exit;
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        client.close();
      } catch (RuntimeException ignored) {
        // best effort
      }
    }
    Process p;
    try {
      p = process();
    } catch (AssertionError e) {
      return;
    }
    RelayStdio.end(p);
  }
}
