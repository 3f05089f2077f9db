package dev.mcpstdio.session;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.host.CallbackChannel;
import dev.mcpstdio.host.CallbackParser;
import dev.mcpstdio.host.CallbackRegistry;
import dev.mcpstdio.host.CredentialHandoff;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The Java kit for session-scoped servers, against the gateway's real host side. */
class SessionKitTest {

  private static final String[] ARGS = {"--stdio", "--session-id", "s-1", "--workspace-root=/w", "--plans-folder", "/w/plans"};

  @Test
  void theSessionComesFromArgvAndMissingPiecesAreNamed() {
    SessionContext s = SessionContext.parse(ARGS, Map.of(), System.err);
    assertThat(s.sessionId()).isEqualTo("s-1");
    assertThat(s.workspaceRoot()).isEqualTo(Path.of("/w"));
    assertThat(s.plansFolder()).isEqualTo(Path.of("/w/plans"));
    assertThatThrownBy(() -> SessionContext.parse(new String[] {"--session-id", "x", "--workspace-root", "/w"}, Map.of(), System.err))
        .hasMessage("missing --plans-folder");
    assertThatThrownBy(() -> SessionContext.parse(new String[] {"--session-id"}, Map.of(), System.err))
        .hasMessage("--session-id needs a value");
  }

