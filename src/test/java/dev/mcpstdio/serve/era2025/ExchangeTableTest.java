package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.serve.http.ByteBudget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The exchange table on its own: what a resuming client can find, and when. */
class ExchangeTableTest {

  private final ExchangeTable table = new ExchangeTable(new SessionLife(), new ByteBudget(64 << 20), Duration.ofSeconds(30));

  private Exchange admitStreaming(int id) throws Exception {
    JsonRpcMessage.Request request = (JsonRpcMessage.Request) JsonRpcCodec.parse(
        ("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\"}").getBytes(StandardCharsets.UTF_8));
    return ((ExchangeTable.Admission.Admitted) table.admit(request, true)).exchange();
  }

  @Test
  void anAnsweredStreamWhoseClientLeftStaysResumableThenIsForgotten() throws Exception {
    Exchange e = admitStreaming(1);
    e.detach(0); // its client left
    e.complete(new Exchange.Outcome.Answered("{}".getBytes(StandardCharsets.UTF_8)));
    table.release(e);
    assertThat(table.resumable(e.sequence)).isSameAs(e);
    table.forget(e);
    assertThat(table.resumable(e.sequence)).isNull();
  }

  /**
   * A stream released for resuming is findable at every moment: in flight until it lingers, never
   * in neither (a resuming GET in that gap was answered 410 for a stream the gateway meant to keep).
   * One thread releases answered streams while another looks each one up without pause (the old
   * order missed thousands of times in these rounds; few rounds, so the spinning costs the other
   * tests running in parallel little).
   */
  @Test
  void aStreamBeingReleasedIsNeverMissingFromBothInFlightAndLingering() throws Exception {
    int rounds = 200;
    AtomicLong current = new AtomicLong(-1);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger misses = new AtomicInteger();
    CompletableFuture<Void> looker = CompletableFuture.runAsync(() -> {
      while (!done.get()) {
        long sequence = current.get();
        if (sequence > 0 && table.resumable(sequence) == null && current.get() == sequence) {
          misses.incrementAndGet();
        }
        Thread.onSpinWait();
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    try {
      for (int i = 1; i <= rounds; i++) {
        Exchange e = admitStreaming(i);
        e.detach(0);
        e.complete(new Exchange.Outcome.Answered("{}".getBytes(StandardCharsets.UTF_8)));
        current.set(e.sequence);
        table.release(e);
        current.set(-1);
        table.forget(e);
      }
    } finally {
      done.set(true);
    }
    looker.get(30, TimeUnit.SECONDS);
    assertThat(misses.get()).isZero();
  }
}
