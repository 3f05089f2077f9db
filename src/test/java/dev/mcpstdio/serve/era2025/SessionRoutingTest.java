package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.http.ByteBudget;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The routing of a session's child output, and the session's admission and lifecycle, driven
 * without a process: a {@link FakeChild} takes what the session sends, and the test plays the
 * child's stdout and stderr by calling the session's listener methods.
 */
class SessionRoutingTest {

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Log log = new Log(logBytes, Log.Level.DEBUG, new Redactor()).tagged("session test");
  /** A budget large enough that no test meets it by accident. */
  private final ChildLog childLog = new ChildLog(log, new ChildProcess.StderrLimit(1 << 30));
  private final ByteBudget queued = new ByteBudget(64 << 20);
  private final FakeChild child = new FakeChild();

  private Session session(boolean oneStream) {
    Session s = new Session("0123456789abcdef0123456789abcdef", childLog, queued, Duration.ofSeconds(5),
        Duration.ofSeconds(30));
    s.clientArrived(dev.mcpstdio.serve.http.Principals.OPEN, oneStream, null);
    s.attach(child, null);
    return s;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String text(byte[] b) {
    return b == null ? null : new String(b, StandardCharsets.UTF_8);
  }

  private String logged() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  private static JsonRpcMessage.Request request(String json) throws Exception {
    return (JsonRpcMessage.Request) JsonRpcCodec.parse(bytes(json));
  }

  private static String call(int id, String progressToken) {
    String meta = progressToken == null ? "" : ",\"_meta\":{\"progressToken\":\"" + progressToken + "\"}";
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"t\"" + meta + "}}";
  }

  private static Exchange admitted(Session s, String json, boolean streaming) throws Exception {
    ExchangeTable.Admission admission = s.admit(request(json), streaming);
    assertThat(admission).isInstanceOf(ExchangeTable.Admission.Admitted.class);
    return ((ExchangeTable.Admission.Admitted) admission).exchange();
  }

  /** The related messages waiting in a streamed exchange, in order (none is written by a client here). */
  private static List<String> related(Exchange e) throws Exception {
    List<String> out = new ArrayList<>();
    Exchange.Step step;
    while ((step = e.take(0, 0)) instanceof Exchange.Step.Send send && !send.last()) {
      out.add(text(send.message()));
    }
    return out;
  }

  /** What waits on a GET stream (opened now, so the backlog moves onto it first). */
  private static List<String> getStream(SessionStream stream) throws Exception {
    List<String> out = new ArrayList<>();
    byte[] m;
    while ((m = stream.next(0)) != null) {
      out.add(text(m));
    }
    return out;
  }

  private static String notification(String method, int n) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"" + method + "\",\"params\":{\"n\":" + n + "}}";
  }

  private static String progress(String token, int n) {
    return "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":\"" + token
        + "\",\"progress\":" + n + "}}";
  }

