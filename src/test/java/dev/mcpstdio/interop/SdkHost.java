package dev.mcpstdio.interop;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import io.modelcontextprotocol.client.McpClient;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.client.transport.ServerParameters;
import io.modelcontextprotocol.client.transport.StdioClientTransport;
import io.modelcontextprotocol.json.McpJsonDefaults;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpSchema.JSONRPCMessage;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import reactor.core.publisher.Mono;

/**
 * The official Java SDK as a 2025-era stdio host spawning the relay jar, with every message that
 * crosses its stdio recorded in order ({@link #wire}), so a test can see exactly what reached the
 * host (and what it answered), not only what the SDK hands to its consumers. Elicitation accepts
 * {@code {name: "Grace"}}, sampling answers "java sampled: PROMPT", roots lists {@link #ROOT}.
 */
final class SdkHost implements AutoCloseable {

  /** The one root the host lists. */
  static final String ROOT = "file:///tmp/era2026-relay-root";

  /** How long a hold waits for a round's questions. */
  static final Duration WAIT = Duration.ofSeconds(20);

  /** One message on the host's stdio: {@code inbound} came from the relay. */
  record Wire(boolean inbound, JSONRPCMessage message) {}

  final StdioClientTransport stdio;
  final McpSyncClient client;
  final List<Wire> wire = new CopyOnWriteArrayList<>();
  final List<String> stderr = new CopyOnWriteArrayList<>();
  final List<McpSchema.ProgressNotification> progress = new CopyOnWriteArrayList<>();
  final List<McpSchema.ElicitFormRequest> elicitations = new CopyOnWriteArrayList<>();
  final List<McpSchema.CreateMessageRequest> samplings = new CopyOnWriteArrayList<>();
  final List<String> updatedUris = new CopyOnWriteArrayList<>();
  /** Where the wire stood when the held round began, or -1: no hold. */
  private volatile int holdFrom = -1;
  /** The questions of the held round seen by the time its first held answer was let go. */
  private volatile List<String> roundAsked = List.of();
  private boolean closed;

  private SdkHost(List<String> relayArgs, Path state) {
    List<String> args = new ArrayList<>(JarProcess.JVM_FLAGS);
    args.addAll(List.of("-jar", JarProcess.jar().toString()));
    args.addAll(relayArgs);
    ServerParameters params = ServerParameters.builder(JarProcess.java()).args(args)
        .env(Map.of("XDG_STATE_HOME", state.toString())).build();
    stdio = new StdioClientTransport(params, McpJsonDefaults.getMapper());
    stdio.setStdErrorHandler(stderr::add);
    client = McpClient.sync(new Recording())
        .requestTimeout(Duration.ofSeconds(30))
        .initializationTimeout(Duration.ofSeconds(30))
        .clientInfo(new McpSchema.Implementation("era2026-relay-it", "1.0.0"))
        .capabilities(McpSchema.ClientCapabilities.builder().sampling().elicitation().roots(true).build())
        .roots(new McpSchema.Root(ROOT, "root"))
        .progressConsumer(progress::add)
        .resourcesUpdateConsumer(contents -> { })
        .sampling(request -> {
          samplings.add(request);
          hold();
          String prompt = ((McpSchema.TextContent) request.messages().getFirst().content()).text();
          return McpSchema.CreateMessageResult.builder().role(McpSchema.Role.ASSISTANT)
              .content(new McpSchema.TextContent("java sampled: " + prompt)).model("java-host-model")
              .stopReason(McpSchema.CreateMessageResult.StopReason.END_TURN).build();
        })
        .elicitation(request -> {
          elicitations.add(request);
          hold();
          return new McpSchema.ElicitResult(McpSchema.ElicitResult.Action.ACCEPT, Map.of("name", "Grace"));
        })
        .build();
  }

  /** Spawns {@code java -jar mcp-stdio.jar --log-level debug [flags] url} with its own state folder. */
  static SdkHost spawn(String url, Path state, String... flags) {
    List<String> args = new ArrayList<>(List.of("--log-level", "debug"));
    args.addAll(List.of(flags));
    args.add(url);
    return new SdkHost(args, state);
  }

