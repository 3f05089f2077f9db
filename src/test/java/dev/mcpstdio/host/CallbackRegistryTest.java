package dev.mcpstdio.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Announcing, awaiting and answering callbacks: once each, in time, whatever arrives first. */
class CallbackRegistryTest {

  private static Callback callback(String type, String id) {
    String json = "{\"type\":\"" + type + "\",\"id\":\"" + id + "\",\"sessionId\":\"s\",\"message\":\"m\"}";
    return new Callback(type, id, "s", json.getBytes(StandardCharsets.UTF_8));
  }

  private static CompletableFuture<CallbackRegistry.Answer> awaitAsync(CallbackRegistry r, String id) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return r.await(id);
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }, task -> Thread.ofVirtual().start(task)); // not the common pool: tests may occupy it
  }

  @Test
  void aReplyReachesTheWaitingChildOnceAndASecondIsRefused() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofSeconds(10), Duration.ofSeconds(2));
    assertThat(r.announce(callback("confirm", "c1"))).isTrue();
    assertThat(r.announce(callback("confirm", "c1"))).isFalse(); // repeated announcement ignored
    CompletableFuture<CallbackRegistry.Answer> waiting = awaitAsync(r, "c1");
    assertThat(r.waiting()).extracting(Callback::id).containsExactly("c1");
    assertThat(r.reply("c1", "{\"action\":\"accept\"}")).isEqualTo(CallbackRegistry.ReplyResult.ACCEPTED);
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(new CallbackRegistry.Answer.Replied("{\"action\":\"accept\"}"));
    assertThat(r.reply("c1", "{}")).isEqualTo(CallbackRegistry.ReplyResult.CLOSED);
    assertThat(r.reply("never", "{}")).isEqualTo(CallbackRegistry.ReplyResult.UNKNOWN);
    assertThat(r.waiting()).isEmpty();
  }

  @Test
  void aChildAskingBeforeTheAnnouncementArrivesIsServedWhenItDoes() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofSeconds(10), Duration.ofSeconds(5));
    CompletableFuture<CallbackRegistry.Answer> early = awaitAsync(r, "c2");
    dev.mcpstdio.testing.Await.until("the early waiter to be registered", Duration.ofSeconds(5), () -> {
      r.announce(callback("plan_ready", "c2")); // idempotent: the first one counts
      return !r.waiting().isEmpty();
    });
    r.reply("c2", "{\"action\":\"decline\"}");
    assertThat(early.get(5, TimeUnit.SECONDS)).isEqualTo(new CallbackRegistry.Answer.Replied("{\"action\":\"decline\"}"));
  }

  @Test
  void anIdNeverAnnouncedIsUnknownAfterTheGrace() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofSeconds(10), Duration.ofMillis(100));
    assertThat(r.await("ghost")).isEqualTo(new CallbackRegistry.Answer.Unknown());
  }

  @Test
  void anUnansweredCallbackTimesOutAndItsLateReplyIsRefused() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofMillis(200), Duration.ofSeconds(1));
    r.announce(callback("confirm", "c3"));
    assertThat(r.await("c3")).isEqualTo(new CallbackRegistry.Answer.TimedOut());
    assertThat(r.reply("c3", "{}")).isEqualTo(CallbackRegistry.ReplyResult.CLOSED);
    assertThat(r.await("c3")).isEqualTo(new CallbackRegistry.Answer.TimedOut());
  }

  @Test
  void overdueCallbacksAreReportedOnceAndClosingTheSessionReleasesWaiters() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofMillis(50), Duration.ofSeconds(1));
    r.announce(callback("confirm", "c4"));
    dev.mcpstdio.testing.Await.until("c4 to be overdue", Duration.ofSeconds(5),
        () -> r.expireOverdue().stream().anyMatch(c -> c.id().equals("c4")));
    assertThat(r.expireOverdue()).isEmpty();

    CallbackRegistry long_ = new CallbackRegistry(Duration.ofMinutes(5), Duration.ofSeconds(1));
    long_.announce(callback("confirm", "c5"));
    CompletableFuture<CallbackRegistry.Answer> waiting = awaitAsync(long_, "c5");
    dev.mcpstdio.testing.Await.until("the waiter", Duration.ofSeconds(5), () -> !long_.waiting().isEmpty());
    long_.close();
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isEqualTo(new CallbackRegistry.Answer.TimedOut());
  }

  @Test
  void twoChildrenWaitingForTheSameUnannouncedIdBothGetTheAnswer() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofSeconds(10), Duration.ofSeconds(5));
    CompletableFuture<CallbackRegistry.Answer> first = awaitAsync(r, "c9");
    CompletableFuture<CallbackRegistry.Answer> second = awaitAsync(r, "c9");
    // Both children are parked on the unannounced id before it is announced: the announcement
    // must wake every waiter, not only the first (or only ones that arrive after it).
    dev.mcpstdio.testing.Await.until("both waiting for the announcement", Duration.ofSeconds(5),
        () -> r.waitingForAnnouncement("c9") == 2);
    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(r.announce(callback("confirm", "c9"))).isTrue();
    dev.mcpstdio.testing.Await.until("both woken by the announcement", Duration.ofSeconds(5),
        () -> r.waitingForAnnouncement("c9") == 0);
    assertThat(first).isNotDone(); // announced, not answered: they now wait for the reply
    assertThat(second).isNotDone();
    r.reply("c9", "{\"action\":\"accept\"}");
    assertThat(first.get(5, TimeUnit.SECONDS)).isEqualTo(second.get(5, TimeUnit.SECONDS))
        .isEqualTo(new CallbackRegistry.Answer.Replied("{\"action\":\"accept\"}"));
  }

  @Test
  void theMostRecentFinishedCallbacksAreRemembered() throws Exception {
    CallbackRegistry r = new CallbackRegistry(Duration.ofMinutes(1), Duration.ofMillis(50));
    for (int i = 0; i < CallbackRegistry.MAX_PENDING * 5; i++) {
      r.announce(callback("confirm", "x" + i));
      r.reply("x" + i, "{\"n\":" + i + "}");
    }
    int last = CallbackRegistry.MAX_PENDING * 5 - 1;
    assertThat(r.await("x" + last)).isEqualTo(new CallbackRegistry.Answer.Replied("{\"n\":" + last + "}"));
    assertThat(r.reply("x" + last, "{}")).isEqualTo(CallbackRegistry.ReplyResult.CLOSED);
    assertThat(r.await("x0")).isEqualTo(new CallbackRegistry.Answer.Unknown()); // the oldest were let go
  }

  @Test
  void notificationsAreNeverAwaited() {
    CallbackRegistry r = new CallbackRegistry(Duration.ofSeconds(1), Duration.ofSeconds(1));
    assertThat(r.announce(callback("notify", "n1"))).isFalse();
    assertThat(r.waiting()).isEmpty();
  }

  @Test
  void theNumberWaitingIsBounded() {
    CallbackRegistry r = new CallbackRegistry(Duration.ofMinutes(1), Duration.ofSeconds(1));
    for (int i = 0; i < CallbackRegistry.MAX_PENDING; i++) {
      assertThat(r.announce(callback("confirm", "c" + i))).isTrue();
    }
    assertThat(r.announce(callback("confirm", "one-too-many"))).isFalse();
  }
}
