package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.oauth.OAuthClient;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.OAuthSettings;
import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.OAuthPeers;
import dev.mcpstdio.testing.RelayHarness;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay signing in itself: a loopback MCP server that is also its own OAuth authorization
 * server and wants a bearer token on every request, a "browser" that approves, and the host
 * noticing nothing but answers (or one clear error).
 */
class RelayOAuthComponentTest {

  @TempDir
  Path home;

  private final FakeMcpServer server = new FakeMcpServer(e -> Reply.status(404));
  private final AtomicInteger issued = new AtomicInteger();
  private volatile String valid = "none yet"; // the one access token the server accepts
  private volatile String needScope; // a scope the server insists on (403) until the token has it
  private volatile boolean refuseSignIn;
  private final Map<String, String> scopeOf = new java.util.concurrent.ConcurrentHashMap<>();
  private final List<String> oauthLog = new java.util.concurrent.CopyOnWriteArrayList<>();
  private volatile boolean proactive; // background refresh, for the test that wants it
  private volatile int lifetime = 3600; // expires_in of the tokens the server issues
  private volatile Duration leeway = Duration.ofSeconds(60);
  private volatile java.util.concurrent.CountDownLatch holdStreams; // GETs wait for it, then are judged
  private final java.util.concurrent.CountDownLatch streamHeld = new java.util.concurrent.CountDownLatch(1);

  @AfterEach
  void stop() {
    server.close();
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private void behave() {
    server.script(e -> switch (e.path()) {
      case "/mcp" -> {
        String auth = e.header("authorization");
        java.util.concurrent.CountDownLatch hold = holdStreams;
        if (hold != null && e.method().equals("GET")) {
          streamHeld.countDown();
          try {
            hold.await(RelayHarness.TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
          } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
          }
        }
        if (auth == null || !auth.equals("Bearer " + valid)) {
          yield Reply.status(401, "WWW-Authenticate", "Bearer resource_metadata=\"" + base()
              + "/.well-known/oauth-protected-resource/mcp\"");
        }
        if (e.method().equals("GET")) { // a short stream the relay keeps reopening
          yield Reply.sse(List.of(FakeMcpServer.Step.message("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\","
              + "\"params\":{\"level\":\"info\",\"data\":\"tick\"}}")));
        }
        if (needScope != null && !scopeOf.getOrDefault(valid, "").contains(needScope) && "tools/call".equals(e.rpcMethod())) {
          yield Reply.status(403, "WWW-Authenticate", "Bearer error=\"insufficient_scope\", scope=\"" + needScope + "\"");
        }
        yield FakeMcpServer.standard(e);
      }
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"resource\":\"" + base() + "/mcp\","
          + "\"authorization_servers\":[\"" + base() + "\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(base(), "registration_endpoint", "/register"));
      case "/register" -> Reply.body(201, "application/json", "{\"client_id\":\"relay-client\"}");
      case "/authorize" -> {
        Map<String, String> q = OAuthPeers.form(e.query());
        String back = q.get("redirect_uri") + "?state=" + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8);
        yield Reply.status(302, "Location", refuseSignIn ? back + "&error=access_denied"
            : back + "&code=" + URLEncoder.encode(q.getOrDefault("scope", ""), StandardCharsets.UTF_8));
      }
      case "/token" -> {
        Map<String, String> f = OAuthPeers.form(e.text());
        String scope = f.get("grant_type").equals("authorization_code") ? f.get("code") : scopeOf.getOrDefault(valid, "");
        valid = "at-" + issued.incrementAndGet();
        scopeOf.put(valid, scope);
        yield Reply.json("{\"access_token\":\"" + valid + "\",\"expires_in\":" + lifetime + ",\"refresh_token\":\"rt-" + issued.get()
            + "\",\"scope\":\"" + scope + "\"}");
      }
      default -> Reply.status(404);
    });
  }

  private RelayHarness relay() {
    return RelayHarness.startWithAuthorization(URI.create(base() + "/mcp"), authorization());
  }

