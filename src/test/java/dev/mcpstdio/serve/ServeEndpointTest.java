package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static dev.mcpstdio.serve.ServeHarness.events;
import static dev.mcpstdio.serve.ServeHarness.nextEvent;
import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The Streamable HTTP endpoint against the real demo server: sessions, JSON and event streams. */
class ServeEndpointTest {

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo())
        .withLimits(100, Duration.ZERO, 1 << 20, Duration.ofSeconds(20), Duration.ofMillis(300)));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  @Test
  void initializeStartsASessionWithARandomIdAndForwardsTheServersResultVerbatim() throws Exception {
    HttpResponse<String> r = serve.post(null, INIT, false);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    String session = r.headers().firstValue("Mcp-Session-Id").orElseThrow();
    assertThat(session).matches("[0-9a-f]{32}");
    assertThat(r.body()).startsWith("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":\"2025-11-25\"")
        .contains("\"serverInfo\":{\"name\":\"mcp-stdio-demo\"");
    HttpResponse<String> again = serve.post(null, INIT, false);
    assertThat(again.headers().firstValue("Mcp-Session-Id").orElseThrow()).isNotEqualTo(session);
  }

  @Test
  void aClientThatAcceptsEventStreamsGetsTheAnswerAsAnEvent() throws Exception {
    HttpResponse<String> r = serve.post(null, INIT, true);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    assertThat(r.headers().firstValue("Cache-Control").orElse("")).contains("no-cache");
    assertThat(events(r.body())).singleElement().satisfies(e -> assertThat(e).contains("\"id\":1,\"result\""));
  }

  @Test
  void notificationsAreAcceptedWith202AndNoBody() throws Exception {
    String session = serve.initialize();
    HttpResponse<String> r = serve.post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}", true);
    assertThat(r.statusCode()).isEqualTo(202);
    assertThat(r.body()).isEmpty();
  }

  @Test
  void aToolCallIsAnsweredAsJson() throws Exception {
    String session = serve.initialize();
    HttpResponse<String> r = serve.post(session,
        "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"add\",\"arguments\":{\"a\":2,\"b\":40}}}", false);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Mcp-Session-Id")).hasValue(session);
    assertThat(r.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"42\"}],"
        + "\"structuredContent\":{\"sum\":42}}}");
  }

  @Test
  void progressForARequestTravelsOnItsStreamBeforeTheResult() throws Exception {
    String session = serve.initialize();
    HttpResponse<String> r = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":\"s\",\"method\":\"tools/call\",\"params\":"
        + "{\"name\":\"slow\",\"arguments\":{\"steps\":3,\"delayMs\":10},\"_meta\":{\"progressToken\":42}}}", true);
    List<String> events = events(r.body());
    assertThat(events).hasSize(4);
    for (int i = 0; i < 3; i++) {
      assertThat(events.get(i)).contains("notifications/progress").contains("\"progressToken\":42")
          .contains("\"progress\":" + (i + 1));
    }
    assertThat(events.get(3)).contains("\"id\":\"s\"").contains("done after 3 steps");
  }

  @Test
  void elicitationRoundTripsOnTheRequestsStream() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> r = serve.postStreaming(session,
        "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{\"question\":\"Name?\"}}}");
    assertThat(r.statusCode()).isEqualTo(200);
    Iterator<String> lines = r.body().iterator();
    String ask = nextEvent(lines);
    assertThat(ask).contains("\"method\":\"elicitation/create\"").contains("\"id\":\"demo-");
    String askId = ask.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
    HttpResponse<String> answer = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + askId
        + ",\"result\":{\"action\":\"accept\",\"content\":{\"answer\":\"Ada\"}}}", true);
    assertThat(answer.statusCode()).isEqualTo(202);
    assertThat(nextEvent(lines)).contains("\"id\":9").contains("the user answered: Ada");
  }

  @Test
  void samplingRoundTripsOnTheRequestsStream() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> r = serve.postStreaming(session,
        "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"tools/call\",\"params\":{\"name\":\"summarize\",\"arguments\":{\"text\":\"long\"}}}");
    Iterator<String> lines = r.body().iterator();
    String sampling = nextEvent(lines);
    assertThat(sampling).contains("\"method\":\"sampling/createMessage\"");
    String id = sampling.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
    serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"role\":\"assistant\",\"content\":"
        + "{\"type\":\"text\",\"text\":\"short\"},\"model\":\"m\"}}", true);
    assertThat(nextEvent(lines)).contains("\"id\":10").contains("summary: short");
  }

  @Test
  void whatCannotTravelWithAJsonAnswerGoesToTheSessionStream() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> stream = serve.openStream(session);
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    Iterator<String> lines = stream.body().iterator();
    CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> {
      try {
        return serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/call\",\"params\":"
            + "{\"name\":\"ask\",\"arguments\":{}}}", false);
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    String ask = nextEvent(lines);
    assertThat(ask).contains("elicitation/create");
    String id = ask.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
    serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"action\":\"decline\"}}", false);
    HttpResponse<String> answer = call.get(20, TimeUnit.SECONDS);
    assertThat(answer.statusCode()).isEqualTo(200);
    assertThat(answer.body()).contains("\"id\":11").contains("the user chose to decline");
  }

  @Test
  void theSessionStreamSendsKeepAlivesAndANewStreamReplacesTheOpenOne() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> first = serve.openStream(session);
    Iterator<String> lines = first.body().iterator();
    assertThat(lines.next()).isEqualTo(": keepalive"); // keep-alive every 300 ms in this harness
    CompletableFuture<Long> firstEnds = CompletableFuture.supplyAsync(() -> {
      long n = 0;
      while (lines.hasNext()) {
        lines.next();
        n++;
      }
      return n;
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    // a client that reconnects (its old connection may be dead without anyone knowing) is never locked out
    HttpResponse<Stream<String>> second = serve.openStream(session);
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(firstEnds.get(10, TimeUnit.SECONDS)).isNotNegative();
    assertThat(second.body().iterator().next()).isEqualTo(": keepalive");
    serve.awaitLog("a new session stream replaces the open one");
  }

  @Test
  void theSameRequestTwiceInFlightGetsOneAnswerForBoth() throws Exception {
    String session = serve.initialize();
    String call = "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
        + "\"arguments\":{\"steps\":3,\"delayMs\":300},\"_meta\":{\"progressToken\":\"t\"}}}";
    String respelled = "{ \"params\": {\"_meta\":{\"progressToken\":\"\\u0074\"},\"arguments\":{\"delayMs\":3e2,\"steps\":3},"
        + "\"name\":\"slow\"},\"method\":\"tools/call\",\"id\":12,\"jsonrpc\":\"2.0\"}";
    HttpResponse<Stream<String>> first = serve.postStreaming(session, call);
    Iterator<String> lines = first.body().iterator();
    assertThat(nextEvent(lines)).contains("notifications/progress"); // the first is in flight now
    HttpResponse<String> second = serve.post(session, respelled, false);
    assertThat(second.statusCode()).isEqualTo(200);
    String last = null;
    for (String event; (event = nextEvent(lines)) != null; ) {
      last = event;
    }
    assertThat(second.body()).isEqualTo(last).contains("done after 3 steps");
  }

  @Test
  void aDifferentRequestUnderAnIdInFlightIsRefusedWith409() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> first = serve.postStreaming(session, slowCall(13, 10, 300));
    Iterator<String> lines = first.body().iterator();
    assertThat(nextEvent(lines)).contains("notifications/progress"); // in flight, for 3 s more: time enough for the clash to arrive on a loaded machine
    HttpResponse<String> clash = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}", false);
    assertThat(clash.statusCode()).isEqualTo(409);
    assertThat(clash.body()).contains("already in flight");
    serve.awaitLog("refused a different request (\"ping\") with the same id");
    String last = null;
    for (String event; (event = nextEvent(lines)) != null; ) {
      last = event;
    }
    assertThat(last).contains("done after 10 steps");
    // once answered, the id may be used again
    assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"ping\"}", false).body())
        .isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":13,\"result\":{}}");
  }

  @Test
  void aClientsCancelEndsItsStreamAtOnceWithoutAnAnswer() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> call = serve.postStreaming(session, slowCall(21, 100, 100));
    Iterator<String> lines = call.body().iterator();
    assertThat(nextEvent(lines)).contains("notifications/progress");
    HttpResponse<String> cancel = serve.post(session,
        "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":21,\"reason\":\"user\"}}", true);
    assertThat(cancel.statusCode()).isEqualTo(202);
    CompletableFuture<List<String>> rest = CompletableFuture.supplyAsync(() -> {
      List<String> events = new java.util.ArrayList<>();
      for (String event; (event = nextEvent(lines)) != null; ) {
        events.add(event);
      }
      return events;
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    assertThat(rest.get(5, TimeUnit.SECONDS)).noneMatch(e -> e.contains("\"id\":21")); // well before the 10 s of work
  }

  @Test
  void aClientsCancelEndsAJsonWaitAtOnce() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> stream = serve.openStream(session); // where the progress goes for a JSON request
    Iterator<String> lines = stream.body().iterator();
    CompletableFuture<HttpResponse<String>> call = CompletableFuture.supplyAsync(() -> send(session,
        slowCall(22, 100, 100)), dev.mcpstdio.testing.Threads.VIRTUAL);
    assertThat(nextEvent(lines)).contains("notifications/progress"); // in flight
    serve.post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":22}}", false);
    HttpResponse<String> answer = call.get(5, TimeUnit.SECONDS);
    assertThat(answer.body()).contains("\"id\":22").contains("cancelled by the client");
  }

  /** The id and data of the next event, priming events included ({@code data} empty); null at the end. */
  private static String[] nextRawEvent(Iterator<String> lines) {
    String id = null;
    StringBuilder data = null;
    while (lines.hasNext()) {
      String line = lines.next();
      if (line.isEmpty()) {
        if (data != null) {
          return new String[] {id, data.toString()};
        }
      } else if (line.startsWith("id:")) {
        id = line.substring(3).trim();
      } else if (line.startsWith("data:")) {
        data = new StringBuilder(line.substring(5).trim());
      }
    }
    return null;
  }

  /** A call of the demo's {@code slow} tool that reports progress under its own id as the token. */
  private static String slowCall(int id, int steps, int delayMs) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\","
        + "\"arguments\":{\"steps\":" + steps + ",\"delayMs\":" + delayMs + "},\"_meta\":{\"progressToken\":" + id + "}}}";
  }

  /** The raw events, {@code [id, data]}, left on a stream until it ends. */
  private static List<String[]> remainingEvents(Iterator<String> lines) {
    List<String[]> events = new java.util.ArrayList<>();
    for (String[] event; (event = nextRawEvent(lines)) != null; ) {
      events.add(event);
    }
    return events;
  }

  private static HttpResponse<Stream<String>> resume(String session, String lastEventId) throws Exception {
    return serve.http.send(serve.request(session).header("Accept", "text/event-stream").header("Last-Event-ID", lastEventId)
        .GET().build(), HttpResponse.BodyHandlers.ofLines());
  }

  @Test
  void aDroppedRequestStreamResumesWithLastEventIdAndLosesNothing() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> call = serve.postStreaming(session, slowCall(31, 4, 150));
    Iterator<String> lines = call.body().iterator();
    String[] priming = nextRawEvent(lines);
    assertThat(priming[1]).isEmpty();
    assertThat(priming[0]).matches("\\d+-0");
    String[] first = nextRawEvent(lines);
    assertThat(first[1]).contains("\"progress\":1");
    call.body().close(); // the connection drops mid-call

    HttpResponse<Stream<String>> resumed = resume(session, first[0]);
    assertThat(resumed.statusCode()).isEqualTo(200);
    List<String[]> events = remainingEvents(resumed.body().iterator());
    List<String> ids = events.stream().map(e -> e[0]).toList();
    List<String> data = events.stream().map(e -> e[1]).toList();
    assertThat(data).hasSize(4); // progress 2, 3, 4 and the answer: nothing lost, nothing twice
    assertThat(data.get(0)).contains("\"progress\":2");
    assertThat(data.get(3)).contains("\"id\":31").contains("done after 4 steps");
    String stream = first[0].substring(0, first[0].indexOf('-'));
    assertThat(ids).containsExactly(stream + "-2", stream + "-3", stream + "-4", stream + "-5");
    // the resumed stream delivered its answer cleanly: nothing is kept, so a later resume is refused
    dev.mcpstdio.testing.Await.until("the stream to be forgotten", Duration.ofSeconds(10),
        () -> {
          try {
            return resume(session, first[0]).statusCode() == 410;
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        });
  }

  @Test
  void anAnswerThatCameWhileNobodyListenedWaitsForTheResumingClient() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> call = serve.postStreaming(session, slowCall(32, 4, 150));
    Iterator<String> lines = call.body().iterator();
    String[] priming = nextRawEvent(lines);
    call.body().close(); // gone at once: the writer notices at its next write and detaches
    serve.awaitLog("client left the stream for 32");
    // the answer comes while nobody listens; the client comes back from the priming event
    HttpResponse<Stream<String>> resumed = resume(session, priming[0]);
    assertThat(resumed.statusCode()).isEqualTo(200);
    List<String> data = remainingEvents(resumed.body().iterator()).stream().map(e -> e[1]).toList();
    assertThat(data).hasSize(5);
    assertThat(data.get(4)).contains("\"id\":32").contains("done after 4 steps");
  }

  @Test
  void aRequestWhoseClientLeftNoLongerCapturesTheChildsRequestsForOthers() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> gone = serve.postStreaming(session, slowCall(41, 100, 100));
    nextRawEvent(gone.body().iterator());
    gone.body().close();
    serve.awaitLog("client left the stream for 41");
    // the older request's client is gone: the child's elicitation must reach the live request
    HttpResponse<Stream<String>> live = serve.postStreaming(session,
        "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{}}}");
    Iterator<String> lines = live.body().iterator();
    String ask = nextEvent(lines);
    assertThat(ask).contains("elicitation/create");
    String id = ask.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
    serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"result\":{\"action\":\"decline\"}}", true);
    assertThat(nextEvent(lines)).contains("\"id\":42").contains("the user chose to decline");
    serve.post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":41}}", true);
  }

  @Test
  void unknownStreamsCannotBeResumed() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> r = resume(session, "999999-1");
    assertThat(r.statusCode()).isEqualTo(410);
  }

  @Test
  void sessionsAreSeparateEachChildAnswersOnlyItsOwnClient() throws Exception {
    String a = serve.initialize();
    String b = serve.initialize();
    assertThat(serve.childPid(a)).isNotEqualTo(serve.childPid(b));
    String callA = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"text\":\"for a\"}}}";
    String callB = callA.replace("for a", "for b");
    assertThat(serve.post(a, callA, false).body()).contains("for a").doesNotContain("for b");
    assertThat(serve.post(b, callB, false).body()).contains("for b").doesNotContain("for a");
  }

  @Test
  void requestsNeedASessionIdAndAnUnknownOneIs404() throws Exception {
    HttpResponse<String> none = serve.post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", false);
    assertThat(none.statusCode()).isEqualTo(400);
    assertThat(none.body()).contains("Mcp-Session-Id required");
    HttpResponse<String> unknown = serve.post("0123456789abcdef0123456789abcdef", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", false);
    assertThat(unknown.statusCode()).isEqualTo(404);
    assertThat(serve.openStream("nope").statusCode()).isEqualTo(404);
    assertThat(serve.delete(null).statusCode()).isEqualTo(400);
  }

  @Test
  void deleteEndsTheSessionAndItsChild() throws Exception {
    String session = serve.initialize();
    long pid = serve.childPid(session);
    HttpResponse<String> r = serve.delete(session);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}", false).statusCode()).isEqualTo(404);
    dev.mcpstdio.testing.Await.until("child " + pid + " to exit", Duration.ofSeconds(10),
        () -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
  }

  @Test
  void anOpenSessionStreamEndsWhenTheSessionIsDeleted() throws Exception {
    String session = serve.initialize();
    HttpResponse<Stream<String>> stream = serve.openStream(session);
    CompletableFuture<Long> drained = CompletableFuture.supplyAsync(() -> stream.body().count(), dev.mcpstdio.testing.Threads.VIRTUAL);
    serve.delete(session);
    assertThat(drained.get(10, TimeUnit.SECONDS)).isGreaterThanOrEqualTo(0);
  }

  @Test
  void malformedAndUnsupportedMessagesAreRefusedWith400() throws Exception {
    String session = serve.initialize();
    HttpResponse<String> bad = serve.post(session, "{\"jsonrpc\":\"2.0\",", false);
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body()).contains("-32700").contains("\"id\":null");
    HttpResponse<String> batch = serve.post(session, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", false);
    assertThat(batch.statusCode()).isEqualTo(400);
    assertThat(batch.body()).contains("batches are not supported");
    HttpResponse<String> objectId = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":{\"a\":1},\"method\":\"ping\"}", false);
    assertThat(objectId.statusCode()).isEqualTo(400);
    assertThat(objectId.body()).contains("-32600");
    HttpResponse<String> version = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}", false,
        "MCP-Protocol-Version", "1999-01-01");
    assertThat(version.statusCode()).isEqualTo(400);
    assertThat(version.body()).contains("unsupported MCP-Protocol-Version");
    HttpResponse<String> fine = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}", false,
        "MCP-Protocol-Version", "2025-11-25");
    assertThat(fine.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
  }

  @Test
  void healthAndReadinessAnswer() throws Exception {
    HttpResponse<String> health = serve.http.send(java.net.http.HttpRequest.newBuilder(serve.url.resolve("/healthz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(health.statusCode()).isEqualTo(200);
    HttpResponse<String> ready = serve.http.send(java.net.http.HttpRequest.newBuilder(serve.url.resolve("/readyz")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    assertThat(ready.body()).contains("ready");
  }

  private static HttpResponse<String> send(String session, String json) {
    try {
      return serve.post(session, json, false);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
