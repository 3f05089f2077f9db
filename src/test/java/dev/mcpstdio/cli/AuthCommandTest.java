package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.stdio.StdoutWire;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import dev.mcpstdio.testing.OAuthPeers;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code mcp-stdio auth}: a real sign-in through the {@code BROWSER} convention (curl follows the
 * authorization server's redirect, as a user who approves), the listing, and a logout that revokes.
 */
class AuthCommandTest {

  @TempDir
  Path home;

  private final FakeMcpServer server = new FakeMcpServer(e -> Reply.status(404));
  private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();
  private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();

  @AfterEach
  void stop() {
    server.close();
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private void behave() {
    server.script(e -> switch (e.path()) {
      case "/mcp" -> Reply.status(401, "WWW-Authenticate", "Bearer resource_metadata=\"" + base() + "/prm\"");
      case "/prm" -> Reply.json("{\"authorization_servers\":[\"" + base() + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(base(), "revocation_endpoint", "/revoke"));
      case "/authorize" -> {
        Map<String, String> q = OAuthPeers.form(e.query());
        yield Reply.status(302, "Location", q.get("redirect_uri") + "?code=c&state=" + URLEncoder.encode(q.get("state"),
            StandardCharsets.UTF_8));
      }
      case "/token" -> Reply.json("{\"access_token\":\"secret-access\",\"refresh_token\":\"secret-refresh\",\"expires_in\":3600,"
          + "\"scope\":\"mcp\"}");
      case "/revoke" -> Reply.status(200);
      default -> Reply.status(404);
    });
  }

  private int auth(Map<String, String> env, String... args) throws Exception {
    Log log = new Log(stderr, Log.Level.DEBUG, new Redactor());
    return AuthCommand.run(args, env, new StdoutWire(stdout), log, new PrintWriter(new StringWriter()));
  }

  @Test
  void aSignInThroughTheBrowserCommandIsListedAndALogoutRevokesAndForgetsIt() throws Exception {
    assumeThat(NodePeers.which("curl")).as("curl plays the approving browser").isNotNull();
    behave();
    Path store = home.resolve("tokens.json");
    Map<String, String> env = Map.of("HOME", home.toString(), "BROWSER", "curl -s -L -o /dev/null");

    assertThat(auth(env, "login", base() + "/mcp", "--client-id", "pre-registered", "--token-store", store.toString()))
        .as(stderr.toString(StandardCharsets.UTF_8)).isZero();
    assertThat(new TokenStore(store, null, w -> { }).load(base() + "/mcp")).isPresent();

    assertThat(auth(env, "list", "--token-store", store.toString())).isZero();
    String listed = stdout.toString(StandardCharsets.UTF_8);
    assertThat(listed).endsWith("\n").doesNotContain("secret-access", "secret-refresh");
    var login = Jsons.parse(listed.strip());
    assertThat(login.get("server").asString()).isEqualTo(base() + "/mcp");
    assertThat(login.get("clientId").asString()).isEqualTo("pre-registered");
    assertThat(login.get("refreshable").asBoolean()).isTrue();

    assertThat(auth(env, "logout", base() + "/mcp/", "--token-store", store.toString())).isZero();
    List<Map<String, String>> revocations = server.exchanges().stream().filter(e -> e.path().equals("/revoke"))
        .map(e -> OAuthPeers.form(e.text())).toList();
    assertThat(revocations).extracting(f -> f.get("token_type_hint")).containsExactly("refresh_token", "access_token");
    assertThat(revocations).extracting(f -> f.get("token")).containsExactly("secret-refresh", "secret-access");
    assertThat(new TokenStore(store, null, w -> { }).all()).isEmpty();
    assertThat(auth(env, "logout", base() + "/mcp", "--token-store", store.toString())).isEqualTo(ExitCodes.FAILURE);
    assertThat(stderr.toString(StandardCharsets.UTF_8)).doesNotContain("secret-access", "secret-refresh")
        .contains("state=<redacted>").contains("client_id=pre-registered").contains("redirect_uri=http%3A%2F%2F127.0.0.1"); // a URL the user can open
  }

  @Test
  void anUnknownActionOrAMissingUrlIsAUsageError() {
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> auth(Map.of("HOME", home.toString()), "forget"))
        .isInstanceOf(UsageException.class).hasMessageContaining("list, login or logout");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> auth(Map.of("HOME", home.toString()), "logout"))
        .isInstanceOf(UsageException.class).hasMessageContaining("needs the server's URL");
  }
}