  private OAuthAuthorization authorization() {
    String url = base() + "/mcp";
    TokenStore store = new TokenStore(home.resolve("tokens.json"), null, w -> { });
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    OAuthClient client = new OAuthClient(url, new OAuthSettings(null, null, null, "mcp", true, null, leeway,
        Duration.ofSeconds(20), false, false, false, true, null), store, http, OAuthPeers.approving(), oauthLog::add,
        oauthLog::add, Clock.systemUTC(), d -> { });
    return new OAuthAuthorization(client, new dev.mcpstdio.stdio.Redactor(), proactive, Clock.systemUTC());
  }

  /** The host's traffic to the MCP endpoint (a discovery probe, were there one, left out). */
  private List<FakeMcpServer.Exchange> mcpRequests() {
    return server.exchanges().stream().filter(e -> e.path().equals("/mcp") && !e.text().contains("mcp-stdio-probe")).toList();
  }

  @Test
  void theRelaySignsInOnFirstUseAndEveryLaterRequestCarriesTheToken() {
    behave();
    try (RelayHarness relay = relay()) {
      relay.initialize();
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
      assertThat(Jsons.parse(relay.answerTo("2")).has("result")).isTrue();
      assertThat(issued).hasValue(1);
      List<FakeMcpServer.Exchange> requests = mcpRequests();
      assertThat(requests.getFirst().header("authorization")).isNull(); // no login yet: the 401 said where to get one
      assertThat(requests.subList(1, requests.size()))
          .allSatisfy(e -> assertThat(e.header("authorization")).isEqualTo("Bearer at-1"));
      assertThat(requests.get(1).text()).isEqualTo(requests.getFirst().text()); // the refused initialize, replayed
      assertThat(relay.log()).doesNotContain("at-1").doesNotContain("rt-1");
      assertThat(oauthLog).isNotEmpty().allSatisfy(l -> assertThat(l).doesNotContain("at-1").doesNotContain("rt-1"));
    }
  }

  @Test
  void aRevokedTokenIsRefreshedAndTheRequestReplayedOnce() {
    behave();
    try (RelayHarness relay = relay()) {
      relay.initialize();
      valid = "revoked"; // the server forgets the login
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
      String answer = relay.answerTo("3");
      assertThat(Jsons.parse(answer).has("result")).as(answer).isTrue();
      assertThat(issued).hasValue(2);
      assertThat(server.exchanges().stream().filter(e -> e.path().equals("/token")).map(e -> OAuthPeers.form(e.text()).get("grant_type")))
          .containsExactly("authorization_code", "refresh_token");
      assertThat(server.exchanges().stream().filter(e -> e.path().equals("/authorize"))).hasSize(1);
      assertThat(mcpRequests().getLast().header("authorization")).isEqualTo("Bearer at-2");
    }
  }

