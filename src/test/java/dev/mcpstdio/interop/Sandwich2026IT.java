package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import io.modelcontextprotocol.client.McpSyncClient;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.ProtocolVersions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The 2026-era sandwich, end to end and all real processes: the official Java SDK as a 2025-era
 * stdio host ({@link SdkHost}) → the relay (packaged jar, default era: auto, which finds 2026-07-28
 * at serve) → {@code serve} (packaged jar, its 2026-era path: stateless POSTs, a pool of children)
 * → a 2025-era stdio child on the TypeScript SDK v1 ({@code src/test/node/sandwich-stdio-server.mjs},
 * which does not know {@code server/discover}).
 *
 * <p>The child's server-to-client requests (elicitation, sampling, roots) cross as MRTR both ways:
 * serve's reverse bridge turns them into an {@code input_required} answer, the relay's bridge
 * turns that into real 2025 requests to the host and retries with {@code inputResponses}. Also:
 * progress under the host's own token, before its result; a list change reaching the host once,
 * through the relay's {@code subscriptions/listen} stream on serve's listen hub; and a cancel:
 * the host's {@code notifications/cancelled} makes the relay close the call's response stream,
 * serve sends the child {@code notifications/cancelled} under the id it gave the call, the
 * child's handler aborts, and no answer for the cancelled id reaches the host.
 *
 * <p>One serve and one relay; the child's state that must outlive one process of serve's pool
 * (slow's fates, the tools added) lives in a folder of this test's.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class Sandwich2026IT {

  private static final Duration WAIT = SdkHost.WAIT;
  private static final String ROOT = SdkHost.ROOT;
  private static final String AUTO_2026 = "protocol era: 2026-07-28 (auto-detected)";

  @TempDir
  Path relayState;

  @TempDir
  Path childState;

  @Test
  void a2025HostReachesA2025ChildThroughTheRelayAndServeIn2026Era() {
    Path script = NodePeers.interopPeers().resolve("sandwich-stdio-server.mjs");
    ServeProcess serve = ServeProcess.start("-v", "--", NodePeers.node().toString(), script.toString(), childState.toString());
    try (SdkHost host = SdkHost.spawn(serve.url(), relayState)) {
      McpSchema.InitializeResult init = host.client.initialize();
      String why = why(host, serve);
      Await.until("the relay's default (auto) to find 2026 at serve" + why, WAIT, () -> host.stderrText().contains(AUTO_2026));
      assertThat(init.protocolVersion()).as("the host's own version" + why).isEqualTo(ProtocolVersions.MCP_2025_11_25);
      assertThat(init.serverInfo().name()).as("the child's serverInfo, through serve's discover" + why)
          .isEqualTo("mcpstdio-sandwich-child");
      assertThat(init.capabilities().tools()).isNotNull();
      assertThat(serveLog(serve)).as("serve probed the child: a 2025-era server" + why)
          .contains("pool: " + NodePeers.node() + " is a 2025-era server");

      steps(host, serve);

      String log = serveLog(serve);
      assertThat(log).as("no 2025 session at serve" + why(host, serve)).doesNotContain("[session ").doesNotContain("] started ");
      List<String> access = log.lines().filter(l -> l.contains("http: ")).toList();
      assertThat(access).as("serve's access log" + why(host, serve)).isNotEmpty()
          .allSatisfy(l -> assertThat(l).as("a stateless 2026-era POST, no Mcp-Session-Id").contains("\"POST /mcp\"")
              .doesNotContain(" session "));
      assertThat(host.stderrText()).as(why(host, serve)).doesNotContain("internal relay error").doesNotContain("Mcp-Session-Id");
      assertThat(host.closeAndAwaitExit()).as("relay exit" + why(host, serve)).isZero();
    } finally {
      serve.stop();
    }
  }

  /** Every step a 2025 host takes, in order; each result checked exactly. */
  private static void steps(SdkHost host, ServeProcess serve) {
    McpSyncClient client = host.client;
    assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).as("tools/list" + why(host, serve))
        .containsExactlyInAnyOrder("echo", "progress", "ask_name", "summarize", "list_roots", "multi_input", "slow",
            "was_aborted", "add_tool");
    assertThat(text(call(client, "echo", Map.of("text", "héllo ✓")))).isEqualTo("héllo ✓");

    progress(host, serve);

    int from = host.wire.size();
    assertThat(text(call(client, "ask_name", Map.of()))).as("elicitation" + why(host, serve)).isEqualTo("Hello, Grace!");
    assertThat(asked(host, from)).as("a real elicitation request reached the host").containsExactly("elicitation/create");
    assertThat(host.elicitations).extracting(McpSchema.ElicitFormRequest::message).containsExactly("What is your name?");

    from = host.wire.size();
    assertThat(text(call(client, "summarize", Map.of("text", "a long story")))).as("sampling" + why(host, serve))
        .isEqualTo("summary: java sampled: Summarize: a long story");
    assertThat(asked(host, from)).as("a real sampling request reached the host").containsExactly("sampling/createMessage");
    assertThat(host.samplings).singleElement().satisfies(s -> assertThat(s.maxTokens()).isEqualTo(50));

    from = host.wire.size();
    assertThat(text(call(client, "list_roots", Map.of()))).as("roots" + why(host, serve)).isEqualTo("[\"" + ROOT + "\"]");
    assertThat(asked(host, from)).as("a real roots request reached the host").containsExactly("roots/list");

    // The child asks all three at once; serve's bridge batches them into one round, so the host
    // holds its elicitation and sampling answers until all three questions are on its stdin (a
    // round asked one question at a time would wait for the first answer, and the hold time out).
    host.elicitations.clear();
    host.holdUntilRoundAsked(true);
    assertThat(Jsons.parse(text(call(client, "multi_input", Map.of()))).toString()).as("three inputs" + why(host, serve))
        .isEqualTo("{\"name\":\"Grace\",\"summary\":\"java sampled: Summarize: three inputs\",\"roots\":[\"" + ROOT + "\"]}");
    assertThat(host.roundAsked()).as("elicitation, sampling and roots asked in one round" + why(host, serve))
        .containsExactlyInAnyOrder("elicitation/create", "sampling/createMessage", "roots/list");
    assertThat(host.elicitations).extracting(McpSchema.ElicitFormRequest::message).containsExactly("Name, please");

    listChanges(host, serve);
    cancel(host, serve);

    assertThat(host.count("notifications/tools/list_changed")).as("one list_changed per change" + why(host, serve)).isEqualTo(2);
  }

  /** Progress under the host's own token, each before the call's answer. */
  private static void progress(SdkHost host, ServeProcess serve) {
    int from = host.wire.size();
    McpSchema.CallToolResult done = host.client.callTool(McpSchema.CallToolRequest.builder().name("progress")
        .arguments(Map.of("steps", 3)).progressToken("sandwich-progress").build());
    assertThat(text(done)).isEqualTo("done");
    Await.until("3 progress notifications" + why(host, serve), WAIT, () -> host.progress.size() >= 3);
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progressToken).containsOnly("sandwich-progress");
    assertThat(host.progress).extracting(McpSchema.ProgressNotification::progress).containsExactlyInAnyOrder(1.0, 2.0, 3.0);
    List<SdkHost.Wire> slice = host.wireSince(from);
    Object id = slice.stream().filter(w -> !w.inbound() && w.message() instanceof McpSchema.JSONRPCRequest r
        && r.method().equals("tools/call")).map(w -> ((McpSchema.JSONRPCRequest) w.message()).id()).findFirst().orElseThrow();
    int answerAt = indexOf(slice, w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCResponse r && Objects.equals(r.id(), id));
    List<Integer> progressAt = new java.util.ArrayList<>();
    for (int i = 0; i < slice.size(); i++) {
      if (slice.get(i).inbound() && slice.get(i).message() instanceof McpSchema.JSONRPCNotification n
          && n.method().equals("notifications/progress")) {
        progressAt.add(i);
        assertThat(((Map<?, ?>) n.params()).get("progressToken")).as("the token on the host's wire").isEqualTo("sandwich-progress");
      }
    }
    assertThat(progressAt).as("three progress notifications before the answer" + why(host, serve)).hasSize(3)
        .allSatisfy(i -> assertThat(i).isLessThan(answerAt));
  }

  /**
   * Two added tools: each change reaches the host once, through the relay's listen stream on
   * serve's listen hub; the new tool is listed and called (on whichever child of the pool).
   */
  private static void listChanges(SdkHost host, ServeProcess serve) {
    McpSyncClient client = host.client;
    String first = "sw_" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(text(call(client, "add_tool", Map.of("name", first)))).isEqualTo("added " + first);
    Await.until("a tools/list_changed" + why(host, serve), WAIT, () -> host.count("notifications/tools/list_changed") >= 1);
    assertThat(client.listTools().tools()).extracting(McpSchema.Tool::name).contains(first);
    assertThat(text(call(client, first, Map.of()))).isEqualTo("dynamic " + first);

    String second = "sw_" + UUID.randomUUID().toString().substring(0, 8);
    assertThat(text(call(client, "add_tool", Map.of("name", second)))).isEqualTo("added " + second);
    Await.until("a second tools/list_changed" + why(host, serve), WAIT, () -> host.count("notifications/tools/list_changed") >= 2);
    assertThat(serveLog(serve)).as("the relay listens at serve's hub").doesNotContain("listen stream refused");
    assertThat(host.stderrText()).as("the relay's listen stream stayed up" + why(host, serve))
        .doesNotContain("listen stream failed").doesNotContain("listen stream refused");
  }

  /**
   * {@code slow}, sent on the host's own transport (so the test knows its id: the Java SDK has no
   * cancel API), is seen running; the host cancels it; the relay closes its response stream, serve
   * tells the child under the call's remapped id, the child's handler aborts; a later call is
   * answered, and nothing for the cancelled id ever reached the host.
   */
  private static void cancel(SdkHost host, ServeProcess serve) {
    String key = "k" + UUID.randomUUID();
    String id = "slow-" + key;
    host.send(new McpSchema.JSONRPCRequest(McpSchema.JSONRPC_VERSION, "tools/call", id,
        Map.of("name", "slow", "arguments", Map.of("key", key))));
    Pattern startedAs = Pattern.compile("slow " + key + ": started as request \"(mcp-stdio/serve/[^\"]+)\"");
    String childId = Await.value("slow to run at the child, under an id of serve's" + why(host, serve), WAIT, () -> {
      Matcher m = startedAs.matcher(serveLog(serve));
      return m.find() ? m.group(1) : null;
    });
    assertThat(fate(host, key)).as("slow's fate, asked on another child of the pool" + why(host, serve)).isEqualTo("started");

    host.send(new McpSchema.JSONRPCNotification(McpSchema.JSONRPC_VERSION, "notifications/cancelled",
        Map.of("requestId", id, "reason", "the test cancels it")));
    Await.until("slow's handler to be aborted" + why(host, serve), WAIT, () -> serveLog(serve).contains("slow " + key + ": aborted"));
    assertThat(fate(host, key)).isEqualTo("aborted");
    assertThat(host.stderrText()).as("the relay cancels by closing the response stream" + why(host, serve))
        .contains("request \"" + id + "\" cancelled by the host: closing its response stream");
    assertThat(serveLog(serve)).as("serve told the child, under the call's id" + why(host, serve))
        .contains("cancelled: request \"" + childId + "\"")
        .doesNotContain("slow " + key + ": completed");

    // slow has ended at the child; a call answered after that is answered after anything it sent
    assertThat(text(call(host.client, "echo", Map.of("text", "after the cancel")))).isEqualTo("after the cancel");
    assertThat(host.wire).as("no answer for the cancelled id" + why(host, serve))
        .noneMatch(w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCResponse r && id.equals(r.id()));
  }

  private static String fate(SdkHost host, String key) {
    return text(call(host.client, "was_aborted", Map.of("key", key)));
  }

  /** The methods of the requests that reached the host since wire position {@code from}. */
  private static List<String> asked(SdkHost host, int from) {
    return host.wireSince(from).stream().filter(w -> w.inbound() && w.message() instanceof McpSchema.JSONRPCRequest)
        .map(w -> ((McpSchema.JSONRPCRequest) w.message()).method()).toList();
  }

  private static int indexOf(List<SdkHost.Wire> wire, java.util.function.Predicate<SdkHost.Wire> which) {
    for (int i = 0; i < wire.size(); i++) {
      if (which.test(wire.get(i))) {
        return i;
      }
    }
    throw new AssertionError("not on the wire: " + wire);
  }

  private static String serveLog(ServeProcess serve) {
    return String.join("\n", serve.process().stderr.snapshot());
  }

  private static String why(SdkHost host, ServeProcess serve) {
    return host.why("serve stderr", serveLog(serve));
  }

  private static McpSchema.CallToolResult call(McpSyncClient client, String tool, Map<String, Object> args) {
    return client.callTool(new McpSchema.CallToolRequest(tool, args));
  }

  private static String text(McpSchema.CallToolResult result) {
    assertThat(result.isError()).as(String.valueOf(result)).isNotEqualTo(Boolean.TRUE);
    return ((McpSchema.TextContent) result.content().getFirst()).text();
  }
}
