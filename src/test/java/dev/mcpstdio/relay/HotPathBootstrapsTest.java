package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The classes every relayed call passes through use no pattern {@code switch}: each one compiles
 * to an {@code invokedynamic} whose bootstrap ({@code SwitchBootstraps}) generates a class the
 * first time it runs, several milliseconds in a fresh JVM, which the AOT cache does not keep
 * (issue 15, docs/performance.md). {@code instanceof} chains cost nothing of the kind. Error
 * paths (describing a failure, the replay check before a retry) may keep theirs.
 */
class HotPathBootstrapsTest {

  private static final List<String> HOT_PATH = List.of(
      "dev/mcpstdio/relay/Relay", "dev/mcpstdio/relay/Call", "dev/mcpstdio/relay/Upstream",
      "dev/mcpstdio/relay/RetryLink", "dev/mcpstdio/relay/Era2026Requests", "dev/mcpstdio/relay/EraDecision",
      "dev/mcpstdio/relay/AnswerLedger", "dev/mcpstdio/relay/ResponseReader", "dev/mcpstdio/relay/ResponseDelivery",
      "dev/mcpstdio/relay/HandoverPublisher", "dev/mcpstdio/relay/UpstreamRequests", "dev/mcpstdio/relay/Interceptor",
      "dev/mcpstdio/relay/DispatchOrder", "dev/mcpstdio/relay/WaitingRoom", "dev/mcpstdio/relay/Era2026Host",
      "dev/mcpstdio/relay/Era2026Chain", "dev/mcpstdio/relay/Era2026Session", "dev/mcpstdio/relay/MrtrBridge",
      "dev/mcpstdio/net/Http1Client", "dev/mcpstdio/net/Http1Exchange", "dev/mcpstdio/net/Http1Connection",
      "dev/mcpstdio/net/Http1Head", "dev/mcpstdio/net/Http1Body", "dev/mcpstdio/net/Http1Pool",
      "dev/mcpstdio/net/Http1RequestBody", "dev/mcpstdio/net/Http1BodyFeed",
      "dev/mcpstdio/jsonrpc/JsonRpcCodec", "dev/mcpstdio/jsonrpc/StreamingScanner",
      "dev/mcpstdio/wire/LineReader", "dev/mcpstdio/wire/SseDecoder", "dev/mcpstdio/stdio/StdoutWire",
      "dev/mcpstdio/stdio/EmitGate");

  @Test
  void noClassOnTheCallPathBootstrapsATypeSwitch() throws IOException {
    for (String name : HOT_PATH) {
      try (InputStream in = HotPathBootstrapsTest.class.getClassLoader().getResourceAsStream(name + ".class")) {
        assertThat(in).as("%s.class on the class path", name).isNotNull();
        String constants = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        assertThat(constants).as("%s refers to SwitchBootstraps", name).doesNotContain("java/lang/runtime/SwitchBootstraps");
      }
    }
  }
}
