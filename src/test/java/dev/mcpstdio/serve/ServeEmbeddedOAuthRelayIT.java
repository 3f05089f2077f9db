package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.NodePeers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * This project's relay with {@code --oauth} against serve with {@code --enable-oauth}, both real:
 * the relay (the packaged jar, a process of its own) meets the 401, discovers the protected
 * resource and the embedded server, registers with a loopback redirect URI, sends the browser
 * ({@code curl} through the {@code BROWSER} convention, following the sign-in's redirect back to
 * the relay's loopback callback) and redeems the code with its PKCE verifier; its host's
 * {@code initialize} is then answered by the built-in demo behind serve (in the era the relay
 * chose: serve speaks both). Then two users, each with a relay whose browser passes a proxy that
 * names its user: alice's 60 s token is refreshed by her relay (refresh rotation through the real
 * client), and bob's token, presented with a session alice's token opened, gets 404.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeEmbeddedOAuthRelayIT {

  @TempDir
  Path home;

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}";

  @Test
  void theRelaySignsInAtTheEmbeddedServerAndItsInitializeIsAnswered() throws Exception {
    Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")), "curl plays the browser");
    ServeConfig.EmbeddedOAuth oauth = new ServeConfig.EmbeddedOAuth(true, "alice", null, Set.of(), Duration.ofHours(1));
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()).withOAuth(oauth))) {
      String url = "http://127.0.0.1:" + serve.gateway.port() + "/mcp";
      Path store = home.resolve("tokens.json");
      Map<String, String> env = Map.of("BROWSER", "curl -s -L -o /dev/null", "HOME", home.toString());
      try (JarProcess relay = JarProcess.start(List.of(), List.of("--oauth", "--token-store", store.toString(), url), env)) {
        relay.send(INIT);
        String answer;
        try {
          answer = relay.stdout.next(Duration.ofSeconds(60));
        } catch (AssertionError e) {
          throw new AssertionError(e.getMessage() + "\nrelay:\n" + relay.log() + "\nserve:\n" + serve.log(), e);
        }
        assertThat(Jsons.parse(answer).has("result")).as(answer + "\nrelay:\n" + relay.log() + "\nserve:\n" + serve.log()).isTrue();
        assertThat(Jsons.parse(answer).path("result").path("serverInfo").has("name")).as(answer).isTrue();
      }
      assertThat(serve.log()).contains("\"POST /register\" 201").contains("\"GET /authorize?<redacted>\" 302").contains("\"POST /token\" 200");
      assertThat(new TokenStore(store, null, w -> { }).all().values()).singleElement()
          .satisfies(login -> assertThat(login.accessToken()).hasSize(43));
    }
  }

  /** A relay signed in as {@code user} (its browser behind a proxy that names the user): its token store. */
  private Path signedIn(ServeHarness serve, String user, List<String> relayArgs) throws Exception {
    String url = "http://127.0.0.1:" + serve.gateway.port() + "/mcp";
    Path store = home.resolve(user + "-tokens.json");
    Path browser = home.resolve("browser-" + user);
    java.nio.file.Files.writeString(browser, "#!/bin/sh\nexec curl -s -L -o /dev/null -H 'X-Forwarded-User: " + user + "' \"$1\"\n");
    browser.toFile().setExecutable(true);
    Map<String, String> env = Map.of("BROWSER", browser.toString(), "HOME", home.toString());
    List<String> args = new java.util.ArrayList<>(List.of("--oauth", "--token-store", store.toString()));
    args.addAll(relayArgs);
    args.add(url);
    try (JarProcess relay = JarProcess.start(List.of(), args, env)) {
      relay.send(INIT);
      String answer = relay.stdout.next(Duration.ofSeconds(60));
      assertThat(Jsons.parse(answer).has("result")).as(answer + "\nrelay:\n" + relay.log() + "\nserve:\n" + serve.log()).isTrue();
      if (relayArgs.contains("--oauth-refresh-leeway")) {
        // a 60 s token is refreshed at half its life; the relay's next call goes out with the new one
        Await.until("the relay to refresh its token; serve:\n" + serve.log(), Duration.ofSeconds(75),
            () -> serve.log().split("\"POST /token\" 200", -1).length > 2);
        relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        assertThat(relay.stdout.next(Duration.ofSeconds(30))).contains("\"result\"");
      }
    }
    return store;
  }

  private static String accessToken(Path store) {
    return new TokenStore(store, null, w -> { }).all().values().iterator().next().accessToken();
  }

  @Test
  void twoUsersSignInThroughTheirRelaysTheTokenIsRefreshedAndNeitherSeesTheOthersSession() throws Exception {
    Assumptions.assumeTrue(NodePeers.which("curl") != null || "true".equals(System.getenv("CI")), "curl plays the browser");
    ServeConfig.EmbeddedOAuth oauth = new ServeConfig.EmbeddedOAuth(true, null, "X-Forwarded-User", Set.of(), Duration.ofSeconds(60));
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()).withOAuth(oauth))) {
      String alice = accessToken(signedIn(serve, "alice", List.of("--oauth-refresh-leeway", "3600")));
      String bob = accessToken(signedIn(serve, "bob", List.of()));
      assertThat(alice).isNotEqualTo(bob);
      java.net.http.HttpResponse<String> opened = serve.post(null, INIT, false, "Authorization", "Bearer " + alice);
      assertThat(opened.statusCode()).as(opened.body()).isEqualTo(200);
      String session = opened.headers().firstValue("Mcp-Session-Id").orElseThrow();
      String ping = "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}";
      java.net.http.HttpResponse<String> foreign = serve.post(session, ping, false, "Authorization", "Bearer " + bob);
      assertThat(foreign.statusCode()).isEqualTo(404);
      assertThat(foreign.body()).contains("unknown or expired session");
      assertThat(serve.post(session, ping, false, "Authorization", "Bearer " + alice).statusCode()).isEqualTo(200);
    }
  }
}
