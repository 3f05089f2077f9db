package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.JsonNode;

/**
 * Interop of the relay's 2026-07-28 era with real 2026 peers ({@link Era2026Peers}: the TypeScript
 * SDK v2, {@code @modelcontextprotocol/server} 2.4.0 and {@code @modelcontextprotocol/client}
 * 2.4.0, pinned in {@code src/test/node/era2026}).
 *
 * <ul>
 *   <li>A 2025-era host, the official Java SDK (it stops at 2025-11-25) over stdio spawning the
 *       relay jar, against the SDK v2 server as a 2026-only server and as a dual-era one: the relay
 *       must speak 2026 to both (auto-detected), answer {@code initialize} itself, bridge the
 *       server's {@code input_required} answers (elicitation, sampling, roots; three questions in
 *       one round; three rounds) to real requests on stdout, route {@code Mcp-Param-*} headers, drop
 *       the tool with an invalid {@code x-mcp-header}, deliver each list_changed and resource update
 *       once, and cancel by closing the response stream so the server's handler really stops.
 *   <li>The SDK v2 client as a 2026 host spawning the relay: relayed unchanged (the relay adds only
 *       the routing headers it derives from the body), every step works; and a raw 2026 host on
 *       the relay's stdio, for what that client cannot show: progress before its result, and a
 *       cancel that closes the response stream and stops the server's handler.
 *   <li>{@code --protocol-era legacy} against the dual server: the 2025 era with sessions, where
 *       the server's requests are real server-to-client requests.
 *   <li>Era memory: a server found to speak 2026 is remembered, and probed again on the next spawn
 *       (its discover answers the host's initialize; only a 2025 server skips the probe).
 * </ul>
 *
 * <p>Each test gets its own state folder ({@code XDG_STATE_HOME}), so no era remembered by another
 * test decides this one's; the relay runs at {@code --log-level debug} and its stderr is kept for
 * failure messages.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class Era2026RelayIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final Duration CLIENT_RUN = Duration.ofSeconds(150);
  private static final String AUTO_2026 = "protocol era: 2026-07-28 (auto-detected)";
  private static final String ROOT = SdkHost.ROOT;

  @TempDir
  Path state;

  // ------------------------------------------------------------------ 2025-era host, 2026 server

  @ParameterizedTest(name = "{0} server")
  @EnumSource(Era2026Peers.Mode.class)
  void a2025HostReachesThe2026ServerThroughTheRelay(Era2026Peers.Mode mode) {
    try (Era2026Peers.Server server = Era2026Peers.server(mode);
        SdkHost host = SdkHost.spawn(server.url(), state)) {
      McpSchema.InitializeResult init = host.client.initialize();
      String why = host.why(server);
      Await.until("the default auto to probe and find 2026" + why, WAIT, () -> host.stderrText().contains(AUTO_2026));
      assertThat(init.protocolVersion()).as("the host's own version echoed" + why).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(init.serverInfo().name()).isEqualTo("mcpstdio-era2026-peer");
      assertThat(init.capabilities().tools()).isNotNull();
      assertThat(init.capabilities().resources().subscribe()).isTrue();

      scenario(host, server, true);

      assertThat(server.log()).as("no initialize reached the server" + host.why(server)).doesNotContain("method=initialize");
      List<String> posts = server.log().lines().filter(l -> l.contains("] POST /mcp")).toList();
      assertThat(posts).as("2026-era POSTs" + host.why(server)).isNotEmpty()
          .allSatisfy(l -> assertThat(l).as("no session, a Mcp-Method").contains("session=-").doesNotContain("method=- "));
      assertThat(server.log()).as("the listen stream was opened").contains("method=subscriptions/listen");
      assertThat(host.closeAndAwaitExit()).as("relay exit" + host.why(server)).isZero();
    }
  }

  /** {@code --protocol-era legacy} against the dual server: the 2025 era, with a session and real server requests. */
  @Test
  void legacyEraAgainstTheDualServerSpeaks2025WithSessions() {
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.DUAL);
        SdkHost host = SdkHost.spawn(server.url(), state, "--protocol-era", "legacy")) {
      McpSchema.InitializeResult init = host.client.initialize();
      String why = host.why(server);
      assertThat(init.protocolVersion()).as(why).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(host.stderrText()).as("no probe" + why).doesNotContain("protocol era: 2026-07-28");
      assertThat(server.log()).as("a 2025 session was minted" + why).contains("2025 session ")
          .doesNotContain("method=server/discover");

      scenario(host, server, false);

      assertThat(host.closeAndAwaitExit()).as("relay exit" + host.why(server)).isZero();
      Await.until("the relay to delete its 2025 session" + host.why(server), WAIT,
          () -> server.log().lines().anyMatch(l -> l.matches(".*2025 session \\S+ closed.*")));
    }
  }

  /**
   * Everything a 2025 host does with the peer's tools, in either era. {@code era2026} says what
   * differs: only the 2026 era routes {@code Mcp-Param-*} headers and drops the tool with an
   * invalid annotation (the 2025 wire is frozen: tools/list passes as it is).
   */
  private static void scenario(SdkHost host, Era2026Peers.Server server, boolean era2026) {
    McpSyncClient client = host.client;

    List<String> tools = client.listTools().tools().stream().map(McpSchema.Tool::name).toList();
    assertThat(tools).as("tools/list" + host.why(server))
        .contains("echo", "progress", "ask_name", "summarize", "list_roots", "multi_input", "multi_round",
            "slow", "was_aborted", "add_tool", "bump", "regional_echo");
    if (era2026) {
      assertThat(tools).as("the tool with an invalid x-mcp-header is dropped").doesNotContain("bad_header");
    } else {
      assertThat(tools).as("the 2025 era passes tools/list as it is").contains("bad_header");
    }

    assertThat(text(call(client, "echo", Map.of("text", "héllo ✓")))).isEqualTo("héllo ✓");

    McpSchema.CallToolResult progressed = client.callTool(McpSchema.CallToolRequest.builder().name("progress")
        .arguments(Map.of("steps", 3)).progressToken("relay-progress").build());
    assertThat(text(progressed)).isEqualTo("done");
    Await.until("3 progress notifications" + host.why(server), WAIT, () -> host.progress.size() >= 3);
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progressToken).containsOnly("relay-progress");
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);

    assertThat(text(call(client, "ask_name", Map.of()))).as("elicitation" + host.why(server)).isEqualTo("Hello, Grace!");
    assertThat(host.elicitations).extracting(McpSchema.ElicitFormRequest::message).containsExactly("What is your name?");
    assertThat(text(call(client, "summarize", Map.of("text", "a long story")))).as("sampling" + host.why(server))
        .isEqualTo("summary: java sampled: Summarize: a long story");
    assertThat(host.samplings).hasSize(1);
    assertThat(text(call(client, "list_roots", Map.of()))).as("roots" + host.why(server)).isEqualTo("[\"" + ROOT + "\"]");

    // The bridge asks a round's questions at once: the host holds its elicitation and sampling
    // answers until all three questions are on its stdin (a bridge asking one at a time would
    // wait for the first answer, and the hold would time out).
    host.holdUntilRoundAsked(era2026);
    assertThat(Jsons.parse(text(call(client, "multi_input", Map.of()))).toString()).as("three inputs" + host.why(server))
        .isEqualTo("{\"name\":\"Grace\",\"summary\":\"java sampled: Summarize: three inputs\",\"roots\":[\"" + ROOT + "\"]}");
    if (era2026) {
      assertThat(host.roundAsked()).as("elicitation, sampling and roots asked in one round" + host.why(server))
          .containsExactlyInAnyOrder("elicitation/create", "sampling/createMessage", "roots/list");
    }

    host.elicitations.clear();
    assertThat(text(call(client, "multi_round", Map.of()))).as("three rounds" + host.why(server))
        .isEqualTo("{\"rounds\":3,\"answers\":[\"Grace\",\"Grace\",\"Grace\"]}");
    assertThat(host.elicitations).extracting(McpSchema.ElicitFormRequest::message)
        .containsExactly("Round 1: name?", "Round 2: name?", "Round 3: name?");

    assertThat(text(call(client, "regional_echo", Map.of("region", "eu-west-1")))).as("x-mcp-header" + host.why(server))
        .isEqualTo(era2026 ? "region=eu-west-1 header=eu-west-1" : "region=eu-west-1 header=(none)");

    // list_changed: each change reaches the host exactly once (checked again at the end, when any
    // duplicate of a reopened listen stream would long have arrived).
    String first = "relay_" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(text(call(client, "add_tool", Map.of("name", first)))).isEqualTo("added " + first);
    Await.until("a tools/list_changed" + host.why(server), WAIT, () -> host.count("notifications/tools/list_changed") >= 1);
    assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).contains(first);
    assertThat(text(call(client, first, Map.of()))).isEqualTo("dynamic " + first);

    // a resource subscription: bump's update reaches the host
    client.subscribeResource(new McpSchema.SubscribeRequest("demo://counter"));
    assertThat(text(call(client, "bump", Map.of()))).startsWith("counter=");
    Await.until("a resources/updated" + host.why(server), WAIT, () -> host.count("notifications/resources/updated") >= 1);
    assertThat(host.updatedUris).containsExactly("demo://counter");
    McpSchema.ReadResourceResult read = client.readResource(new McpSchema.ReadResourceRequest("demo://counter"));
    assertThat(((McpSchema.TextResourceContents) read.contents().getFirst()).text()).isNotEqualTo("0");

    String second = "relay_" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(text(call(client, "add_tool", Map.of("name", second)))).isEqualTo("added " + second);
    Await.until("a second tools/list_changed" + host.why(server), WAIT,
        () -> host.count("notifications/tools/list_changed") >= 2);

    cancelSlow(host, server, era2026);

    assertThat(host.count("notifications/tools/list_changed")).as("one list_changed per change" + host.why(server)).isEqualTo(2);
    assertThat(host.count("notifications/resources/updated")).as("one update per bump" + host.why(server)).isEqualTo(1);
    assertThat(host.stderrText()).as(host.why(server)).doesNotContain("internal relay error");
  }

  /**
   * A cancel that really stops the server's handler: {@code slow} (sent on the host's own transport,
   * so the test knows its id; the Java SDK has no cancel API) is seen running, the host sends
   * {@code notifications/cancelled}, the server's handler reports "aborted", and nothing for that
   * id reaches the host, not even after a later call has been answered. In the 2026 era the relay
   * cancels by closing the call's response stream (nothing is POSTed); in the 2025 era it POSTs
   * the cancel and the server's session aborts the handler.
   */
  private static void cancelSlow(SdkHost host, Era2026Peers.Server server, boolean era2026) {
    String key = "k" + UUID.randomUUID();
    String id = "slow-" + key;
    host.send(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, "tools/call", id,
        Map.of("name", "slow", "arguments", Map.of("key", key))));
    Await.until("slow to run" + host.why(server), WAIT, () -> fate(host, key).equals("started"));
    host.send(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled",
        Map.of("requestId", id, "reason", "the test cancels it")));
    Await.until("slow's handler to be aborted" + host.why(server), WAIT, () -> fate(host, key).equals("aborted"));
    assertThat(server.log()).contains("slow " + key + ": aborted");
    if (era2026) {
      assertThat(host.stderrText()).as("the 2026 era cancels by closing the response stream" + host.why(server))
          .contains("request \"" + id + "\" cancelled by the host: closing its response stream");
    }
    // slow has ended on the server; a call answered after that is answered after anything it sent
    assertThat(text(call(host.client, "echo", Map.of("text", "after the cancel")))).isEqualTo("after the cancel");
    assertThat(host.wire).as("no answer for the cancelled id" + host.why(server))
        .noneMatch(w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCResponse r && id.equals(r.id()));
  }

  private static String fate(SdkHost host, String key) {
    return text(call(host.client, "was_aborted", Map.of("key", key)));
  }

  // ------------------------------------------------------------------ 2026 host through the relay

  @ParameterizedTest(name = "{0} server")
  @EnumSource(Era2026Peers.Mode.class)
  void a2026HostIsRelayedUnchanged(Era2026Peers.Mode mode) {
    try (Era2026Peers.Server server = Era2026Peers.server(mode)) {
      List<String> relay = new ArrayList<>(List.of("/usr/bin/env", "XDG_STATE_HOME=" + state, JarProcess.java()));
      relay.addAll(JarProcess.JVM_FLAGS);
      relay.addAll(List.of("-jar", JarProcess.jar().toString(), "--log-level", "debug", server.url()));
      Era2026Peers.ClientRun run = Era2026Peers.client(relay, CLIENT_RUN);
      String why = run + "\nserver stderr:\n" + server.log();

      assertThat(run.steps()).as(why).allSatisfy(s -> assertThat(s.path("ok").asBoolean()).as(s.toString() + why).isTrue());
      assertThat(run.exitCode()).as("client exit" + why).isZero();
      JsonNode connect = run.step("connect");
      assertThat(connect.path("era").asString()).as(why).isEqualTo("modern");
      assertThat(connect.path("protocolVersion").asString()).isEqualTo("2026-07-28");
      assertThat(connect.path("serverInfo").path("name").asString()).isEqualTo("mcpstdio-era2026-peer");
      List<String> tools = run.step("tools/list").path("tools").valueStream().map(JsonNode::asString).toList();
      assertThat(tools).contains("echo", "regional_echo", "multi_round").doesNotContain("bad_header");
      assertThat(text(run, "echo")).isEqualTo("héllo ✓");
      // The SDK v2 client over stdio runs notification handlers a microtask later but a response at
      // once, so progress read in the same chunk as its result finds its handler gone ("unknown
      // token"): how many it counts is a race in the client. That the relay writes all three
      // before the result is shown on raw stdout by a2026HostsProgressAndCancelCrossTheRelay.
      assertThat(text(run, "progress")).isEqualTo("done");
      assertThat(text(run, "ask_name")).isEqualTo("Hello, Ada!");
      assertThat(text(run, "summarize")).isEqualTo("summary: sampled: Summarize: a long story");
      assertThat(text(run, "list_roots")).isEqualTo("[\"file:///tmp/era2026-root\"]");
      assertThat(Jsons.parse(text(run, "multi_input")).toString())
          .isEqualTo("{\"name\":\"Ada\",\"summary\":\"sampled: Summarize: three inputs\",\"roots\":[\"file:///tmp/era2026-root\"]}");
      assertThat(text(run, "multi_round")).isEqualTo("{\"rounds\":3,\"answers\":[\"Ada\",\"Ada\",\"Ada\"]}");
      assertThat(run.step("multi_round").path("elicitations").asInt()).isEqualTo(3);
      assertThat(text(run, "regional_echo")).isEqualTo("region=eu-west-1 header=eu-west-1");
      JsonNode listen = run.step("listen");
      assertThat(listen.path("honored").path("toolsListChanged").asBoolean()).as(why).isTrue();
      assertThat(listen.path("updatedUri").asString()).isEqualTo("demo://counter");
      assertThat(run.step("tools/list-after").path("listed").asBoolean()).as(why).isTrue();
      assertThat(text(run, "prompt")).isEqualTo("Hello, relay!");
      assertThat(Integer.parseInt(text(run, "resource"))).isPositive();
      assertThat(run.step("done").path("failed").isEmpty()).as(why).isTrue();
      assertThat(server.log()).as("the host's own discover went through" + why).contains("method=server/discover")
          .doesNotContain("method=initialize");
    }
  }

  /**
   * A 2026 host's raw stdio through the relay: its own {@code server/discover} and {@code _meta}
   * go out unchanged, progress reaches stdout before its result (which keeps {@code resultType}:
   * the host speaks 2026), and its {@code notifications/cancelled} closes the call's response
   * stream, so the server's handler really stops and nothing for that id reaches stdout.
   */
  @Test
  void a2026HostsProgressAndCancelCrossTheRelay() {
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.MODERN);
        JarProcess relay = JarProcess.start(List.of(), List.of("--log-level", "debug", server.url()),
            Map.of("XDG_STATE_HOME", state.toString()))) {
      List<JsonNode> seen = new ArrayList<>();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" + META_2026 + "}}}");
      JsonNode discover = answer(relay, server, "1", seen);
      assertThat(discover.path("result").path("supportedVersions").toString()).as(rawWhy(relay, server)).contains("2026-07-28");

      relay.send(call2026(2, "progress", "{\"steps\":3}", ",\"progressToken\":\"raw-progress\""));
      JsonNode done = answer(relay, server, "2", seen);
      assertThat(done.path("result").path("content").get(0).path("text").asString()).isEqualTo("done");
      assertThat(done.path("result").path("resultType").asString()).as("a 2026 host sees resultType").isEqualTo("complete");
      assertThat(seen.stream().filter(m -> "notifications/progress".equals(m.path("method").asString(""))))
          .as("progress before its result" + rawWhy(relay, server))
          .extracting(m -> m.path("params").path("progressToken").asString() + "=" + m.path("params").path("progress").asInt())
          .containsExactly("raw-progress=1", "raw-progress=2", "raw-progress=3");

      String key = "k" + UUID.randomUUID();
      relay.send(call2026(3, "slow", "{\"key\":\"" + key + "\"}", ""));
      int[] next = {100};
      Await.until("slow to run" + rawWhy(relay, server), WAIT, () -> rawFate(relay, server, key, next[0]++, seen).equals("started"));
      relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3,"
          + "\"reason\":\"the test cancels it\"}}");
      Await.until("slow's handler to be aborted" + rawWhy(relay, server), WAIT, () -> rawFate(relay, server, key, next[0]++, seen).equals("aborted"));
      relay.send(call2026(4, "echo", "{\"text\":\"after the cancel\"}", ""));
      assertThat(answer(relay, server, "4", seen).path("result").path("content").get(0).path("text").asString())
          .isEqualTo("after the cancel");
      assertThat(seen).as("nothing for the cancelled id" + rawWhy(relay, server)).noneMatch(m -> m.path("id").asString("").equals("3")
          || (m.path("id").isNumber() && m.path("id").asInt() == 3));
      assertThat(relay.log()).as(rawWhy(relay, server)).contains("cancelled by the host: closing its response stream");
      relay.closeStdin();
      assertThat(relay.awaitExit(WAIT)).as("relay exit\n" + relay.log()).isZero();
    }
  }

  private static final String META_2026 = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{},"
      + "\"io.modelcontextprotocol/clientInfo\":{\"name\":\"raw-2026-host\",\"version\":\"1\"}";

  /** A 2026-era tools/call line; {@code moreMeta} is added inside {@code _meta} (",\"k\":v" or ""). */
  private static String call2026(int id, String tool, String arguments, String moreMeta) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + arguments + "," + META_2026 + moreMeta + "}}}";
  }

  /** Reads stdout until the answer for {@code id} (its JSON text), noting every line in {@code seen}. */
  private static JsonNode answer(JarProcess relay, Era2026Peers.Server server, String id, List<JsonNode> seen) {
    while (true) {
      String line;
      try {
        line = relay.stdout.next(WAIT);
      } catch (AssertionError e) {
        throw new AssertionError("no answer for id " + id + ": " + e.getMessage() + "\nseen: " + seen
            + "\nrelay stderr:\n" + relay.log() + "\nserver stderr:\n" + server.log(), e);
      }
      JsonNode message = Jsons.parse(line);
      seen.add(message);
      if (message.has("id") && message.path("id").toString().equals(id) && !message.has("method")) {
        return message;
      }
    }
  }

  private static String rawWhy(JarProcess relay, Era2026Peers.Server server) {
    return "\nrelay stderr:\n" + relay.log() + "\nserver stderr:\n" + server.log();
  }

  private static String rawFate(JarProcess relay, Era2026Peers.Server server, String key, int id, List<JsonNode> seen) {
    relay.send(call2026(id, "was_aborted", "{\"key\":\"" + key + "\"}", ""));
    return answer(relay, server, String.valueOf(id), seen).path("result").path("content").get(0).path("text").asString();
  }

  private static String text(Era2026Peers.ClientRun run, String step) {
    JsonNode line = run.step(step);
    assertThat(line.path("ok").asBoolean()).as("step " + step + run).isTrue();
    return line.path("text").asString();
  }

  // ------------------------------------------------------------------ era memory

  /**
   * A 2026-era server is remembered, but its discover is what the host's initialize is answered
   * with anyway: the next spawn probes again (no "remembered" shortcut, which is for 2025 servers).
   */
  @Test
  void aRemembered2026ServerIsProbedAgainOnTheNextSpawn() throws Exception {
    try (Era2026Peers.Server server = Era2026Peers.server(Era2026Peers.Mode.MODERN)) {
      for (int spawn = 1; spawn <= 2; spawn++) {
        try (JarProcess relay = JarProcess.start(List.of(), List.of("--log-level", "debug", server.url()),
            Map.of("XDG_STATE_HOME", state.toString()))) {
          relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
              + "\"capabilities\":{},\"clientInfo\":{\"name\":\"memory-it\",\"version\":\"1\"}}}");
          JsonNode init = Jsons.parse(relay.stdout.next(WAIT));
          String why = "\nspawn " + spawn + " relay stderr:\n" + relay.log() + "\nserver stderr:\n" + server.log();
          assertThat(init.path("result").path("protocolVersion").asString()).as(why).isEqualTo("2025-06-18");
          Await.until("the era line on stderr (it is read on a thread of its own)" + why, WAIT,
              () -> relay.log().contains(AUTO_2026));
          assertThat(relay.log()).as(why).doesNotContain("(remembered");
          relay.closeStdin();
          assertThat(relay.awaitExit(WAIT)).as(why).isZero();
        }
        Path memory = state.resolve("mcp-stdio/protocol-eras");
        assertThat(Files.readAllLines(memory)).as("one server, remembered as 2026").singleElement()
            .satisfies(line -> assertThat(line).startsWith("modern\t").doesNotContain("127.0.0.1"));
      }
      assertThat(server.log().lines().filter(l -> l.contains("method=server/discover")).count())
          .as("one probe per spawn").isEqualTo(2);
    }
  }

  // ------------------------------------------------------------------ helpers

  private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
    return client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).as(String.valueOf(result)).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }
}
