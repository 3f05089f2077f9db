package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.OAuthPeers;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The relay's OAuth client against one loopback server that is resource and authorization server both. */
class OAuthClientTest {

  @TempDir
  Path home;

  private final FakeMcpServer server = new FakeMcpServer(e -> Reply.status(404));
  private final List<String> log = new CopyOnWriteArrayList<>();
  private final List<Duration> slept = new CopyOnWriteArrayList<>();
  private final AtomicInteger issued = new AtomicInteger();
  private volatile Function<Map<String, String>, Reply> tokenScript = this::grant;
  private Instant now = Instant.parse("2026-11-30T12:00:00Z");

  @AfterEach
  void stop() {
    server.close();
  }

  private String base() {
    return "http://127.0.0.1:" + server.port();
  }

  private String mcp() {
    return base() + "/mcp";
  }

  /** A well-behaved server: metadata, registration, an authorize endpoint that approves, a token endpoint. */
  private void behave() {
    server.script(e -> switch (e.path()) {
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"resource\":\"" + mcp() + "\",\"authorization_servers\":[\""
          + base() + "\"],\"scopes_supported\":[\"mcp\"]}");
      case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(base(), "registration_endpoint", "/register"));
      case "/register" -> Reply.body(201, "application/json", "{\"client_id\":\"dyn-" + issued.get() + "\"}");
      case "/authorize" -> {
        Map<String, String> q = FormEncoding.decode(e.query());
        yield Reply.status(302, "Location", q.get("redirect_uri") + "?code=c&state="
            + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8) + "&scope_asked=" + URLEncoder.encode(
                q.getOrDefault("scope", ""), StandardCharsets.UTF_8));
      }
      case "/token" -> tokenScript.apply(FormEncoding.decode(e.text()));
      default -> Reply.status(404);
    });
  }

  private Reply grant(Map<String, String> form) {
    int n = issued.incrementAndGet();
    return Reply.json("{\"access_token\":\"at-" + n + "\",\"expires_in\":3600,\"refresh_token\":\"rt-" + n + "\",\"scope\":\"mcp\"}");
  }

  private TokenStore store() {
    return new TokenStore(home.resolve("tokens.json"), null, log::add);
  }

  private OAuthClient client() {
    return client(null);
  }

  private OAuthClient client(String scope) {
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    OAuthSettings settings = new OAuthSettings(null, null, null, scope, true, null, Duration.ofSeconds(60),
        Duration.ofSeconds(20), false, false, false, true, null);
    return new OAuthClient(mcp(), settings, store(), http, OAuthPeers.approving(), log::add, log::add, Clock.fixed(now, ZoneOffset.UTC), slept::add);
  }

  private long requests(String path) {
    return server.exchanges().stream().filter(e -> e.path().equals(path)).count();
  }

  @Test
  void aFirstUseSignsInOnceAndLaterUsesTheStoredLogin() throws Exception {
    behave();
    assertThat(client().token()).isEqualTo("at-1");
    assertThat(requests("/register")).isOne();
    TokenRecord stored = store().load(mcp()).orElseThrow();
    assertThat(stored.refreshToken()).isEqualTo("rt-1");
    assertThat(stored.clientId()).isEqualTo("dyn-0");
    assertThat(stored.issuer()).isEqualTo(base());
    assertThat(stored.expiresAt()).isEqualTo(now.plusSeconds(3600));
    assertThat(stored.resource()).isEqualTo(mcp());
    int before = server.exchanges().size();
    assertThat(client().token()).isEqualTo("at-1");
    assertThat(server.exchanges()).hasSize(before); // no network for a fresh login
    assertThat(String.join("\n", log)).doesNotContain("at-1", "rt-1");
  }

  @Test
  void anExpiringTokenIsRefreshedAndTheRotatedRefreshTokenKept() throws Exception {
    behave();
    client().token();
    now = now.plusSeconds(3600 - 30); // inside the 60 s leeway
    assertThat(client().token()).isEqualTo("at-2");
    Map<String, String> refresh = FormEncoding.decode(server.exchanges().getLast().text());
    assertThat(refresh).containsEntry("grant_type", "refresh_token").containsEntry("refresh_token", "rt-1")
        .containsEntry("client_id", "dyn-0").containsEntry("resource", mcp());
    assertThat(store().load(mcp()).orElseThrow().refreshToken()).isEqualTo("rt-2");
    assertThat(requests("/register")).isOne(); // the client is reused
  }

  @Test
  void aRejectedRefreshDropsTheLoginAndSignsInAgain() throws Exception {
    behave();
    client().token();
    tokenScript = form -> form.get("grant_type").equals("refresh_token")
        ? Reply.body(400, "application/json", "{\"error\":\"invalid_grant\"}") : grant(form);
    assertThat(client().unauthorized("at-1", null, null)).isEqualTo("at-2");
    assertThat(requests("/authorize")).isEqualTo(2);
    assertThat(log).anySatisfy(l -> assertThat(l).contains("refresh was refused (invalid_grant (HTTP 400))"));
  }

  @Test
  void aRefreshThatFailsForAPassingReasonIsRetriedAndNeverCostsTheLogin() throws Exception {
    behave();
    client().token();
    AtomicInteger busy = new AtomicInteger(2);
    tokenScript = form -> busy.getAndDecrement() > 0 ? Reply.body(503, "text/html", "busy") : grant(form);
    assertThat(client().unauthorized("at-1", null, null)).isEqualTo("at-2");
    assertThat(slept).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2));

    tokenScript = form -> Reply.body(400, "application/json", "{\"error\":\"temporarily_unavailable\"}");
    assertThatThrownBy(() -> client().unauthorized("at-2", null, null)).isInstanceOf(OAuthClient.AuthFailed.class)
        .hasMessageContaining("the login is kept");
    assertThat(store().load(mcp())).isPresent();
    assertThat(requests("/authorize")).isOne();
  }

  @Test
  void aTokenAnotherRelayRenewedMeanwhileIsTakenWithoutAskingTheServer() throws Exception {
    behave();
    client().token();
    TokenRecord r = store().load(mcp()).orElseThrow();
    store().save(mcp(), new TokenRecord("from-another-relay", "Bearer", now.plusSeconds(3600), "rt-x", r.scope(), r.clientId(),
        null, null, r.tokenEndpoint(), r.authorizationEndpoint(), null, r.issuer(), r.tokenEndpointAuthMethod(), false, null,
        null, r.resource(), false));
    int before = server.exchanges().size();
    assertThat(client().unauthorized("at-1", null, null)).isEqualTo("from-another-relay");
    assertThat(server.exchanges()).hasSize(before);
  }

  @Test
  void aStepUpAsksForTheUnionOfGrantedAndChallengedScopes() throws Exception {
    behave();
    client().token();
    assertThat(client().insufficientScope("at-1", "admin write", null)).isEqualTo("at-2");
    FakeMcpServer.Exchange authorize = server.exchanges().stream().filter(e -> e.path().equals("/authorize")).toList().getLast();
    assertThat(FormEncoding.decode(authorize.query())).containsEntry("scope", "admin mcp write");
    assertThat(requests("/register")).isOne();
    assertThat(OAuthClient.union(null, null)).isNull();
    assertThat(OAuthClient.union("b a", " a c ")).isEqualTo("a b c");
  }

  @Test
  void aRefreshTokenNeverTravelsToAnotherAuthorizationServer() throws Exception {
    behave();
    client().token(); // rt-1 from this server
    FakeMcpServer other = new FakeMcpServer(e -> Reply.status(404));
    try {
      String otherBase = "http://127.0.0.1:" + other.port();
      other.script(e -> switch (e.path()) {
        case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(otherBase, "registration_endpoint", "/register"));
        case "/register" -> Reply.json("{\"client_id\":\"other-client\"}");
        case "/authorize" -> {
          Map<String, String> q = FormEncoding.decode(e.query());
          yield Reply.status(302, "Location", q.get("redirect_uri") + "?code=c&state=" + URLEncoder.encode(q.get("state"),
              StandardCharsets.UTF_8));
        }
        case "/token" -> Reply.json("{\"access_token\":\"from-other\"}"); // no refresh token, no scope
        default -> Reply.status(404);
      });
      tokenScript = form -> Reply.body(400, "application/json", "{\"error\":\"invalid_grant\"}");
      server.script(e -> switch (e.path()) { // the resource moved to the other authorization server
        case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"authorization_servers\":[\"" + otherBase + "\"]}");
        case "/token" -> tokenScript.apply(FormEncoding.decode(e.text()));
        default -> Reply.status(404);
      });
      assertThat(client("mcp").unauthorized("at-1", null, null)).isEqualTo("from-other");
      TokenRecord stored = store().load(mcp()).orElseThrow();
      assertThat(stored.issuer()).isEqualTo(otherBase);
      assertThat(stored.refreshToken()).isNull(); // not rt-1 of the first server
      assertThat(stored.scope()).isEqualTo("mcp"); // the requested scope, the answer having named none
      assertThat(stored.clientId()).isEqualTo("other-client");
    } finally {
      other.close();
    }
  }

  @Test
  void theSameStepUpIsNotAskedForTwice() throws Exception {
    behave();
    OAuthClient client = client();
    client.token();
    client.insufficientScope("at-1", "admin", null);
    assertThatThrownBy(() -> client.insufficientScope("at-2", "admin", null)).isInstanceOf(OAuthClient.AuthFailed.class)
        .hasMessageContaining("not asking again");
  }

  @Test
  void withoutABrowserTheDeviceFlowIsChosenWhenTheServerOffersIt() throws Exception {
    server.script(e -> switch (e.path()) {
      case "/.well-known/oauth-authorization-server" -> Reply.json(OAuthPeers.serverMetadata(base(), "registration_endpoint", "/register",
          "device_authorization_endpoint", "/device"));
      case "/register" -> Reply.json("{\"client_id\":\"headless\"}");
      case "/device" -> Reply.json("{\"device_code\":\"dc\",\"user_code\":\"CODE\",\"verification_uri\":\"" + base() + "/a\"}");
      case "/token" -> Reply.json("{\"access_token\":\"via-device\",\"expires_in\":600}");
      default -> Reply.status(404);
    });
    Browser none = new Browser() {
      @Override
      public boolean open(String url) {
        throw new AssertionError("no browser should be tried");
      }

      @Override
      public boolean available() {
        return false;
      }
    };
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    OAuthClient headless = new OAuthClient(mcp(), new OAuthSettings(null, null, null, null, true, null, Duration.ofSeconds(60),
        Duration.ofSeconds(20), false, false, false, true, null), store(), http, none, log::add, log::add, Clock.fixed(now, ZoneOffset.UTC), slept::add);
    assertThat(headless.token()).isEqualTo("via-device");
    assertThat(log).contains("OAuth: no browser can be opened here; signing in with the device flow", "  Code (verify it matches): CODE");
    var registration = dev.mcpstdio.testing.Jsons.parse(server.exchanges().stream().filter(e -> e.path().equals("/register"))
        .findFirst().orElseThrow().text());
    assertThat(registration.has("redirect_uris")).isFalse();
    assertThat(store().load(mcp()).orElseThrow().deviceClient()).isTrue();
    assertThat(java.nio.file.Files.readString(home.resolve("tokens.json"))).contains("\"device_client\" : true");
  }

  @Test
  void withUseIdTokenTheIdTokenIsSentAndARefusedOneIsRenewed() throws Exception {
    behave();
    tokenScript = form -> {
      int n = issued.incrementAndGet();
      return Reply.json("{\"access_token\":\"at-" + n + "\",\"id_token\":\"idt-" + n + "\",\"expires_in\":3600,"
          + "\"refresh_token\":\"rt-" + n + "\"}");
    };
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    OAuthClient idTokens = new OAuthClient(mcp(), new OAuthSettings(null, null, null, null, true, null, Duration.ofSeconds(60),
        Duration.ofSeconds(20), false, false, true, true, null), store(), http, OAuthPeers.approving(),
        log::add, log::add, Clock.fixed(now, ZoneOffset.UTC), slept::add);
    assertThat(idTokens.token()).isEqualTo("idt-1");
    assertThat(idTokens.unauthorized("idt-1", null, null)).isEqualTo("idt-2"); // refreshed, not handed back as it was
  }

  @Test
  void aBackgroundRefreshIsDueBeforeTheLeewayOrHalfwayForTokensShorterLivedThanIt() throws Exception {
    behave();
    client().token(); // expires in an hour: due a minute (the leeway) before
    assertThat(client().refreshDue()).isEqualTo(now.plusSeconds(3600 - 60));
    tokenScript = form -> Reply.json("{\"access_token\":\"short\",\"expires_in\":30,\"refresh_token\":\"rt-s\"}");
    client().unauthorized("at-1", null, null);
    assertThat(client().refreshDue()).isEqualTo(now.plusSeconds(15)); // not in the past: that would loop
  }
}
