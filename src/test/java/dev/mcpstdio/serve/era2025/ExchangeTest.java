package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.serve.http.ByteBudget;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The exchange's queue, replay log, takeover and byte accounting, without HTTP. */
class ExchangeTest {

  private final ByteBudget budget = new ByteBudget(1 << 20);

  private Exchange exchange(boolean streaming) throws Exception {
    JsonRpcMessage.Request request = (JsonRpcMessage.Request) JsonRpcCodec.parse(
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\"}".getBytes(StandardCharsets.UTF_8));
    return new Exchange(request, null, streaming, 3, budget, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(Exchange.Step step) {
    return new String(((Exchange.Step.Send) step).message(), StandardCharsets.UTF_8);
  }

  @Test
  void relatedMessagesComeInOrderThenTheAnswerAndNothingAfterIt() throws Exception {
    Exchange e = exchange(true);
    assertThat(e.relate(bytes("a"))).isTrue();
    assertThat(e.relate(bytes("b"))).isTrue();
    assertThat(e.complete(new Exchange.Outcome.Answered(bytes("{\"answer\":1}")))).isTrue();
    assertThat(e.relate(bytes("late"))).isFalse();
    assertThat(e.complete(new Exchange.Outcome.Failed(504, "x"))).isFalse();

    assertThat(text(e.take(0, 0))).isEqualTo("a");
    assertThat(text(e.take(0, 0))).isEqualTo("b");
    Exchange.Step answer = e.take(0, 0);
    assertThat(((Exchange.Step.Send) answer).last()).isTrue();
    assertThat(text(answer)).isEqualTo("{\"answer\":1}");
    assertThat(e.eventId(((Exchange.Step.Send) answer).number())).isEqualTo("3-3");
    assertThat(e.answerLogged()).isTrue();
  }

  @Test
  void aTakeoverSupersedesTheOldWriterAndReplaysFromTheLastEventSeen() throws Exception {
    Exchange e = exchange(true);
    e.relate(bytes("one"));
    e.relate(bytes("two"));
    e.relate(bytes("three"));
    assertThat(text(e.take(0, 0))).isEqualTo("one"); // event 1 reached the client
    assertThat(text(e.take(0, 0))).isEqualTo("two"); // event 2 was taken, then the connection died

    assertThat(e.resumeFrom(5)).isNull(); // not an event of this stream: the writer stays
    assertThat(e.hasWriter()).isTrue();
    Exchange.Resumption resumption = e.resumeFrom(1);
    assertThat(resumption.missed()).extracting(Exchange.Logged::number).containsExactly(2L);
    int resumed = resumption.generation();
    assertThat(e.take(0, 0)).isInstanceOf(Exchange.Step.Superseded.class); // the old writer stops
    assertThat(text(e.take(0, resumed))).isEqualTo("three"); // nothing lost, nothing reordered
  }

  @Test
  void aWriterWaitingForEventsNoticesATakeoverAtOnce() throws Exception {
    Exchange e = exchange(true);
    CompletableFuture<Exchange.Step> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return e.take(30_000, 0);
      } catch (InterruptedException ex) {
        throw new IllegalStateException(ex);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    int resumed = e.resumeFrom(0).generation();
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(Exchange.Step.Superseded.class);
    e.relate(bytes("for the new writer"));
    assertThat(text(e.take(1000, resumed))).isEqualTo("for the new writer");
  }

  /**
   * A takeover whose old writer had gone already (its client's connection failed first) leaves
   * the wake-up meant for it unread: the new writer must not take it for a keep-alive's time, or
   * a spurious keep-alive comment goes on the resumed stream.
   */
  @Test
  void aWakeUpForAWriterThatHadGoneIsNoKeepAliveForTheNewOne() throws Exception {
    Exchange e = exchange(true);
    int resumed = e.resumeFrom(0).generation(); // no writer waiting: the wake-up stays queued
    CompletableFuture<Exchange.Step> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return e.take(30_000, resumed);
      } catch (InterruptedException ex) {
        throw new IllegalStateException(ex);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    e.relate(bytes("the next event"));
    assertThat(text(waiting.get(10, TimeUnit.SECONDS))).isEqualTo("the next event");
  }

  @Test
  void aDiscardedExchangeEndsItsWriterAndKeepsNothing() throws Exception {
    Exchange e = exchange(true);
    e.relate(bytes("x".repeat(100)));
    CompletableFuture<Exchange.Step> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        e.take(0, 0); // takes the message (logged for replay)
        return e.take(30_000, 0);
      } catch (InterruptedException ex) {
        throw new IllegalStateException(ex);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    dev.mcpstdio.testing.Await.until("the message to be taken", java.time.Duration.ofSeconds(5), () -> e.after(0) != null
        && !e.after(0).isEmpty());
    e.discard();
    assertThat(waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(Exchange.Step.End.class);
    e.complete(new Exchange.Outcome.Answered(bytes("{}")));
    assertThat(budget.used()).isZero();
  }

  @Test
  void aSettledExchangeWhoseEndWasTakenStillAnswersAResumedWriter() throws Exception {
    Exchange e = exchange(true);
    e.complete(new Exchange.Outcome.Failed(504, "late"));
    int resumed = e.resumeFrom(0).generation(); // before any writer took the end
    Exchange.Step step = e.take(0, 0); // the old writer: superseded, the end stays queued
    assertThat(step).isInstanceOf(Exchange.Step.Superseded.class);
    assertThat(text(e.take(0, resumed))).contains("late");
  }

  @Test
  void aCancelledRequestEndsWithoutAnAnswer() throws Exception {
    Exchange e = exchange(true);
    e.complete(new Exchange.Outcome.Cancelled());
    assertThat(e.take(0, 0)).isInstanceOf(Exchange.Step.End.class);
  }

  @Test
  void everyByteTakenIsGivenBack() throws Exception {
    Exchange e = exchange(true);
    e.relate(bytes("x".repeat(1000)));
    e.relate(bytes("y".repeat(1000)));
    e.take(0, 0); // moves one message from the queue to the replay log
    assertThat(budget.used()).isEqualTo(2000);
    e.discard();
    assertThat(budget.used()).isZero();
  }

  @Test
  void theReplayLogGivesUpTheOldestWhenTheBudgetIsShort() throws Exception {
    ByteBudget small = new ByteBudget(2500);
    JsonRpcMessage.Request request = (JsonRpcMessage.Request) JsonRpcCodec.parse(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}".getBytes(StandardCharsets.UTF_8));
    Exchange e = new Exchange(request, null, true, 1, small, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
    for (int i = 0; i < 4; i++) {
      assertThat(e.relate(bytes(String.valueOf(i).repeat(1000)))).isTrue();
      e.take(0, 0);
    }
    assertThat(small.used()).isLessThanOrEqualTo(2500);
    assertThat(e.after(0)).isNull(); // event 1 is gone: a resume from there would miss it
    assertThat(e.after(2)).extracting(Exchange.Logged::number).containsExactly(3L, 4L);
  }

  @Test
  void aJsonExchangeTakesNoRelatedMessagesAndCannotBeTakenOver() throws Exception {
    Exchange e = exchange(false);
    assertThat(e.relate(bytes("a"))).isFalse();
    assertThat(e.acceptsRelated()).isFalse();
    assertThat(e.resumeFrom(0)).isNull();
  }
}
