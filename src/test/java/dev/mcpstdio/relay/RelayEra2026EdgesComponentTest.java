package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Listen;
import dev.mcpstdio.testing.Fake2026Mrtr;
import dev.mcpstdio.testing.Fake2026Server;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * The 2026 era's edges: how listen streams end and come back, the MRTR bridge's refusals and
 * bounds, a repeated {@code initialize}, and headers that must never be sent.
 */
class RelayEra2026EdgesComponentTest {

  static RelayHarness modern(Fake2026Server server) {
    return RelayHarness.start(server.url(),
        c -> c.withEra(new RelayConfig.EraSettings(ProtocolEra.Choice.MODERN, null)));
  }

  static String call(int id, String tool) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool + "\",\"arguments\":{}}}";
  }

  private static void pingAnswered(RelayHarness relay, int id) {
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"ping\"}");
    assertThat(relay.next()).as("nothing else came first").contains("\"id\":" + id);
  }

  @Test
  void aListenStreamCutAfterItsAckIsOpenedAgain() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      server.awaitOpenListens(1).get(0).cut();
      Fake2026Listen again = server.awaitListens(2).get(1);
      assertThat(again.idJson()).as("a new listen, a new id").isNotEqualTo(server.listens().get(0).idJson());
      server.awaitOpenListens(1);
      assertThat(server.pushToolsListChanged()).isEqualTo(1);
      assertThat(Jsons.parse(relay.next()).get("method").asString()).isEqualTo("notifications/tools/list_changed");
      assertThat(relay.sleeps).as("on the relay's reconnect schedule").contains(Duration.ofSeconds(1));
    }
  }

  @Test
  void aListenTheServerEndsWithAResultOrACancelIsNotOpenedAgain() {
    for (boolean withResult : new boolean[] {true, false}) {
      try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
        relay.initialize();
        Fake2026Listen listen = server.awaitOpenListens(1).get(0);
        if (withResult) {
          listen.endWithResult();
        } else {
          listen.endWithCancel("server going away");
        }
        dev.mcpstdio.testing.Await.until("the relay says the server ended it", () -> relay.log().contains("the server ended the list listen stream"));
        pingAnswered(relay, 1);
        assertThat(server.listens()).as("never reopened").hasSize(1);
      }
    }
  }

  @Test
  void aListenTheServerRefusesIsGivenUpWithoutTouchingAnythingElse() {
    try (Fake2026Server server = new Fake2026Server()) {
      server.on("subscriptions/listen", e -> server.error(404, e, -32601, "Method not found", null));
      try (RelayHarness relay = modern(server)) {
        relay.initialize();
        dev.mcpstdio.testing.Await.until("the relay gave the listen up",
            () -> relay.log().contains("list listen stream refused by the server (error -32601)"));
        relay.send(call(2, "echo"));
        assertThat(Jsons.parse(relay.answerTo("2")).has("result")).isTrue();
        assertThat(server.posts("subscriptions/listen")).hasSize(1);
      }
    }
  }

  @Test
  void urlModeElicitationIsRefusedWithOneErrorAndNothingAsked() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("url_tool", "{\"type\":\"object\"}",
          server.mrtr().withoutCapabilityGate()
              .round("s", Fake2026Mrtr.elicitUrl("k", "Sign in", "https://example.com/sign-in")));
      relay.initialize();
      relay.send(call(3, "url_tool"));
      JsonNode answer = Jsons.parse(relay.next());
      assertThat(answer.get("id").asInt()).as(answer.toString()).isEqualTo(3);
      assertThat(answer.at("/error/message").asString()).contains("MCP bridge").contains("URL-mode");
      pingAnswered(relay, 4);
    }
  }

  @Test
  void theHostsErrorToAQuestionEndsTheCallWithAnErrorAndCancelsTheOtherQuestions() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("two", "{\"type\":\"object\"}",
          server.mrtr().round("s", Fake2026Mrtr.elicit("a", "A?"), Fake2026Mrtr.sample("b", "B")));
      relay.initialize();
      relay.send(call(5, "two"));
      JsonNode q1 = Jsons.parse(relay.next());
      JsonNode q2 = Jsons.parse(relay.next());
      JsonNode refused = q1.get("method").asString().equals("elicitation/create") ? q1 : q2;
      JsonNode other = refused == q1 ? q2 : q1;
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + refused.get("id") + ",\"error\":{\"code\":-1,\"message\":\"user said no\"}}");
      List<JsonNode> next = List.of(Jsons.parse(relay.next()), Jsons.parse(relay.next()));
      JsonNode cancel = next.stream().filter(n -> n.has("method")).findFirst().orElseThrow();
      JsonNode answer = next.stream().filter(n -> n.has("id")).findFirst().orElseThrow();
      assertThat(cancel.get("method").asString()).isEqualTo("notifications/cancelled");
      assertThat(cancel.at("/params/requestId")).isEqualTo(other.get("id"));
      assertThat(answer.get("id").asInt()).isEqualTo(5);
      assertThat(answer.at("/error/message").asString()).contains("user said no");
    }
  }

  @Test
  void aServerThatNeverStopsAskingIsStoppedAfter32Rounds() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("forever", "{\"type\":\"object\"}", e -> server.complete(e,
          "{\"resultType\":\"input_required\",\"requestState\":\"again\"}"));
      relay.initialize();
      relay.send(call(6, "forever"));
      JsonNode answer = Jsons.parse(relay.answerTo("6"));
      assertThat(answer.at("/error/message").asString()).contains("more than 32 times");
      assertThat(server.posts("tools/call")).hasSize(33);
    }
  }

  @Test
  void aRepeatedInitializeIsAnsweredLocallyAgainAndNoResumptionHeaderIsEverSent() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send(RelayHarness.INITIALIZE.replace("\"id\":0", "\"id\":7"));
      assertThat(Jsons.parse(relay.answerTo("7")).at("/result/serverInfo/name").asString()).isEqualTo("fake-2026");
      relay.send(call(8, "progress"));
      assertThat(Jsons.parse(relay.answerTo("8")).has("result")).isTrue();
      assertThat(server.posts("initialize")).isEmpty();
      assertThat(server.anyLastEventIdSent()).isFalse();
      assertThat(server.anySessionIdSent()).isFalse();
      assertThat(server.failures()).isEmpty();
    }
  }

  @Test
  void progressOfACallReachesTheHostBeforeItsAnswer() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"progress\",\"arguments\":{},"
          + "\"_meta\":{\"progressToken\":9}}}");
      int progress = 0;
      for (String line = relay.next(); !RelayHarness.hasId(line, "9"); line = relay.next()) {
        assertThat(Jsons.parse(line).get("method").asString()).isEqualTo("notifications/progress");
        progress++;
      }
      assertThat(progress).isEqualTo(3);
    }
  }

  @Test
  void aServerThatNamedNoCapabilitiesIsAskedOnceMoreWithTheHostsOwn() {
    try (Fake2026Server server = new Fake2026Server().capabilities("{}"); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send(RelayHarness.INITIALIZE.replace("\"id\":0", "\"id\":10"));
      relay.answerTo("10");
      List<dev.mcpstdio.testing.Fake2026Exchange> discovers = server.posts("server/discover");
      assertThat(discovers).as("the probe, then one re-seed (a repeated initialize asks no more)").hasSize(2);
      assertThat(discovers.get(0).meta("io.modelcontextprotocol/clientCapabilities").toString()).isEqualTo("{}");
      assertThat(discovers.get(1).meta("io.modelcontextprotocol/clientCapabilities").toString())
          .isEqualTo("{\"sampling\":{},\"elicitation\":{}}");
    }
  }

  @Test
  void onlyWhatTheAckHonoursReachesTheHost() {
    try (Fake2026Server server = new Fake2026Server().listenHonour(Fake2026Server.honourOnly("toolsListChanged"));
        RelayHarness relay = modern(server)) {
      relay.initialize();
      Fake2026Listen listen = server.awaitOpenListens(1).get(0);
      listen.notify("notifications/prompts/list_changed", "{}"); // not honoured: the server should not have sent it
      listen.notify("notifications/tools/list_changed", "{}");
      assertThat(Jsons.parse(relay.next()).get("method").asString()).isEqualTo("notifications/tools/list_changed");
      pingAnswered(relay, 11);
    }
  }
}
