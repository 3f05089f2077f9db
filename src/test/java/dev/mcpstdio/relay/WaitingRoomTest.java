package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class WaitingRoomTest {

  private static JsonRpcMessage request(int id) throws Exception {
    return JsonRpcCodec.parse(("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}").getBytes(StandardCharsets.UTF_8));
  }

  /**
   * An usher that lets nothing in until {@code open} is counted down (looking again, as the
   * relay's does, whether its message was withdrawn or refused meanwhile), and records what it let in.
   */
  private static WaitingRoom room(int messages, long bytes, CountDownLatch open, List<JsonRpcMessage> letIn) {
    return new WaitingRoom(messages, bytes, Duration.ofSeconds(5), entry -> {
      while (entry.pending() && !open.await(20, java.util.concurrent.TimeUnit.MILLISECONDS)) {
        // waiting for room
      }
      if (entry.start()) {
        letIn.add(entry.message());
        entry.dispatched();
      }
    });
  }

  @Test
  void lettingInKeepsTheOrderAndAWithdrawnRequestIsSkipped() throws Exception {
    CountDownLatch open = new CountDownLatch(1);
    List<JsonRpcMessage> letIn = new CopyOnWriteArrayList<>();
    WaitingRoom room = room(8, 1 << 20, open, letIn);
    for (int id = 1; id <= 3; id++) {
      assertThat(room.enter(request(id), 40)).isTrue();
    }
    assertThat(room.withdraw(JsonRpcId.ofNumber("2"))).isEqualTo(WaitingRoom.Withdrawal.WITHDRAWN);
    assertThat(room.withdraw(JsonRpcId.ofNumber("7"))).isEqualTo(WaitingRoom.Withdrawal.NOT_HERE);
    open.countDown();
    room.awaitEmpty();
    assertThat(letIn).extracting(m -> ((JsonRpcMessage.Request) m).id()).containsExactly(JsonRpcId.ofNumber("1"), JsonRpcId.ofNumber("3"));
    assertThat(room.isEmpty()).isTrue();
  }

  @Test
  void aFullRoomMakesTheReaderWaitForSpace() throws Exception {
    CountDownLatch open = new CountDownLatch(1);
    List<JsonRpcMessage> letIn = new CopyOnWriteArrayList<>();
    WaitingRoom room = room(2, 1 << 20, open, letIn);
    room.enter(request(1), 40);
    room.enter(request(2), 40);
    AtomicBoolean third = new AtomicBoolean();
    Thread reader = Thread.ofVirtual().start(() -> {
      try {
        third.set(room.enter(request(3), 40));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    Await.until("the reader waits", () -> reader.getState() == Thread.State.WAITING);
    assertThat(third).isFalse();
    open.countDown();
    reader.join(Duration.ofSeconds(10));
    assertThat(third).isTrue();
    room.awaitEmpty();
    assertThat(letIn).hasSize(3);
  }

  @Test
  void theByteBoundHoldsAndLargerMessagesDoNotFit() throws Exception {
    WaitingRoom room = room(8, 100, new CountDownLatch(1), new CopyOnWriteArrayList<>());
    assertThat(room.fits(100)).isTrue();
    assertThat(room.fits(101)).isFalse();
  }

  @Test
  void closingReturnsWhatStillWaitedAndEndsTheUshersWait() throws Exception {
    CountDownLatch never = new CountDownLatch(1);
    List<JsonRpcMessage> letIn = new CopyOnWriteArrayList<>();
    WaitingRoom room = room(8, 1 << 20, never, letIn);
    room.enter(request(1), 40);
    room.enter(request(2), 40);
    room.enter(request(3), 40);
    room.withdraw(JsonRpcId.ofNumber("3"));
    List<JsonRpcMessage> left = room.close();
    assertThat(left).extracting(m -> ((JsonRpcMessage.Request) m).id()).containsExactly(JsonRpcId.ofNumber("1"), JsonRpcId.ofNumber("2"));
    room.awaitEmpty(); // the usher was waiting for room for 1: it sees 1 refused, and lets nothing in
    assertThat(letIn).isEmpty();
    assertThat(room.enter(request(4), 40)).isFalse();
  }

  @Test
  void aWithdrawnRequestFreesItsSpaceAtOnce() throws Exception {
    CountDownLatch open = new CountDownLatch(1);
    List<JsonRpcMessage> letIn = new CopyOnWriteArrayList<>();
    WaitingRoom room = room(2, 1 << 20, open, letIn);
    room.enter(request(1), 40); // the head, waiting for room
    room.enter(request(2), 40);
    assertThat(room.withdraw(JsonRpcId.ofNumber("2"))).isEqualTo(WaitingRoom.Withdrawal.WITHDRAWN);
    AtomicBoolean entered = new AtomicBoolean();
    Thread reader = Thread.ofVirtual().start(() -> {
      try {
        entered.set(room.enter(request(3), 40)); // the room holds two: it fits only if 2 left
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    reader.join(Duration.ofSeconds(10));
    assertThat(entered).isTrue();
    assertThat(room.withdraw(JsonRpcId.ofNumber("1"))).isEqualTo(WaitingRoom.Withdrawal.WITHDRAWN);
    open.countDown();
    room.awaitEmpty();
    assertThat(letIn).extracting(m -> ((JsonRpcMessage.Request) m).id()).containsExactly(JsonRpcId.ofNumber("3"));
  }
}
