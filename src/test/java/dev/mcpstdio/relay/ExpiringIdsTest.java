package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class ExpiringIdsTest {

  final AtomicLong clock = new AtomicLong(1_000_000_000L);

  static JsonRpcId id(int n) {
    return JsonRpcId.ofNumber(Integer.toString(n));
  }

  ExpiringIds ids(int capacity) {
    return new ExpiringIds(Duration.ofSeconds(10), capacity, clock::get);
  }

  void advance(Duration d) {
    clock.addAndGet(d.toNanos());
  }

  @Test
  void liveUntilTheTtlPasses() {
    ExpiringIds ids = ids(10);
    ids.add(id(1));
    assertThat(ids.contains(id(1))).isTrue();
    advance(Duration.ofSeconds(10).minusNanos(1));
    assertThat(ids.contains(id(1))).isTrue();
    advance(Duration.ofNanos(1));
    assertThat(ids.contains(id(1))).isFalse();
    assertThat(ids.consume(id(1))).isFalse();
  }

  @Test
  void sizeSweepsExpiredEntries() {
    ExpiringIds ids = ids(10);
    ids.add(id(1));
    advance(Duration.ofSeconds(5));
    ids.add(id(2));
    assertThat(ids.size()).isEqualTo(2);
    advance(Duration.ofSeconds(5));
    assertThat(ids.size()).isEqualTo(1);
    assertThat(ids.contains(id(2))).isTrue();
    advance(Duration.ofSeconds(5));
    assertThat(ids.size()).isZero();
  }

  @Test
  void equalIdsInOtherSpellingsMatch() {
    ExpiringIds ids = ids(10);
    ids.add(JsonRpcId.ofNumber("1.0"));
    assertThat(ids.contains(JsonRpcId.ofNumber("1"))).isTrue();
    assertThat(ids.contains(JsonRpcId.ofString("\"1\"", "1"))).isFalse();
  }

  @Test
  void capacityEvictsOldestFirst() {
    ExpiringIds ids = ids(3);
    for (int i = 1; i <= 5; i++) {
      ids.add(id(i));
      advance(Duration.ofMillis(1));
    }
    assertThat(ids.size()).isEqualTo(3);
    assertThat(ids.contains(id(1))).isFalse();
    assertThat(ids.contains(id(2))).isFalse();
    assertThat(ids.contains(id(3))).isTrue();
    assertThat(ids.contains(id(5))).isTrue();
  }

  @Test
  void consumeOnce() {
    ExpiringIds ids = ids(10);
    ids.add(id(7));
    assertThat(ids.consume(id(7))).isTrue();
    assertThat(ids.consume(id(7))).isFalse();
    assertThat(ids.contains(id(7))).isFalse();
    assertThat(ids.consume(id(8))).isFalse();
  }

  @Test
  void reAddRefreshesTtlAndEvictionOrder() {
    ExpiringIds ids = ids(2);
    ids.add(id(1));
    advance(Duration.ofSeconds(6));
    ids.add(id(2));
    ids.add(id(1)); // refreshed: now the newest
    advance(Duration.ofSeconds(6));
    assertThat(ids.contains(id(1))).isTrue(); // would have expired at 10 s without the refresh
    ids.add(id(3)); // evicts the oldest, which is now 2 (expired anyway) not 1
    assertThat(ids.contains(id(1))).isTrue();
    assertThat(ids.contains(id(2))).isFalse();
    assertThat(ids.contains(id(3))).isTrue();

    ExpiringIds order = ids(2);
    order.add(id(1));
    order.add(id(2));
    order.add(id(1));
    order.add(id(3)); // 2 is the oldest after 1 was refreshed
    assertThat(order.contains(id(1))).isTrue();
    assertThat(order.contains(id(2))).isFalse();
    assertThat(order.size()).isEqualTo(2);
  }

  @Test
  void removeForgets() {
    ExpiringIds ids = ids(10);
    ids.add(id(1));
    ids.remove(id(1));
    ids.remove(id(2));
    assertThat(ids.contains(id(1))).isFalse();
    assertThat(ids.size()).isZero();
  }

  @Test
  void clockNearOverflowStillWorks() {
    clock.set(Long.MAX_VALUE - Duration.ofSeconds(5).toNanos());
    ExpiringIds ids = ids(10);
    ids.add(id(1));
    advance(Duration.ofSeconds(9)); // wraps past Long.MAX_VALUE
    assertThat(ids.contains(id(1))).isTrue();
    advance(Duration.ofSeconds(2));
    assertThat(ids.contains(id(1))).isFalse();
  }

  @Test
  void boundHoldsUnderManyAdds() {
    ExpiringIds ids = ids(100);
    for (int i = 0; i < 10_000; i++) {
      ids.add(id(i));
    }
    assertThat(ids.size()).isEqualTo(100);
    assertThat(ids.contains(id(9_999))).isTrue();
    assertThat(ids.contains(id(9_899))).isFalse();
  }
}
