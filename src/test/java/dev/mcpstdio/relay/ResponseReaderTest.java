package dev.mcpstdio.relay;

import dev.mcpstdio.net.IdleWatchdog;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.MessageLayout;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Flow;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A body read in chunks hands its messages over with what the streaming scanner found on the way,
 * so the relay classifies them without reading them again; bytes it could not check come without.
 */
class ResponseReaderTest {

  private final IdleWatchdog.Sweeper sweeper = new IdleWatchdog.Sweeper("test-sweeper");
  private final List<byte[]> messages = new ArrayList<>();
  private final List<MessageLayout> layouts = new ArrayList<>();

  @AfterEach
  void stop() {
    sweeper.close();
  }

  private ResponseReader reader(ResponseReader.Format format, long declared) {
    ResponseReader reader = new ResponseReader(format, "", 1 << 20, declared, Duration.ofSeconds(30), "--timeout-read",
        sweeper, (data, layout) -> {
          messages.add(data);
          layouts.add(layout);
          return true;
        }, MessageBudget.UNBOUNDED.reader(), true);
    reader.onSubscribe(new Flow.Subscription() {
      @Override
      public void request(long n) {}

      @Override
      public void cancel() {}
    });
    return reader;
  }

  private static void feed(ResponseReader reader, byte[] body, int chunk, boolean readOnly) {
    for (int at = 0; at < body.length; at += chunk) {
      ByteBuffer piece = ByteBuffer.wrap(body, at, Math.min(chunk, body.length - at)).slice();
      reader.onNext(List.of(readOnly ? piece.asReadOnlyBuffer() : piece));
    }
  }

  private static final byte[] ANSWER = ("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"text\":\"" + "x".repeat(100_000) + "\"}}")
      .getBytes(StandardCharsets.UTF_8);

  @Test
  void aJsonBodyOfDeclaredOrUnknownLengthComesWithItsLayout() throws Exception {
    for (long declared : new long[] {ANSWER.length + 2, -1}) {
      messages.clear();
      layouts.clear();
      ResponseReader reader = reader(ResponseReader.Format.JSON, declared);
      byte[] body = (" " + new String(ANSWER, StandardCharsets.UTF_8) + "\n").getBytes(StandardCharsets.UTF_8);
      feed(reader, body, 16_384, false);
      reader.onComplete();
      assertThat(messages).singleElement().isEqualTo(ANSWER);
      assertThat(layouts.getFirst()).as("declared %d", declared).isNotNull();
      assertThat(JsonRpcCodec.parse(ANSWER, layouts.getFirst())).isEqualTo(JsonRpcCodec.parse(ANSWER));
      assertThat(reader.getBody().toCompletableFuture().get().failure()).isNull();
    }
  }

  @Test
  void bytesTheScannerCannotSeeAreHandedOverWithoutALayout() {
    ResponseReader reader = reader(ResponseReader.Format.JSON, -1);
    feed(reader, ANSWER, 16_384, true); // read-only buffers have no array to look into
    reader.onComplete();
    assertThat(messages).singleElement().isEqualTo(ANSWER);
    assertThat(layouts).containsExactly((MessageLayout) null);
  }

  @Test
  void eachEventOfAStreamComesWithItsLayout() throws Exception {
    ResponseReader reader = reader(ResponseReader.Format.EVENT_STREAM, -1);
    String answer = new String(ANSWER, StandardCharsets.UTF_8);
    byte[] stream = ("event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n"
        + "data: " + answer + "\n\ndata: {\"broken\":\n\n").getBytes(StandardCharsets.UTF_8);
    feed(reader, stream, 10_000, false);
    reader.onComplete();
    assertThat(messages).hasSize(3);
    assertThat(messages.get(1)).isEqualTo(ANSWER);
    assertThat(layouts.get(0)).isNotNull();
    assertThat(JsonRpcCodec.parse(ANSWER, layouts.get(1))).isEqualTo(JsonRpcCodec.parse(ANSWER));
    assertThat(layouts.get(2)).isNull(); // not JSON: the sink checks it itself (and drops it)
  }
}
