package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.host.Callback;
import dev.mcpstdio.serve.http.ByteBudget;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The events API's queues: per session, bounded, and counted in the gateway's allowance. */
class CallbackEventsTest {

  private static Callback callback(String id, int padding) {
    String json = "{\"type\":\"confirm\",\"id\":\"" + id + "\",\"sessionId\":\"s\",\"message\":\"" + "m".repeat(padding) + "\"}";
    return new Callback("confirm", id, "s", json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void queuedEventsCountAgainstTheAllowanceAndComeBackWhenReadOrDropped() throws Exception {
    ByteBudget budget = new ByteBudget(1000);
    CallbackEvents events = new CallbackEvents(budget);
    CallbackEvents.Watcher mine = events.watch("a");
    CallbackEvents.Watcher other = events.watch("b");

    events.publish("a", callback("c1", 300));
    long one = CallbackEvents.event(callback("c1", 300)).length;
    assertThat(budget.used()).isEqualTo(one);
    events.publish("a", callback("c2", 300));
    events.publish("a", callback("c3", 300)); // past the allowance: dropped for this watcher
    assertThat(budget.used()).isEqualTo(2 * one);
    assertThat(other.next(0)).isNull(); // another session's watcher sees nothing

    assertThat(new String(mine.next(0), StandardCharsets.UTF_8)).contains("\"id\":\"c1\"");
    assertThat(budget.used()).isEqualTo(one);
    events.unwatch("a", mine); // the stream ended with an event unread
    assertThat(budget.used()).isZero();
    events.publish("a", callback("c4", 10)); // nobody watches any more
    assertThat(budget.used()).isZero();

    events.sessionEnded("b");
    assertThat(other.next(0)).isSameAs(CallbackEvents.END);
    assertThat(budget.used()).isZero();
  }

  @Test
  void aSessionHasAtMostEightWatchers() {
    CallbackEvents events = new CallbackEvents(new ByteBudget(1 << 20));
    for (int i = 0; i < CallbackEvents.MAX_WATCHERS; i++) {
      assertThat(events.watch("a")).isNotNull();
    }
    assertThat(events.watch("a")).isNull();
    assertThat(events.watch("b")).isNotNull();
  }
}