  private static String result(int id) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"content\":[]}}";
  }

  @Test
  void aResponseGoesToTheExchangeWaitingForItsIdAndNoOther() throws Exception {
    Session s = session(false);
    Exchange one = admitted(s, call(1, null), false);
    Exchange two = admitted(s, call(2, null), false);

    s.onLine(bytes(result(2)));

    assertThat(two.outcome()).isCompletedWithValueMatching(
        o -> o instanceof Exchange.Outcome.Answered a && text(a.response()).equals(result(2)));
    assertThat(one.outcome()).isNotDone();
  }

  @Test
  void aResponseToAnIdNoRequestWaitsForIsDroppedAndLogged() throws Exception {
    Session s = session(false);
    Exchange waiting = admitted(s, call(1, null), false);

    s.onLine(bytes(result(99)));

    assertThat(waiting.outcome()).isNotDone();
    assertThat(logged()).contains("the server answered id 99, which no request is waiting for; dropped");
    assertThat(getStream(s.getStream().open())).isEmpty(); // not on the GET stream either
    assertThat(queued.used()).isZero();
  }

  @Test
  void progressGoesToTheExchangeWhoseRequestCarriedItsToken() throws Exception {
    Session s = session(false);
    Exchange first = admitted(s, call(1, "a"), true);
    Exchange second = admitted(s, call(2, "b"), true);

    s.onLine(bytes(progress("b", 1)));

    assertThat(related(second)).containsExactly(progress("b", 1));
    assertThat(related(first)).isEmpty();
  }

  @Test
  void progressNoExchangeTakesGoesToTheGetStream() throws Exception {
    Session s = session(false);
    Exchange answered = admitted(s, call(1, "done"), true);
    s.onLine(bytes(result(1))); // settled: takes nothing more
    SessionStream get = s.getStream().open();

    s.onLine(bytes(progress("nobody", 1)));
    s.onLine(bytes(progress("done", 2)));

    assertThat(getStream(get)).containsExactly(progress("nobody", 1), progress("done", 2));
    assertThat(answered.outcome()).isDone();
  }

  @Test
  void logMessagesAndTheChildsRequestsGoToTheOldestExchangeStillStreaming() throws Exception {
    Session s = session(false);
    Exchange json = admitted(s, call(1, null), false); // oldest, but its client reads no stream
    Exchange oldest = admitted(s, call(2, null), true);
    Exchange younger = admitted(s, call(3, null), true);
    String logMessage = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\"}}";
    String sampling = "{\"jsonrpc\":\"2.0\",\"id\":\"s1\",\"method\":\"sampling/createMessage\",\"params\":{}}";

    s.onLine(bytes(logMessage));
    s.onLine(bytes(sampling));
    assertThat(related(oldest)).containsExactly(logMessage, sampling);
    assertThat(related(younger)).isEmpty();
    assertThat(json.outcome()).isNotDone();

    s.onLine(bytes(result(2))); // the oldest is answered: the next one goes to the next oldest
    s.onLine(bytes(logMessage));
    assertThat(related(younger)).containsExactly(logMessage);

    younger.detach(0); // its client left: it may never be resumed, so it takes nothing that could go elsewhere
    SessionStream get = s.getStream().open();
    s.onLine(bytes(sampling));
    assertThat(getStream(get)).containsExactly(sampling);
  }

  @Test
  void otherNotificationsGoToTheGetStreamEvenWhileARequestStreams() throws Exception {
    Session s = session(false);
    Exchange streaming = admitted(s, call(1, null), true);
    SessionStream get = s.getStream().open();

    s.onLine(bytes(notification("notifications/tools/list_changed", 1)));

    assertThat(getStream(get)).containsExactly(notification("notifications/tools/list_changed", 1));
    assertThat(related(streaming)).isEmpty();
  }

  @Test
  void withNoGetStreamOpenTheBacklogKeepsTheNewestUpToItsBoundAndDropsTheOldest() throws Exception {
    Session s = session(false);
    for (int i = 0; i <= SessionGetStream.BACKLOG; i++) { // one more than the backlog holds
      s.onLine(bytes(notification("notifications/resources/updated", i)));
    }
    assertThat(logged()).contains("no session stream open and " + SessionGetStream.BACKLOG
        + " messages waiting; dropped the oldest");

    List<String> delivered = getStream(s.getStream().open());

    assertThat(delivered).hasSize(SessionGetStream.BACKLOG);
    assertThat(delivered.getFirst()).isEqualTo(notification("notifications/resources/updated", 1));
    assertThat(delivered.getLast()).isEqualTo(notification("notifications/resources/updated", SessionGetStream.BACKLOG));
    assertThat(queued.used()).isZero(); // every byte taken was given back
  }

  @Test
  void whatAClosedGetStreamLeftUnreadWaitsForTheNextOne() throws Exception {
    Session s = session(false);
    SessionStream first = s.getStream().open();
    s.onLine(bytes(notification("notifications/tools/list_changed", 1)));
    s.onLine(bytes(notification("notifications/tools/list_changed", 2)));
    byte[] failedWrite = first.next(0); // taken, but its write failed: the client left
    s.getStream().close(first, failedWrite);
    assertThat(s.getStream().closed()).isTrue();

    assertThat(getStream(s.getStream().open())).containsExactly(
        notification("notifications/tools/list_changed", 1), notification("notifications/tools/list_changed", 2));
  }

  @Test
  void oneStreamModeSendsEverythingToTheOneStreamAndAnAnswerPastItsBounds() throws Exception {
    Session s = session(true);
    Exchange ignored = admitted(s, call(1, "p"), true); // even a waiting exchange gets nothing in this mode
    SessionStream stream = s.getStream().open();
    for (int i = 0; i < SessionStream.CAPACITY; i++) {
      s.onLine(bytes(notification("notifications/message", i)));
    }
    s.onLine(bytes(notification("notifications/message", -1))); // the stream is full: dropped, and said so
    s.onLine(bytes(result(1))); // an answer is never dropped
    s.onOversizedLine(20_000_000, bytes("{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"content\":[{\"type\":\"text\""));

    List<String> delivered = getStream(stream);

    assertThat(delivered).hasSize(SessionStream.CAPACITY + 2);
    assertThat(delivered).doesNotContain(notification("notifications/message", -1));
    assertThat(delivered.get(SessionStream.CAPACITY)).isEqualTo(result(1));
    assertThat(delivered.getLast()).contains("\"id\":2", "\"code\":-32000", "over --max-message-size");
    assertThat(logged()).contains("the session stream's client is not reading; dropped a message");
    assertThat(ignored.outcome()).isNotDone();
    assertThat(related(ignored)).isEmpty();
  }

  @Test
  void anOversizedAnswerFailsItsExchangeWith502AtOnce() throws Exception {
    Session s = session(false);
    Exchange waiting = admitted(s, call(5, null), false);
    Exchange other = admitted(s, call(6, null), false);

    s.onOversizedLine(20_000_000, bytes("{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{\"content\":[{\"type\":\"te"));
    s.onOversizedLine(20_000_000, bytes("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":"));

    assertThat(waiting.outcome()).isCompletedWithValueMatching(o -> o instanceof Exchange.Outcome.Failed f
        && f.status() == 502 && f.message().equals("the server's answer is 20000000 bytes, over --max-message-size; dropped"));
    assertThat(other.outcome()).isNotDone();
    assertThat(logged()).contains("the server wrote a 20000000-byte line, over --max-message-size; dropped");
  }

  @Test
  void whenTheChildsStdoutClosesEveryRequestFailsWith503AndTheExitReason() throws Exception {
    Session s = session(false);
    Exchange one = admitted(s, call(1, null), false);
    Exchange two = admitted(s, call(2, null), true);
    SessionStream get = s.getStream().open();
    child.exit.complete(3);

    s.onStdoutClosed();

    String reason = "the server process exited with code 3";
    for (Exchange e : List.of(one, two)) {
      assertThat(e.outcome()).isCompletedWithValueMatching(
          o -> o instanceof Exchange.Outcome.Failed f && f.status() == 503 && f.message().equals(reason));
    }
    assertThat(s.dead()).isTrue();
    assertThat(s.deathReason()).isEqualTo(reason);
    assertThat(get.ended()).isTrue();
    assertThat(s.admit(request(call(3, null)), false)).isInstanceOf(ExchangeTable.Admission.Gone.class);
    assertThat(s.send(bytes(call(3, null)))).isFalse();
    assertThat(child.sent).isEmpty();
    assertThat(s.getStream().open().ended()).isTrue(); // a GET stream opened now ends at once
  }

  @Test
  void aChildWhoseExitCodeCannotBeHadClosedItsStdout() throws Exception {
    Session s = session(false);
    Exchange waiting = admitted(s, call(1, null), false);
    child.exit.completeExceptionally(new IllegalStateException("not reaped"));

    s.onStdoutClosed();

    assertThat(waiting.outcome()).isCompletedWithValueMatching(o -> o instanceof Exchange.Outcome.Failed f
        && f.status() == 503 && f.message().equals("the server closed its stdout"));
  }

  @Test
  void admissionJoinsTheSameRequestRefusesADifferentOneUnderABusyIdAndIsBounded() throws Exception {
    Session s = session(false);
    Exchange first = admitted(s, call(1, null), false);

    assertThat(s.admit(request(call(1, null)), false))
        .isEqualTo(new ExchangeTable.Admission.Joined(first));
    assertThat(s.admit(request("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}"), false))
        .isEqualTo(new ExchangeTable.Admission.Conflict("tools/call"));
    s.onLine(bytes(result(1)));
    admitted(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", false); // answered: the id is free again

    for (int i = 2; i <= ExchangeTable.MAX_IN_FLIGHT; i++) {
      admitted(s, call(i, null), false);
    }
    assertThat(s.admit(request(call(ExchangeTable.MAX_IN_FLIGHT + 1, null)), false))
        .isInstanceOf(ExchangeTable.Admission.Full.class);
  }

  @Test
  void whatTheSessionSendsReachesTheChildAndACancelNeverWaits() throws Exception {
    Session s = session(false);
    assertThat(s.send(bytes(call(1, null)))).isTrue();
    s.cancel(JsonRpcId.ofNumber("1"), "timed out at the gateway");

    assertThat(child.sent).containsExactly(call(1, null));
    assertThat(child.triedSent).containsExactly("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\","
        + "\"params\":{\"requestId\":1,\"reason\":\"timed out at the gateway\"}}");

    s.end("session ended by the client");
    assertThat(s.send(bytes(call(2, null)))).isFalse();
    s.cancel(JsonRpcId.ofNumber("2"), "late");
    assertThat(child.sent).hasSize(1);
    assertThat(child.triedSent).hasSize(1);
    s.closeChild();
    assertThat(child.closed).isTrue();
  }

  @Test
  void endingTheSessionFailsWhatIsInFlightAndGivesTheBacklogBack() throws Exception {
    Session s = session(false);
    Exchange waiting = admitted(s, call(1, null), false);
    s.onLine(bytes(notification("notifications/tools/list_changed", 1)));
    assertThat(queued.used()).isPositive();

    s.end("session ended by the client");

    assertThat(waiting.outcome()).isCompletedWithValueMatching(o -> o instanceof Exchange.Outcome.Failed f
        && f.status() == 503 && f.message().equals("session ended by the client"));
    assertThat(queued.used()).isZero();
    s.onLine(bytes(notification("notifications/tools/list_changed", 2))); // after the end: kept nowhere
    assertThat(queued.used()).isZero();
    assertThat(s.admit(request(call(2, null)), false)).isInstanceOf(ExchangeTable.Admission.Gone.class);
  }

  @Test
  void aCallbackOnStderrIsAskedOfAnElicitingClientOnTheOldestStreamingExchange() throws Exception {
    Session s = session(false);
    s.elicitations.clientCapabilities(request("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
        + "\"params\":{\"capabilities\":{\"elicitation\":{}}}}"));
    CallbackRegistry registry = new CallbackRegistry(Duration.ofSeconds(30), Duration.ofSeconds(5));
    s.callbacks(registry, new CallbackEvents(queued));
    Exchange streaming = admitted(s, call(1, null), true);

    boolean consumed = s.onStderrLine(bytes("__CALLBACK__{\"type\":\"confirm\",\"id\":\"c1\",\"sessionId\":\"x\","
        + "\"message\":\"Proceed?\"}"));

    assertThat(consumed).isTrue();
    assertThat(registry.waiting()).extracting(dev.mcpstdio.host.Callback::id).containsExactly("c1");
    assertThat(related(streaming)).singleElement().asString()
        .contains("\"method\":\"elicitation/create\"", "\"message\":\"Proceed?\"");
    assertThat(s.onStderrLine(bytes("plain output"))).isFalse();
    assertThat(s.onStderrLine(bytes("__CALLBACK__{broken"))).isFalse();
    assertThat(logged()).contains("is not a valid callback", "later ones are logged at debug level");
  }

  @Test
  void notJsonBatchesAndInvalidMessagesAreDroppedAndLogged() throws Exception {
    Session s = session(false);
    SessionStream get = s.getStream().open();

    s.onLine(bytes("not json"));
    s.onLine(bytes("[" + notification("notifications/tools/list_changed", 1) + "]"));
    s.onLine(bytes("{\"jsonrpc\":\"2.0\",\"method\":7}"));

    assertThat(getStream(get)).isEmpty();
    assertThat(logged()).contains("the server wrote a line that is not JSON", "the server wrote a batch",
        "the server wrote an invalid message");
    assertThat(queued.used()).isZero();
  }
}