  @Test
  void aNotificationIsOneValidCallbackLine() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    SessionContext s = SessionContext.parse(ARGS, Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8));
    String id = s.callbacks().send("notify", Map.of("message", "a \"quoted\" note"));
    String line = err.toString(StandardCharsets.UTF_8);
    assertThat(line).endsWith("\n").doesNotContain("\n\n");
    CallbackParser.Parsed parsed = new CallbackParser().parse(line.strip().getBytes(StandardCharsets.UTF_8));
    assertThat(parsed).isInstanceOfSatisfying(CallbackParser.Parsed.Valid.class, v -> {
      assertThat(v.callback().id()).isEqualTo(id);
      assertThat(v.callback().sessionId()).isEqualTo("s-1");
      assertThat(v.callback().string("message")).isEqualTo("a \"quoted\" note");
    });
  }

  @Test
  void aRequestGetsTheHostsDecisionThroughTheReplyChannel() throws Exception {
    CallbackRegistry registry = new CallbackRegistry(Duration.ofSeconds(10), Duration.ofSeconds(5));
    try (CallbackChannel channel = new CallbackChannel()) {
      CallbackChannel.Credentials credentials = channel.register("s-1", registry, c -> {});
      // the host's side of stderr: parse the line and announce it, as serve does
      PrintStream stderr = new PrintStream(new java.io.OutputStream() {
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();

        @Override
        public synchronized void write(int b) {
          if (b == '\n') {
            if (new CallbackParser().parse(line.toByteArray()) instanceof CallbackParser.Parsed.Valid v) {
              registry.announce(v.callback());
            }
            line.reset();
          } else {
            line.write(b);
          }
        }
      }, true, StandardCharsets.UTF_8);
      SessionContext s = SessionContext.parse(ARGS, credentials.env(), stderr);
      CompletableFuture<String> reply = CompletableFuture.supplyAsync(() -> {
        try {
          return s.callbacks().request("plan_ready", Map.of("planPath", "/w/plans/p.md"), Duration.ofSeconds(10));
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      }, dev.mcpstdio.testing.Threads.VIRTUAL);
      dev.mcpstdio.testing.Await.until("the callback to be announced", Duration.ofSeconds(5), () -> !registry.waiting().isEmpty());
      registry.reply(registry.waiting().getFirst().id(), "{\"action\":\"accept\"}");
      assertThat(reply.get(10, TimeUnit.SECONDS)).isEqualTo("{\"action\":\"accept\"}");
    }
  }

  @Test
  void withoutAReplyChannelARequestFailsClosed() {
    SessionContext s = SessionContext.parse(ARGS, Map.of(), new PrintStream(new ByteArrayOutputStream()));
    assertThatThrownBy(() -> s.callbacks().request("confirm", Map.of("message", "?"), Duration.ofSeconds(1)))
        .isInstanceOf(IOException.class).hasMessageContaining("no reply channel");
  }

  @Test
  void credentialsAreReadAndExpiredOnesAreAbsent(@TempDir Path workspace) throws IOException {
    SessionContext s = SessionContext.parse(new String[] {"--session-id", "s", "--workspace-root", workspace.toString(),
        "--plans-folder", workspace.resolve("plans").toString()}, Map.of(), System.err);
    assertThat(s.credentials("github")).isEmpty();
    CredentialHandoff.write(workspace, "github", "tok", Instant.now().plusSeconds(3600));
    assertThat(s.credentials("github")).hasValue("tok");
    CredentialHandoff.write(workspace, "old", "stale", Instant.now().minusSeconds(1));
    assertThat(s.credentials("old")).isEmpty();
    CredentialHandoff.write(workspace, "forever", "v", null);
    assertThat(s.credentials("forever")).hasValue("v");
    assertThat(s.credentials("../etc")).isEmpty();
    java.nio.file.Files.createDirectories(workspace.resolve("sources/linked"));
    java.nio.file.Files.createSymbolicLink(workspace.resolve("sources/linked/.credential-cache.json"),
        workspace.resolve("sources/github/.credential-cache.json"));
    assertThat(s.credentials("linked")).isEmpty(); // a planted link is never read
  }

  @Test
  void aCredentialHandedOffLaterIsWaitedFor(@TempDir Path workspace) throws Exception {
    SessionContext s = SessionContext.parse(new String[] {"--session-id", "s", "--workspace-root", workspace.toString(),
        "--plans-folder", workspace.resolve("plans").toString()}, Map.of(), System.err);
    assertThat(s.awaitCredentials("crm", Duration.ofMillis(250))).isEmpty(); // nobody hands it off: the wait ends
    CompletableFuture<java.util.Optional<String>> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return s.awaitCredentials("crm", Duration.ofSeconds(20));
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    CredentialHandoff.write(workspace, "crm", "late", null);
    assertThat(waiting.get(20, TimeUnit.SECONDS)).hasValue("late");
  }

  @Test
  void fieldsMayBeAnyJsonValueButNeverTheKitsOwn() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    SessionContext s = SessionContext.parse(ARGS, Map.of(), new PrintStream(err, true, StandardCharsets.UTF_8));
    Map<String, Object> schema = new java.util.LinkedHashMap<>();
    schema.put("type", "object");
    Map<String, Object> reason = new java.util.LinkedHashMap<>();
    reason.put("type", "string");
    reason.put("maxLength", 200);
    schema.put("properties", Map.of("reason", reason));
    schema.put("required", java.util.List.of("reason"));
    Map<String, Object> fields = new java.util.LinkedHashMap<>();
    fields.put("message", "Why?");
    fields.put("schema", schema);
    fields.put("attempt", 2L);
    fields.put("ratio", 0.5);
    fields.put("urgent", true);
    fields.put("note", null);
    s.callbacks().send("confirm", fields);
    CallbackParser.Parsed parsed = new CallbackParser().parse(err.toString(StandardCharsets.UTF_8).strip().getBytes(StandardCharsets.UTF_8));
    assertThat(parsed).isInstanceOfSatisfying(CallbackParser.Parsed.Valid.class, v -> {
      assertThat(v.callback().raw("schema")).isEqualTo(
          "{\"type\":\"object\",\"properties\":{\"reason\":{\"type\":\"string\",\"maxLength\":200}},\"required\":[\"reason\"]}");
      assertThat(v.callback().raw("attempt")).isEqualTo("2");
      assertThat(v.callback().raw("ratio")).isEqualTo("0.5");
      assertThat(v.callback().raw("urgent")).isEqualTo("true");
      assertThat(v.callback().raw("note")).isEqualTo("null");
    });
    assertThatThrownBy(() -> s.callbacks().send("notify", Map.of("id", "mine"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("id");
    assertThatThrownBy(() -> s.callbacks().send("notify", Map.of("x", Double.NaN))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.callbacks().send("notify", Map.of("x", new Object()))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> s.callbacks().send("notify", Map.of("x", Map.of(1, "a")))).isInstanceOf(IllegalArgumentException.class);
  }
}
