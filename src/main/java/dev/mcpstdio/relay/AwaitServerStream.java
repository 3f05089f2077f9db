package dev.mcpstdio.relay;

import java.time.Duration;
import java.util.Set;

/**
 * Holds a request that may make the server ask the host something (a tool call that samples or
 * elicits) until the GET stream that carries such questions is open, for at most {@link #BOUND}.
 * Without it, a host that calls a tool right after initializing can race the stream, and a server
 * that has nowhere to send its question drops it. Discovery requests never wait.
 */
final class AwaitServerStream implements Interceptor {

  static final Duration BOUND = Duration.ofSeconds(1);

  /** Methods that never prompt a server request, so they need no stream. */
  static final Set<String> NEVER_ASK =
      Set.of(
          "initialize",
          "ping",
          "tools/list",
          "resources/list",
          "resources/templates/list",
          "prompts/list",
          "logging/setLevel",
          "resources/subscribe",
          "resources/unsubscribe",
          "completion/complete");

  private final ServerStream stream;

  AwaitServerStream(ServerStream stream) {
    this.stream = stream;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    if (call.isRequest() && !NEVER_ASK.contains(call.method())) {
      stream.awaitEstablished(BOUND);
    }
    return chain.proceed(call);
  }
}
