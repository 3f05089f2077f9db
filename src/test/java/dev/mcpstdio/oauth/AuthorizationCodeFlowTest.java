package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.net.URI;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The authorization-code flow end to end on loopback: a scriptable authorization server, the
 * flow's own redirect listener, and a "browser" that follows the server's redirect like a user
 * who clicks "allow".
 */
class AuthorizationCodeFlowTest {

  private final FakeMcpServer as = new FakeMcpServer(e -> Reply.status(404));
  private final List<String> said = new CopyOnWriteArrayList<>();
  private final List<String> visited = new CopyOnWriteArrayList<>();
  private final ClientIdentity client = new ClientIdentity("cid", null, null, ClientIdentity.NONE, null);

  @AfterEach
  void stop() {
    as.close();
  }

  private String issuer() {
    return "http://127.0.0.1:" + as.port();
  }

  private Discovery.ServerMetadata metadata(boolean issSupported) {
    return new Discovery.ServerMetadata(issuer(), URI.create(issuer() + "/authorize"), URI.create(issuer() + "/token"), null,
        null, null, List.of(), List.of("S256"), List.of(), issSupported, false, true);
  }

  /** A browser that follows redirects, as a user who approves would end up on the callback. */
  private Browser following() {
    HttpClient client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.ALWAYS).build();
    return url -> {
      visited.add(url);
      Thread.ofVirtual().start(() -> {
        try {
          client.send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.discarding());
        } catch (Exception e) {
          said.add("browser failed: " + e);
        }
      });
      return true;
    };
  }

  /** The authorization server approves: redirect back with a code, the state, and extra parameters. */
  private void approve(Function<Map<String, String>, String> extra) {
    as.script(e -> {
      if (e.path().equals("/authorize")) {
        Map<String, String> q = FormEncoding.decode(e.query());
        return Reply.status(302, "Location", q.get("redirect_uri") + "?code=the-code&state="
            + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8) + extra.apply(q));
      }
      return Reply.json("{\"access_token\":\"at\",\"refresh_token\":\"rt\",\"expires_in\":300}");
    });
  }

  private AuthorizationCodeFlow flow(Duration timeout) {
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    return new AuthorizationCodeFlow(new TokenEndpoint(http), following(), said::add, timeout);
  }

  @Test
  void anApprovedSignInIsExchangedForTokensWithTheVerifierOfTheChallenge() throws Exception {
    approve(q -> "&iss=" + URLEncoder.encode(issuer(), StandardCharsets.UTF_8));
    AuthorizationCodeFlow.Grant grant = flow(Duration.ofSeconds(20)).run(metadata(true), redirect -> client, "mcp read",
        "https://mcp.example/mcp");

    assertThat(grant.tokens().accessToken()).isEqualTo("at");
    URI authorize = URI.create(visited.getFirst());
    Map<String, String> q = FormEncoding.decode(authorize.getRawQuery());
    assertThat(q).containsOnlyKeys("response_type", "client_id", "redirect_uri", "state", "code_challenge",
        "code_challenge_method", "resource", "scope"); // and no prompt
    assertThat(q.get("redirect_uri")).matches("http://127\\.0\\.0\\.1:\\d+/callback");
    assertThat(q.get("scope")).isEqualTo("mcp read");
    Map<String, String> exchange = FormEncoding.decode(as.exchanges().getLast().text());
    assertThat(exchange.get("code")).isEqualTo("the-code");
    assertThat(Pkce.challengeOf(exchange.get("code_verifier"))).isEqualTo(q.get("code_challenge"));
    assertThat(exchange.get("resource")).isEqualTo("https://mcp.example/mcp");
    assertThat(said.getFirst()).contains("a browser was opened").contains("state=<redacted>")
        .doesNotContain("state=" + URLEncoder.encode(q.get("state"), StandardCharsets.UTF_8));
  }

  @Test
  void aWrongStateOrIssuerIsRefusedBeforeAnyCodeIsRedeemed() throws Exception {
    as.script(e -> e.path().equals("/authorize")
        ? Reply.status(302, "Location", FormEncoding.decode(e.query()).get("redirect_uri") + "?code=c&state=forged")
        : Reply.json("{\"access_token\":\"at\"}"));
    assertThatThrownBy(() -> flow(Duration.ofMillis(1500)).run(metadata(false), r -> client, null, null))
        .hasMessageContaining("did not come back"); // the listener turned the forged answer away
    assertThat(as.exchanges()).noneMatch(e -> e.path().equals("/token"));
    assertThatThrownBy(() -> AuthorizationCodeFlow.check(new LoopbackCallback.Answer(Map.of("code", "c", "state", "forged")),
        "expected", metadata(false))).hasMessageContaining("state does not match"); // and the flow checks again

    approve(q -> "&iss=https%3A%2F%2Fevil.example&error=access_denied&error_description=click+here");
    assertThatThrownBy(() -> flow(Duration.ofSeconds(20)).run(metadata(false), r -> client, null, null))
        .hasMessageContaining("iss mismatch").hasMessageNotContaining("click here");
    approve(q -> "");
    assertThatThrownBy(() -> flow(Duration.ofSeconds(20)).run(metadata(true), r -> client, null, null))
        .hasMessageContaining("lacks the iss");
    assertThat(as.exchanges()).noneMatch(e -> e.path().equals("/token"));
  }

  @Test
  void aRefusalIsReportedSanitisedAndNothingComingBackTimesOut() throws Exception {
    as.script(e -> Reply.status(302, "Location", FormEncoding.decode(e.query()).get("redirect_uri")
        + "?error=access_denied&error_description=%22no%22%0A&state="
        + URLEncoder.encode(FormEncoding.decode(e.query()).get("state"), StandardCharsets.UTF_8)));
    assertThatThrownBy(() -> flow(Duration.ofSeconds(20)).run(metadata(false), r -> client, null, null))
        .hasMessage("the sign-in was refused: access_denied: ?no??");

    as.script(e -> Reply.body(200, "text/html", "<p>log in</p>")); // the user never finishes
    assertThatThrownBy(() -> flow(Duration.ofMillis(300)).run(metadata(false), r -> client, null, null))
        .hasMessageContaining("did not come back");
  }

  @Test
  void withoutABrowserTheWholeUrlIsShownSoTheUserCanOpenIt() {
    as.script(e -> Reply.body(200, "text/html", "<p>log in</p>"));
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    AuthorizationCodeFlow noBrowser = new AuthorizationCodeFlow(new TokenEndpoint(http), url -> false, said::add, Duration.ofMillis(200));
    assertThatThrownBy(() -> noBrowser.run(metadata(false), r -> client, null, null)).hasMessageContaining("did not come back");
    assertThat(said.getFirst()).startsWith("Sign in to continue: open " + issuer() + "/authorize?").contains("&state=")
        .doesNotContain("<redacted>");
  }

  @Test
  void aServerWithoutS256IsRefusedUpFront() {
    Discovery.ServerMetadata plainOnly = new Discovery.ServerMetadata(issuer(), URI.create(issuer() + "/authorize"),
        URI.create(issuer() + "/token"), null, null, null, List.of(), List.of("plain"), List.of(), false, false, true);
    assertThatThrownBy(() -> flow(Duration.ofSeconds(5)).run(plainOnly, r -> client, null, null)).hasMessageContaining("S256");
    assertThat(visited).isEmpty();
  }

  @Test
  void theCallbackAnswersOnceAndOnlyOnItsPath() throws Exception {
    try (LoopbackCallback callback = LoopbackCallback.start()) {
      HttpClient http = HttpClient.newHttpClient();
      String base = callback.redirectUri().replace("/callback", "");
      assertThat(http.send(HttpRequest.newBuilder(URI.create(base + "/other")).build(), HttpResponse.BodyHandlers.ofString())
          .statusCode()).isEqualTo(404);
      HttpResponse<String> bare = http.send(HttpRequest.newBuilder(URI.create(callback.redirectUri())).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(bare.body()).contains("Waiting");
      callback.expect("<script>");
      HttpResponse<String> stranger = http.send(HttpRequest.newBuilder(URI.create(callback.redirectUri()
          + "?code=guess&state=wrong")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(stranger.statusCode()).isEqualTo(400);
      HttpResponse<String> first = http.send(HttpRequest.newBuilder(URI.create(callback.redirectUri()
          + "?code=c1&state=%3Cscript%3E")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(first.body()).contains("Signed in").doesNotContain("<script>");
      assertThat(first.headers().firstValue("Cache-Control")).hasValue("no-store");
      assertThat(first.headers().firstValue("Referrer-Policy")).hasValue("no-referrer");
      HttpResponse<String> second = http.send(HttpRequest.newBuilder(URI.create(callback.redirectUri()
          + "?code=c2&state=%3Cscript%3E")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(second.body()).contains("received already");
      assertThat(callback.await(Duration.ofSeconds(1)).get("code")).isEqualTo("c1");
      assertThat(URLDecoder.decode("%3Cscript%3E", StandardCharsets.UTF_8)).isEqualTo(callback.await(Duration.ofSeconds(1)).get("state"));
    }
  }
}