  /** Sends one message on the host's stdout, beside the SDK's own. */
  void send(JSONRPCMessage message) {
    new Recording().sendMessage(message).block(Duration.ofSeconds(10));
  }

  /**
   * Arms (or, with {@code on} false, disarms) a hold for the next round: its elicitation and
   * sampling answers wait (at most {@link #WAIT}) until the round's three questions reached the host.
   */
  void holdUntilRoundAsked(boolean on) {
    roundAsked = List.of();
    holdFrom = on ? wire.size() : -1;
  }

  /** The methods of the held round's questions seen before its first answer was let go. */
  List<String> roundAsked() {
    holdFrom = -1;
    return roundAsked;
  }

  private void hold() {
    int from = holdFrom;
    if (from < 0) {
      return;
    }
    try {
      Await.until("the round's three questions", WAIT, () -> asked(from).size() >= 3);
    } catch (AssertionError e) {
      // answered anyway; roundAsked() shows what had come
    }
    synchronized (this) {
      if (roundAsked.isEmpty()) {
        roundAsked = asked(from);
      }
    }
  }

  private List<String> asked(int from) {
    return wireSince(from).stream().filter(w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCRequest)
        .map(w -> ((McpSchema.JSONRPCRequest) w.message()).method()).toList();
  }

  /** How many notifications {@code method} reached the host. */
  long count(String method) {
    return wire.stream().filter(w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCNotification n
        && method.equals(n.method())).count();
  }

  List<Wire> wireSince(int from) {
    List<Wire> all = List.copyOf(wire);
    return all.subList(from, all.size());
  }

  String stderrText() {
    return String.join("\n", stderr);
  }

  String why(Era2026Peers.Server server) {
    return why("server stderr", server.log());
  }

  /** The relay's stderr and, under {@code label}, another log, for failure messages. */
  String why(String label, String otherLog) {
    return "\nrelay stderr:\n" + stderrText() + "\n" + label + ":\n" + otherLog;
  }

  private Process process() {
    return RelayStdio.process(stdio);
  }

  /** Closes the host the SDK's way (stdin closed, then a bounded wait) and returns the relay's exit code. */
  int closeAndAwaitExit() {
    Process p = process();
    closed = true;
    client.closeGracefully();
    return RelayStdio.awaitExit(p, this::stderrText);
  }

  @Override
  public void close() {
    if (!closed) {
      closed = true;
      try {
        client.close();
      } catch (RuntimeException ignored) {
        // best effort: the process is ended below
      }
    }
    RelayStdio.end(process());
  }

  /** The stdio transport, with each message in either direction noted in {@link #wire} first. */
  private final class Recording implements McpClientTransport {

    @Override
    public Mono<Void> connect(Function<Mono<JSONRPCMessage>, Mono<JSONRPCMessage>> handler) {
      return stdio.connect(in -> handler.apply(in.doOnNext(m -> {
        wire.add(new Wire(true, m));
        if (m instanceof McpSchema.JSONRPCNotification n && "notifications/resources/updated".equals(n.method())
            && n.params() instanceof Map<?, ?> params) {
          updatedUris.add(String.valueOf(params.get("uri")));
        }
      })));
    }

    @Override
    public Mono<Void> sendMessage(JSONRPCMessage message) {
      return Mono.defer(() -> {
        wire.add(new Wire(false, message));
        return stdio.sendMessage(message);
      });
    }

    @Override
    public void setExceptionHandler(Consumer<Throwable> handler) {
      stdio.setExceptionHandler(handler);
    }

    @Override
    public Mono<Void> closeGracefully() {
      return stdio.closeGracefully();
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> typeRef) {
      return stdio.unmarshalFrom(data, typeRef);
    }

    @Override
    public List<String> protocolVersions() {
      return stdio.protocolVersions();
    }
  }
}
