package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import dev.mcpstdio.testing.OAuthPeers;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hosts start several copies of one server at once: three relay processes (the packaged jar, with
 * {@code --oauth} and one token store) against a server that wants a login end with one sign-in,
 * one token request and one stored login, which all three use. The browser is {@code curl}
 * following the authorization server's redirect, through the {@code BROWSER} convention.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RelayOAuthProcessIT {

  @TempDir
  Path home;

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}";

  @Test
  void threeRelaysStartedTogetherSignInOnceAndShareTheLogin() throws Exception {
    Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")), "curl plays the browser");
    AtomicInteger authorizations = new AtomicInteger();
    AtomicInteger grants = new AtomicInteger();
    FakeMcpServer server = new FakeMcpServer(e -> Reply.status(404));
    String base = "http://127.0.0.1:" + server.port();
    server.script(e -> switch (e.path()) {
      case "/mcp" -> "Bearer the-one-token".equals(e.header("authorization")) ? FakeMcpServer.standard(e)
          : Reply.status(401, "WWW-Authenticate", "Bearer resource_metadata=\"" + base + "/prm\"");
      case "/prm" -> Reply.json("{\"resource\":\"" + base + "/mcp\",\"authorization_servers\":[\"" + base + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(base, "registration_endpoint", "/register"));
      case "/register" -> Reply.body(201, "application/json", "{\"client_id\":\"shared\"}");
      case "/authorize" -> {
        authorizations.incrementAndGet();
        Map<String, String> q = OAuthPeers.form(e.query());
        yield Reply.status(302, "Location", q.get("redirect_uri") + "?code=c&state=" + URLEncoder.encode(q.get("state"),
            StandardCharsets.UTF_8));
      }
      case "/token" -> {
        grants.incrementAndGet();
        yield Reply.json("{\"access_token\":\"the-one-token\",\"expires_in\":3600,\"refresh_token\":\"rt\"}");
      }
      default -> Reply.status(404);
    });
    Path store = home.resolve("tokens.json");
    Map<String, String> env = Map.of("BROWSER", "curl -s -L -o /dev/null", "HOME", home.toString());
    List<JarProcess> relays = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        relays.add(JarProcess.start(List.of(), List.of("--oauth", "--token-store", store.toString(), base + "/mcp"), env));
      }
      relays.forEach(r -> r.send(INIT)); // all three at once, before any has a login
      for (JarProcess relay : relays) {
        String answer = relay.stdout.next(Duration.ofSeconds(60));
        assertThat(Jsons.parse(answer).has("result")).as(answer + "\n" + relay.log()).isTrue();
      }
    } finally {
      relays.forEach(JarProcess::close);
      server.close();
    }
    assertThat(authorizations).as("browser sign-ins").hasValue(1);
    assertThat(grants).as("token requests").hasValue(1);
    assertThat(new TokenStore(store, null, w -> { }).all().values()).singleElement()
        .satisfies(login -> assertThat(login.accessToken()).isEqualTo("the-one-token"));
  }
}
