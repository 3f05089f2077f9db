package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A message larger than the heap can hold is answered, and nothing after it is lost. */
class RelayMemoryIT {

  @Test
  void aMessageTooLargeForTheHeapIsAnsweredAndTheRelayCarriesOn() {
    try (FakeMcpServer server = FakeMcpServer.mcp();
        JarProcess relay = JarProcess.start(List.of("-Xmx48m"), List.of("--max-message-size", "0", server.url().toString()), Map.of())) {
      relay.send(RelayHarness.INITIALIZE);
      relay.stdout.next(Duration.ofSeconds(20));
      String huge = "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\""
          + "x".repeat(96 * 1024 * 1024) + "\"}}}";
      relay.send(huge);
      huge = null;
      String answer = relay.stdout.next(Duration.ofSeconds(60));
      assertThat(Jsons.parse(answer).get("id").asInt()).isEqualTo(5);
      assertThat(Jsons.errorMessage(answer)).contains("ran out of memory");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\"}");
      assertThat(RelayHarness.hasId(relay.stdout.next(Duration.ofSeconds(20)), "6")).isTrue();
      assertThat(server.posts("tools/call")).isEmpty();
      relay.closeStdin();
      assertThat(relay.awaitExit(Duration.ofSeconds(20))).isZero();
    }
  }
}
