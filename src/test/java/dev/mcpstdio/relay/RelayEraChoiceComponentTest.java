package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Fake2026Server;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.RelayHarness;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Which era the relay speaks ({@code --protocol-era}): the probe, what is remembered per server
 * and when it is checked again; and the 2026 era's refusals of what it does not have.
 */
class RelayEraChoiceComponentTest {

  @TempDir Path state;

  private RelayHarness relay(java.net.URI url, ProtocolEra.Choice choice) {
    Path memory = state.resolve("mcp-stdio").resolve("protocol-eras");
    return RelayHarness.start(url, c -> c.withEra(new RelayConfig.EraSettings(choice, memory)));
  }

  private String memory() throws IOException {
    return Files.readString(state.resolve("mcp-stdio").resolve("protocol-eras"), StandardCharsets.UTF_8);
  }

  @Test
  void a2025ServerIsProbedOnceAndThenSpokenToAtOnce() throws IOException {
    try (FakeMcpServer server = FakeMcpServer.mcp()) {
      try (RelayHarness relay = relay(server.url(), ProtocolEra.Choice.AUTO)) {
        assertThat(Jsons.parse(relay.initialize()).at("/result/serverInfo").isObject()).isTrue();
        assertThat(server.posts("server/discover")).hasSize(1);
        assertThat(server.posts("initialize")).hasSize(1);
        assertThat(relay.log()).contains("protocol era: 2025 (auto-detected)");
      }
      String remembered = memory();
      assertThat(remembered).startsWith("legacy\t").doesNotContain("127.0.0.1").doesNotContain("http");
      assertThat(Files.getPosixFilePermissions(state.resolve("mcp-stdio").resolve("protocol-eras")))
          .isEqualTo(PosixFilePermissions.fromString("rw-------"));
      assertThat(Files.getPosixFilePermissions(state.resolve("mcp-stdio"))).isEqualTo(PosixFilePermissions.fromString("rwx------"));
      try (RelayHarness relay = relay(server.url(), ProtocolEra.Choice.AUTO)) {
        relay.initialize();
        relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
        relay.answerTo("1");
        assertThat(server.posts("server/discover")).as("the second spawn goes straight to the 2025 era").hasSize(1);
        assertThat(server.posts("initialize")).hasSize(2);
      }
    }
  }

  @Test
  void aServerRememberedAs2025ThatRefusesTheHandshakeIsProbedAgainAndFollowedTo2026() throws IOException {
    try (Fake2026Server server = new Fake2026Server()) {
      Path file = state.resolve("mcp-stdio").resolve("protocol-eras");
      new EraMemory(file).remember(server.url(), ProtocolEra.ERA_2025);
      try (RelayHarness relay = relay(server.url(), ProtocolEra.Choice.AUTO)) {
        JsonNode answer = Jsons.parse(relay.initialize());
        assertThat(answer.at("/result/serverInfo/name").asString()).as(answer.toString()).isEqualTo("fake-2026");
        assertThat(server.posts("initialize")).as("the 2025 handshake, refused").hasSize(1);
        assertThat(server.posts("server/discover")).hasSize(1);
      }
      assertThat(memory()).startsWith("modern\t");
    }
  }

  @Test
  void aNew2026ServerIsFoundByTheProbeAndRemembered() throws IOException {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = relay(server.url(), ProtocolEra.Choice.AUTO)) {
      assertThat(Jsons.parse(relay.initialize()).at("/result/serverInfo/name").asString()).isEqualTo("fake-2026");
      assertThat(server.posts("initialize")).isEmpty();
      assertThat(relay.log()).contains("protocol era: 2026-07-28 (auto-detected)");
      assertThat(memory()).startsWith("modern\t");
    }
  }

  @Test
  void legacyNeverProbes() {
    try (FakeMcpServer server = FakeMcpServer.mcp(); RelayHarness relay = relay(server.url(), ProtocolEra.Choice.LEGACY)) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}");
      relay.answerTo("1");
      assertThat(server.posts("server/discover")).isEmpty();
      assertThat(state.resolve("mcp-stdio")).doesNotExist();
    }
  }

  @Test
  void aServerThatAnswersAnyMethodWithAnEmptyResultIsNotTakenFor2026() {
    try (FakeMcpServer server = new FakeMcpServer(e -> "server/discover".equals(e.rpcMethod())
            ? FakeMcpServer.Reply.json(FakeMcpServer.result(e.rpcIdJson(), "{}"))
            : FakeMcpServer.standard(e));
        RelayHarness relay = relay(server.url(), ProtocolEra.Choice.AUTO)) {
      relay.initialize();
      assertThat(server.posts("initialize")).hasSize(1);
      assertThat(relay.log()).contains("protocol era: 2025 (auto-detected)");
    }
  }

  @Test
  void aBatchIsNotSentInThe2026EraAndEachOfItsRequestsIsAnswered() {
    try (Fake2026Server server = new Fake2026Server(); RelayHarness relay = relay(server.url(), ProtocolEra.Choice.MODERN)) {
      relay.initialize();
      relay.send("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"},{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}]");
      for (String id : new String[] {"2", "3"}) {
        assertThat(Jsons.parse(relay.answerTo(id)).at("/error/message").asString()).contains("batches do not exist");
      }
      assertThat(server.exchanges()).noneMatch(e -> e.text().startsWith("["));
    }
  }

  @Test
  void a2026HostGetsPagesMergedWithTheMostCautiousCacheHints() {
    try (Fake2026Server server = new Fake2026Server().listCache(page -> page == 2
            ? new Fake2026Server.CacheHints(5_000, "private") : new Fake2026Server.CacheHints(60_000, "public"));
        RelayHarness relay = relay(server.url(), ProtocolEra.Choice.MODERN)) {
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":\"l\",\"method\":\"tools/list\",\"params\":{\"_meta\":{"
          + "\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
      JsonNode answer = Jsons.parse(relay.answerTo("\"l\""));
      assertThat(server.posts("tools/list")).hasSize(3);
      assertThat(answer.at("/result/ttlMs").asLong()).as(answer.toString()).isEqualTo(5_000);
      assertThat(answer.at("/result/cacheScope").asString()).isEqualTo("private");
      assertThat(answer.at("/result/resultType").asString()).isEqualTo("complete");
      assertThat(answer.at("/result/tools").size()).as("invalid tools dropped for a 2026 host too").isEqualTo(5);
    }
  }
}
