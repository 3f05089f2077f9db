package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.relay.AnswerLedger.Opening;
import dev.mcpstdio.testing.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class AnswerLedgerTest {

  final AtomicLong clock = new AtomicLong();
  static final Duration NO_WAIT = Duration.ZERO;

  AnswerLedger ledger(boolean cancelFilter) {
    return new AnswerLedger(cancelFilter, clock::get);
  }

  static JsonRpcId id(String json) {
    return json.startsWith("\"")
        ? JsonRpcId.ofString(json, json.substring(1, json.length() - 1))
        : JsonRpcId.ofNumber(json);
  }

  static JsonRpcMessage msg(String json) throws Exception {
    return JsonRpcCodec.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  static JsonRpcMessage result(String idJson) throws Exception {
    return msg("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":{}}");
  }

  static JsonRpcMessage error(String idJson) throws Exception {
    return msg("{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"error\":{\"code\":-1,\"message\":\"x\"}}");
  }

  @Test
  void openDuplicateAndClose() throws Exception {
    AnswerLedger l = ledger(true);
    assertThat(l.open(id("1"), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(l.open(id("1.0"), NO_WAIT)).isEqualTo(Opening.DUPLICATE); // same id, other spelling
    assertThat(l.open(id("\"1\""), NO_WAIT)).isEqualTo(Opening.OPENED); // a string is another id
    assertThat(l.openIds().size()).isEqualTo(2);
    assertThat(l.isOpen(id("1"))).isTrue();

    assertThat(dropReason(l, result("1"))).isNull(); // the answer passes and closes the id
    assertThat(l.isOpen(id("1"))).isFalse();
    assertThat(l.openIds().size()).isEqualTo(1);
  }

  @Test
  void duplicateDoesNotLeakASlot() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("1"), NO_WAIT);
    for (int i = 0; i < InFlightBounds.MAX_OPEN * 2; i++) {
      assertThat(l.open(id("1"), NO_WAIT)).isEqualTo(Opening.DUPLICATE);
    }
    for (int i = 2; i <= InFlightBounds.MAX_OPEN; i++) {
      assertThat(l.open(id(Integer.toString(i)), NO_WAIT)).isEqualTo(Opening.OPENED);
    }
    assertThat(l.openIds().size()).isEqualTo(InFlightBounds.MAX_OPEN);
  }

  @Test
  void busyWhenAllSlotsAreTakenAndFreeAgainAfterAnAnswer() throws Exception {
    AnswerLedger l = ledger(true);
    for (int i = 0; i < InFlightBounds.MAX_OPEN; i++) {
      assertThat(l.open(id(Integer.toString(i)), NO_WAIT)).isEqualTo(Opening.OPENED);
    }
    assertThat(l.open(id("\"x1\""), NO_WAIT)).isEqualTo(Opening.BUSY);
    assertThat(l.open(id("\"x1\""), Duration.ofMillis(20))).isEqualTo(Opening.BUSY);
    assertThat(l.isOpen(id("\"x1\""))).isFalse();

    assertThat(dropReason(l, result("5"))).isNull();
    assertThat(l.open(id("\"x1\""), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(l.open(id("\"x2\""), NO_WAIT)).isEqualTo(Opening.BUSY);
    assertThat(l.closeForOwnAnswer(id("7"))).isTrue();
    assertThat(l.open(id("\"x2\""), NO_WAIT)).isEqualTo(Opening.OPENED);
  }

  @Test
  void busyOpenWaitsForASlot() throws Exception {
    AnswerLedger l = ledger(true);
    for (int i = 0; i < InFlightBounds.MAX_OPEN; i++) {
      l.open(id(Integer.toString(i)), NO_WAIT);
    }
    CompletableFuture<Opening> opening = new CompletableFuture<>();
    Thread opener =
        Thread.ofVirtual()
            .start(
                () -> {
                  try {
                    opening.complete(l.open(id("\"late\""), Duration.ofSeconds(20)));
                  } catch (InterruptedException e) {
                    opening.completeExceptionally(e);
                  }
                });
    Await.until(
        "open() to wait for a slot",
        () -> opening.isDone() || opener.getState() == Thread.State.TIMED_WAITING);
    assertThat(opening).isNotDone();
    l.closeForOwnAnswer(id("0"));
    assertThat(opening.get(20, TimeUnit.SECONDS)).isEqualTo(Opening.OPENED);
    assertThat(l.isOpen(id("\"late\""))).isTrue();
  }

  @Test
  void cancelFilterDropsExactlyOneLateResponseAndClosesTheId() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("3"), NO_WAIT);
    l.cancel(id("3"));
    assertThat(l.isOpen(id("3"))).isTrue(); // cancel alone does not answer

    String reason = dropReason(l, result("3.0"));
    assertThat(reason).isNotNull().contains("cancelled");
    assertThat(l.isOpen(id("3"))).isFalse();
    assertThat(l.openIds().size()).isZero();
    // a further response for the same id is a second answer: dropped for that reason
    assertThat(dropReason(l, error("3"))).isNotNull().contains("already answered");
  }

  @Test
  void cancelledIdIsForgottenAfterTheTtl() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("3"), NO_WAIT);
    l.cancel(id("3"));
    clock.addAndGet(AnswerLedger.CANCEL_TTL.toNanos());
    // the request is still open (no answer yet): its response now passes
    assertThat(dropReason(l, result("3"))).isNull();
    assertThat(l.isOpen(id("3"))).isFalse();
  }

  @Test
  void secondResponseAfterOwnAnswerIsDropped() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("\"a\""), NO_WAIT);
    assertThat(l.closeForOwnAnswer(id("\"a\""))).isTrue();
    assertThat(l.closeForOwnAnswer(id("\"a\""))).isFalse(); // never two own answers
    assertThat(dropReason(l, result("\"\\u0061\""))).isNotNull().contains("already answered");
    clock.addAndGet(AnswerLedger.CANCEL_TTL.toNanos());
    // memory of answered ids is bounded in time; past it the id is simply not in flight
    assertThat(dropReason(l, result("\"a\""))).contains("no request in flight");
  }

  @Test
  void ownAnswerAfterServerAnswerIsRefused() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("9"), NO_WAIT);
    assertThat(dropReason(l, result("9"))).isNull();
    assertThat(l.closeForOwnAnswer(id("9"))).isFalse();
  }

  @Test
  void ownAnswerForACancelledRequestClearsTheCancel() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("4"), NO_WAIT);
    l.cancel(id("4"));
    assertThat(l.closeForOwnAnswer(id("4"))).isTrue();
    assertThat(dropReason(l, result("4"))).contains("already answered");
  }

  @Test
  void idReuseClearsCancelAndAnswered() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("5"), NO_WAIT);
    l.cancel(id("5"));
    assertThat(dropReason(l, result("5"))).isNotNull();
    // host reuses id 5 for a new request: its answer must reach the host
    assertThat(l.open(id("5"), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(dropReason(l, result("5"))).isNull();

    l.open(id("6"), NO_WAIT);
    l.closeForOwnAnswer(id("6"));
    assertThat(l.open(id("6"), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(dropReason(l, result("6"))).isNull();
  }

  @Test
  void aRecentlyCancelledIdReusedIsAnsweredOnlyByTheNewRequestsAnswer() throws Exception {
    AnswerLedger l = ledger(true);
    l.cancel(id("8")); // the earlier request 8 was cancelled; its late answer may still come
    assertThat(l.open(id("8"), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(l.isReused(id("8"))).isTrue();
    assertThat(dropReason(l, result("8"))).contains("late response for cancelled id 8");
    assertThat(l.isOpen(id("8"))).isTrue(); // the late answer closed nothing
    JsonRpcMessage.Response answer = (JsonRpcMessage.Response) msg("{\"jsonrpc\":\"2.0\",\"id\":8,\"result\":{\"new\":true}}");
    l.expect(answer); // the answer to the alias, under the host's id again
    assertThat(dropReason(l, answer)).isNull();
    assertThat(l.isOpen(id("8"))).isFalse();
    assertThat(dropReason(l, result("8"))).contains("already answered");
  }

  @Test
  void anIdNeverCancelledIsNotReused() throws Exception {
    AnswerLedger l = ledger(true);
    assertThat(l.open(id("9"), NO_WAIT)).isEqualTo(Opening.OPENED);
    assertThat(l.isReused(id("9"))).isFalse();
    assertThat(dropReason(l, result("9"))).isNull();
  }

  @Test
  void cancelFilterOffPassesLateResponses() throws Exception {
    AnswerLedger l = ledger(false);
    l.open(id("3"), NO_WAIT);
    l.cancel(id("3"));
    assertThat(dropReason(l, result("3"))).isNull();
    assertThat(l.isOpen(id("3"))).isFalse();
    // the exactly-one-answer rule still holds without the cancel filter
    assertThat(dropReason(l, result("3"))).contains("already answered");
  }

  @Test
  void notificationsRequestsAndIdNullErrorsAlwaysPass() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("1"), NO_WAIT);
    l.cancel(id("1"));
    assertThat(dropReason(l, msg("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}"))).isNull();
    assertThat(dropReason(l, msg("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"sampling/createMessage\"}"))).isNull();
    assertThat(dropReason(l, msg("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"p\"}}"))).isNull();
    // none of those consumed the cancel
    assertThat(dropReason(l, result("1"))).contains("cancelled");
  }

  @Test
  void aBatchReplyIsJudgedMemberByMember() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("1"), NO_WAIT);
    l.open(id("2"), NO_WAIT);
    l.open(id("3"), NO_WAIT);
    l.cancel(id("2"));
    String batch = "[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\": 1}},"
        + "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}},"
        + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"},"
        + "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1,\"message\":\"m\"}}]";
    dev.mcpstdio.stdio.EmitGate.Admission admission = l.admit(msg(batch));
    assertThat(admission.note()).contains("cancelled id 2");
    assertThat(new String(admission.message().bytes(), java.nio.charset.StandardCharsets.UTF_8))
        .isEqualTo("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\": 1}},"
            + "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"},"
            + "{\"jsonrpc\":\"2.0\",\"id\":3,\"error\":{\"code\":1,\"message\":\"m\"}}]");
    assertThat(l.openIds()).isEmpty(); // every member answered (or dropped) closes its id
    assertThat(dropReason(l, msg("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]"))).contains("already answered");
  }

  @Test
  void responseForAnIdNobodyAskedIsDropped() throws Exception {
    AnswerLedger l = ledger(true);
    assertThat(dropReason(l, result("42"))).contains("no request in flight");
    assertThat(dropReason(l, result("\"never-asked-1\""))).contains("no request in flight");
    assertThat(dropReason(l, msg("{\"jsonrpc\":\"2.0\",\"id\":null,\"error\":{\"code\":-32700,\"message\":\"m\"}}")))
        .isNull(); // an error about an unreadable message has no id to correlate: it passes
  }

  @Test
  void onlyAnswersToAHostBatchFormABatch() throws Exception {
    AnswerLedger l = ledger(true);
    l.open(id("1"), NO_WAIT, true);
    l.open(id("2"), NO_WAIT);
    assertThat(l.answersHostBatch((JsonRpcMessage.Batch) msg("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}]"))).isTrue();
    assertThat(l.answersHostBatch((JsonRpcMessage.Batch) msg("[{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]"))).isFalse();
    assertThat(l.answersHostBatch((JsonRpcMessage.Batch) msg("[{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}},"
        + "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}]"))).isFalse();
  }

  /** The ledger's verdict on one upstream message: why it is held back, or null when it passes. */
  private static String dropReason(AnswerLedger ledger, dev.mcpstdio.jsonrpc.JsonRpcMessage message) {
    dev.mcpstdio.stdio.EmitGate.Admission admission = ledger.admit(message);
    return admission.message() == null ? admission.note() : null;
  }
}