  @Test
  void aRefusedSignInIsOneClearErrorForTheHost() {
    behave();
    refuseSignIn = true;
    try (RelayHarness relay = relay()) {
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
          + "\"capabilities\":{},\"clientInfo\":{\"name\":\"t\",\"version\":\"1\"}}}");
      String error = relay.answerTo("1");
      assertThat(Jsons.parse(error).get("error").get("message").asString())
          .isEqualTo("not signed in to the server: the sign-in was refused: access_denied");
      assertThat(mcpRequests()).singleElement() // the one bare attempt whose 401 led to the sign-in
          .satisfies(e -> assertThat(e.header("authorization")).isNull());
    }
  }

  @Test
  void aForbiddenCallStepsUpToTheChallengedScopeAndIsReplayed() {
    behave();
    try (RelayHarness relay = relay()) {
      relay.initialize();
      needScope = "admin";
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}");
      String answer = relay.answerTo("4");
      assertThat(Jsons.parse(answer).has("error")).as(answer).isFalse();
      assertThat(scopeOf.get(valid)).isEqualTo("admin mcp");
    }
  }

  @Test
  void aStreamRefusedForItsTokenRenewsTheLoginWithoutWaitingForARequest() {
    behave();
    try (RelayHarness relay = relay()) {
      relay.initialize();
      dev.mcpstdio.testing.Await.until("the GET stream to be open with the first token", RelayHarness.TIMEOUT,
          () -> server.exchanges().stream().anyMatch(e -> e.method().equals("GET") && "Bearer at-1".equals(e.header("authorization"))));
      valid = "revoked";
      dev.mcpstdio.testing.Await.until("the stream to come back with a renewed token", RelayHarness.TIMEOUT,
          () -> server.exchanges().stream().anyMatch(e -> e.method().equals("GET") && "Bearer at-2".equals(e.header("authorization"))));
      assertThat(server.exchanges().stream().filter(e -> e.path().equals("/token")).map(e -> OAuthPeers.form(e.text()).get("grant_type")))
          .containsExactly("authorization_code", "refresh_token");
    }
  }

  @Test
  void aStreamRefusedForAnOlderLoginLeavesTheNewerOneAlone() throws Exception {
    behave();
    try (RelayHarness relay = relay()) {
      relay.initialize();
      java.util.concurrent.CountDownLatch hold = new java.util.concurrent.CountDownLatch(1);
      holdStreams = hold;
      assertThat(streamHeld.await(RelayHarness.TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
      // While the stream's request (with at-1) is held, a request renews the login to at-2.
      valid = "revoked";
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/list\"}");
      assertThat(Jsons.parse(relay.answerTo("3")).has("result")).isTrue();
      holdStreams = null;
      hold.countDown(); // the held stream is refused for at-1: at-2 is good and must stay so
      dev.mcpstdio.testing.Await.until("the stream to come back with the newer login", RelayHarness.TIMEOUT,
          () -> server.exchanges().stream().anyMatch(e -> e.method().equals("GET") && "Bearer at-2".equals(e.header("authorization"))));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}");
      assertThat(Jsons.parse(relay.answerTo("4")).has("result")).isTrue();
      assertThat(server.exchanges().stream().filter(e -> e.path().equals("/token")).map(e -> OAuthPeers.form(e.text()).get("grant_type")))
          .containsExactly("authorization_code", "refresh_token");
    }
  }

  @Test
  void aTokenAboutToExpireIsRefreshedInTheBackground() {
    behave();
    proactive = true;
    leeway = Duration.ofSeconds(1);
    lifetime = 3; // fresh for two seconds, refreshed in the background at the end of them
    try (RelayHarness relay = relay()) {
      relay.initialize();
      dev.mcpstdio.testing.Await.until("a refresh nobody asked for", RelayHarness.TIMEOUT,
          () -> server.exchanges().stream().anyMatch(e -> e.path().equals("/token")
              && "refresh_token".equals(OAuthPeers.form(e.text()).get("grant_type"))));
      relay.send("{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/list\"}");
      // answered: the server accepted the refreshed login it carried (it takes only the newest)
      assertThat(Jsons.parse(relay.answerTo("5")).has("result")).isTrue();
      assertThat(server.exchanges().stream().filter(e -> e.path().equals("/authorize"))).hasSize(1); // no new sign-in
    }
  }

  @Test
  void theConnectivityCheckSignsInOnAColdCacheAndReportsTheServer() throws Exception {
    behave();
    dev.mcpstdio.testing.LineCollector checkLog = new dev.mcpstdio.testing.LineCollector();
    RelayConfig config = RelayHarness.config(URI.create(base() + "/mcp"));
    int code = ConnectivityCheck.run(config, HttpClient.newBuilder().build(),
        new dev.mcpstdio.stdio.Log(checkLog, dev.mcpstdio.stdio.Log.Level.INFO, new dev.mcpstdio.stdio.Redactor()), authorization());
    assertThat(code).as(String.join("\n", checkLog.snapshot())).isZero();
    assertThat(checkLog.snapshot()).anySatisfy(l -> assertThat(l).contains("MCP initialize: server="));
    assertThat(issued).hasValue(1);
  }
}
