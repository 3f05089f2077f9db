package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Exchange;
import dev.mcpstdio.testing.Fake2026Listen;
import dev.mcpstdio.testing.Fake2026Mrtr;
import dev.mcpstdio.testing.Fake2026Server;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * A 2025-era host through the relay to a 2026-era server (the scriptable {@link Fake2026Server},
 * which validates every request as the TypeScript SDK v2 does): each translation rule of the 2026
 * era, seen at both ends.
 */
class RelayEra2026ComponentTest {

  static RelayHarness modern(Fake2026Server server) {
    return RelayHarness.start(server.url(),
        c -> c.withEra(new RelayConfig.EraSettings(ProtocolEra.Choice.MODERN, null)));
  }

  static String call(int id, String tool, String arguments) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":" + dev.mcpstdio.jsonrpc.Json.quote(tool)
        + ",\"arguments\":" + arguments + "}}";
  }

  @Test
  void initializeIsAnsweredFromDiscoverAndNothingOfThe2025HandshakeReachesTheServer() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      JsonNode answer = Jsons.parse(relay.initialize());
      assertThat(answer.at("/result/protocolVersion").asString()).as("the host's own version, echoed").isEqualTo("2025-11-25");
      assertThat(answer.at("/result/serverInfo/name").asString()).isEqualTo("fake-2026");
      assertThat(answer.at("/result/capabilities/tools/listChanged").asBoolean()).isTrue();
      assertThat(answer.at("/result/instructions").asString()).isEqualTo("A scriptable 2026-07-28 test server.");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      assertThat(Jsons.parse(relay.answerTo("1")).get("result").toString()).isEqualTo("{}");

      Fake2026Exchange discover = server.awaitPost("server/discover");
      assertThat(discover.header("mcp-method")).isEqualTo("server/discover");
      assertThat(discover.header("mcp-protocol-version")).isEqualTo("2026-07-28");
      assertThat(discover.meta("io.modelcontextprotocol/protocolVersion").asString()).isEqualTo("2026-07-28");
      assertThat(server.posts("initialize")).isEmpty();
      assertThat(server.posts("ping")).isEmpty();
      assertThat(server.exchanges()).allMatch(e -> !e.isNotification(), "no notification is POSTed");
      assertThat(server.anySessionIdSent()).isFalse();
      assertThat(server.failures()).isEmpty();
    }
  }

  @Test
  void aCallCarriesMetaAndRoutingHeadersAndItsResultLosesWhatA2025HostCannotTake() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
      relay.answerTo("2");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"météo\",\"arguments\":"
          + "{\"city\":\"Oslo\"},\"_meta\":{\"progressToken\":\"p3\"}}}");
      JsonNode answer = Jsons.parse(relay.answerTo("3"));
      assertThat(answer.has("result")).as(answer.toString()).isTrue();
      assertThat(answer.at("/result/resultType").isMissingNode()).as("resultType never reaches a 2025 host").isTrue();

      Fake2026Exchange sent = server.awaitPost("tools/call");
      assertThat(sent.header("mcp-method")).isEqualTo("tools/call");
      assertThat(sent.header("mcp-name")).as("a non-ASCII name in the base64 sentinel").isEqualTo("=?base64?bcOpdMOpbw==?=");
      assertThat(sent.header("mcp-protocol-version")).isEqualTo(sent.meta("io.modelcontextprotocol/protocolVersion").asString());
      assertThat(sent.meta("progressToken").asString()).as("the host's own _meta keys are kept").isEqualTo("p3");
      assertThat(sent.meta("io.modelcontextprotocol/clientCapabilities").toString()).isEqualTo("{\"sampling\":{},\"elicitation\":{}}");
      assertThat(sent.meta("io.modelcontextprotocol/clientInfo").at("/name").asString()).isEqualTo("test-host");
      assertThat(sent.meta("io.modelcontextprotocol/logLevel").asString()).as("logging/setLevel travels in _meta").isEqualTo("info");
      assertThat(server.posts("logging/setLevel")).isEmpty();
      assertThat(server.failures()).isEmpty();
    }
  }

  @Test
  void toolsAreMergedAcrossPagesWithoutInvalidAnnotationsOrCacheHintsAndCallsGetParamHeaders() {
    try (Fake2026Server server = new Fake2026Server().listCache(new Fake2026Server.CacheHints(300_000, "public"));
        RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
      JsonNode answer = Jsons.parse(relay.answerTo("4"));
      List<String> names = answer.at("/result/tools").valueStream().map(t -> t.get("name").asString()).toList();
      assertThat(names).containsExactly("echo", "météo", "headers", "progress", "hang");
      assertThat(answer.at("/result/ttlMs").isMissingNode()).isTrue();
      assertThat(answer.at("/result/cacheScope").isMissingNode()).isTrue();
      assertThat(answer.at("/result/nextCursor").isMissingNode()).isTrue();
      assertThat(server.posts("tools/list")).hasSize(3);

      relay.send(call(5, "headers", "{\"region\":\" us-west1\",\"count\":42,\"verbose\":false,\"where\":{\"zone\":\"b\"},\"note\":\"n\"}"));
      assertThat(Jsons.parse(relay.answerTo("5")).has("result")).isTrue();
      Fake2026Exchange sent = server.awaitPost("tools/call");
      assertThat(sent.header("mcp-param-region")).as("a leading space is encoded").isEqualTo("=?base64?IHVzLXdlc3Qx?=");
      assertThat(sent.header("mcp-param-count")).isEqualTo("42");
      assertThat(sent.header("mcp-param-verbose")).isEqualTo("false");
      assertThat(sent.header("mcp-param-zone")).isEqualTo("b");
      assertThat(server.failures()).isEmpty();
    }
  }

  @Test
  void aFirstRequestRefusedForItsVersionIsSentAgainWithTheVersionTheServerNames() {
    try (Fake2026Server server = new Fake2026Server().rejectNextVersion("2026-07-28"); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send(call(6, "echo", "{\"text\":\"hi\"}"));
      assertThat(Jsons.parse(relay.answerTo("6")).has("result")).isTrue();
      assertThat(server.posts("server/discover")).as("the refused probe, then the one taken").hasSize(2);
      assertThat(relay.log()).contains("trying again with 2026-07-28");
    }
  }

  @Test
  void aHeaderMismatchOnACallReListsTheToolsOnceAndTriesOnceMore() {
    try (Fake2026Server server = new Fake2026Server().toolsPageSize(100); RelayHarness relay = modern(server)) {
      relay.initialize();
      // The host never listed the tools: the first call goes without Mcp-Param-*, which the server refuses.
      relay.send(call(7, "headers", "{\"region\":\"eu\"}"));
      assertThat(Jsons.parse(relay.answerTo("7")).has("result")).isTrue();
      List<Fake2026Exchange> calls = server.awaitPosts("tools/call", 2);
      assertThat(calls.get(0).header("mcp-param-region")).isNull();
      assertThat(calls.get(1).header("mcp-param-region")).isEqualTo("eu");
      Fake2026Exchange relist = server.awaitPost("tools/list");
      assertThat(relist.idJson()).startsWith("\"mcp-stdio/param/");
      assertThat(relay.stdout.pending()).noneMatch(l -> l.contains("mcp-stdio/param/"));
    }
  }

  @Test
  void aCancelClosesTheCallsResponseStreamAndNothingForItReachesTheHost() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send(call(8, "hang", "{}"));
      Fake2026Exchange hanging = server.awaitPost("tools/call");
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":8}}");
      hanging.awaitClientClosed();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"ping\"}");
      assertThat(relay.next()).as("nothing for id 8 came first").contains("\"id\":9");
      assertThat(server.posts("notifications/cancelled")).as("a 2026 server ignores a POSTed cancel: none is sent").isEmpty();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"ping\"}");
      assertThat(relay.next()).contains("\"id\":10");
    }
  }

  @Test
  void anInputRequiredCallBecomesServerRequestsToTheHostAndIsRetriedWithTheAnswersAndItsState() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      Fake2026Mrtr mrtr = server.mrtr()
          .round("state-1", Fake2026Mrtr.elicit("confirm", "Send?"), Fake2026Mrtr.sample("memo", "Write a memo"))
          .round("state-2", Fake2026Mrtr.elicit("again", "Sure?"));
      server.tool("transfer", "{\"type\":\"object\"}", mrtr);
      relay.initialize();
      relay.send(call(11, "transfer", "{}"));
      // round 1: both questions at once
      JsonNode q1 = Jsons.parse(relay.next());
      JsonNode q2 = Jsons.parse(relay.next());
      assertThat(List.of(q1.get("method").asString(), q2.get("method").asString()))
          .containsExactlyInAnyOrder("elicitation/create", "sampling/createMessage");
      for (JsonNode q : List.of(q2, q1)) { // answered in the other order
        assertThat(q.get("id").asString()).startsWith("mcp-stdio/mrtr/");
        String result = q.get("method").asString().equals("elicitation/create")
            ? "{\"action\":\"accept\",\"content\":{\"yes\":true}}"
            : "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"memo\"},\"model\":\"m\"}";
        relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + q.get("id") + ",\"result\":" + result + "}");
      }
      JsonNode q3 = Jsons.parse(relay.next());
      assertThat(q3.get("method").asString()).isEqualTo("elicitation/create");
      assertThat(q3.at("/params/mode").isMissingNode()).as("a 2025 host takes a form without its mode").isTrue();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + q3.get("id") + ",\"result\":{\"action\":\"accept\",\"content\":{\"yes\":true}}}");
      JsonNode answer = Jsons.parse(relay.answerTo("11"));
      assertThat(answer.at("/result/content/0/text").asString()).as(answer.toString()).isEqualTo("done after 2 rounds");

      List<Fake2026Mrtr.Attempt> attempts = mrtr.awaitAttempts(3);
      assertThat(attempts).allMatch(a -> a.problems().isEmpty(), attempts.toString());
      assertThat(attempts.get(1).rawRequestState()).isEqualTo("\"state-1\"");
      assertThat(attempts.get(2).rawRequestState()).isEqualTo("\"state-2\"");
      assertThat(attempts.get(1).inputResponses().has("confirm")).isTrue();
      assertThat(attempts.get(1).inputResponses().has("memo")).isTrue();
      assertThat(attempts.stream().map(a -> a.exchange().idJson()).distinct()).as("a new id per retry").hasSize(3);
    }
  }

  @Test
  void aQuestionTheHostDidNotDeclareEndsTheCallWithOneClearError() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("roots_tool", "{\"type\":\"object\"}", server.mrtr().withoutCapabilityGate().round("s", Fake2026Mrtr.roots("r")));
      relay.initialize(); // declares sampling and elicitation, not roots
      relay.send(call(12, "roots_tool", "{}"));
      JsonNode answer = Jsons.parse(relay.answerTo("12"));
      assertThat(answer.at("/error/message").asString()).contains("MCP bridge").contains("roots");
    }
  }

  @Test
  void theHostsCancelDuringARoundTripCancelsItsQuestionsAndEndsInSilence() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      server.tool("ask", "{\"type\":\"object\"}", server.mrtr().round("s", Fake2026Mrtr.elicit("k", "Yes?")));
      relay.initialize();
      relay.send(call(13, "ask", "{}"));
      JsonNode question = Jsons.parse(relay.next());
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":13}}");
      JsonNode cancelled = Jsons.parse(relay.next());
      assertThat(cancelled.get("method").asString()).isEqualTo("notifications/cancelled");
      assertThat(cancelled.at("/params/requestId")).isEqualTo(question.get("id"));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\"}");
      assertThat(relay.next()).as("nothing for id 13").contains("\"id\":14");
    }
  }

  @Test
  void listChangesComeFromTheListenStreamOncePerChangeWithoutTheSubscriptionId() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      Fake2026Listen listen = server.awaitOpenListens(1).get(0);
      assertThat(listen.filter().toString()).contains("toolsListChanged").contains("promptsListChanged")
          .contains("resourcesListChanged");
      assertThat(server.pushToolsListChanged()).isEqualTo(1);
      String line = relay.next();
      assertThat(Jsons.parse(line).get("method").asString()).isEqualTo("notifications/tools/list_changed");
      assertThat(line).doesNotContain("subscriptionId");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":15,\"method\":\"ping\"}");
      assertThat(relay.next()).as("exactly one notification per change").contains("\"id\":15");
    }
  }

  @Test
  void subscriptionsReopenTheResourceStreamClosingTheOldOneFirst() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      server.awaitOpenListens(1);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":16,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"db://orders/42\"}}");
      assertThat(Jsons.parse(relay.answerTo("16")).get("result").toString()).isEqualTo("{}");
      Fake2026Listen first = server.awaitOpenListens(2).get(1);
      assertThat(first.filter().toString()).contains("db://orders/42");
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":17,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"db://orders/43\"}}");
      relay.answerTo("17");
      first.awaitClientClosed();
      Fake2026Listen second = server.awaitListens(3).get(2);
      assertThat(second.filter().toString()).contains("db://orders/42").contains("db://orders/43");
      server.awaitOpenListens(2);
      assertThat(server.pushResourceUpdated("db://orders/42")).isEqualTo(1);
      JsonNode updated = Jsons.parse(relay.next());
      assertThat(updated.get("method").asString()).isEqualTo("notifications/resources/updated");
      assertThat(updated.at("/params/uri").asString()).isEqualTo("db://orders/42");
      assertThat(server.posts("resources/subscribe")).isEmpty();
    }
  }

  /**
   * A 2025 host may provoke an update the moment its subscribe is answered (the official Java SDK
   * host of Era2026RelayIT does): so the answer waits for the resource stream that asks for the
   * URI to be acknowledged, and the very next update reaches the host.
   */
  @Test
  void aSubscribeIsAnsweredOnceTheResourceStreamAskingForItIsAcknowledged() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      server.awaitOpenListens(1);
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":18,\"method\":\"resources/subscribe\",\"params\":{\"uri\":\"db://orders/44\"}}");
      assertThat(Jsons.parse(relay.answerTo("18")).get("result").toString()).isEqualTo("{}");
      assertThat(server.pushResourceUpdated("db://orders/44")).as("a listen for the URI is open when the host is answered\n"
          + server.describe()).isEqualTo(1);
      JsonNode updated = Jsons.parse(relay.next());
      assertThat(updated.get("method").asString()).isEqualTo("notifications/resources/updated");
      assertThat(updated.at("/params/uri").asString()).isEqualTo("db://orders/44");
    }
  }

  @Test
  void theRelaysOwnIdsAreRefusedFromTheHost() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/mrtr/1/1\",\"method\":\"ping\"}");
      assertThat(Jsons.parse(relay.answerTo("\"mcp-stdio/mrtr/1/1\"")).at("/error/code").asInt()).isEqualTo(-32600);
    }
  }

  @Test
  void aHostThatSpeaks2026IsRelayedAsItIs() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = modern(server)) {
      String discover = "{\"jsonrpc\":\"2.0\",\"id\":\"d\",\"method\":\"server/discover\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},"
          + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"v2\",\"version\":\"2\"}}}}";
      relay.send(discover);
      JsonNode answer = Jsons.parse(relay.answerTo("\"d\""));
      assertThat(answer.at("/result/resultType").asString()).as("a 2026 host sees the 2026 result").isEqualTo("complete");
      assertThat(answer.at("/result/supportedVersions/0").asString()).isEqualTo("2026-07-28");
      Fake2026Exchange relayed = server.awaitExchange("the host's discover", e -> "\"d\"".equals(e.idJson()));
      assertThat(relayed.text()).as("the host's bytes, unchanged").isEqualTo(discover);
      assertThat(relayed.header("mcp-method")).isEqualTo("server/discover");
    }
  }
}
