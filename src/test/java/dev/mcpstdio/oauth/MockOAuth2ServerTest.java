package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jwt.SignedJWT;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import dev.mcpstdio.testing.OAuthPeers;
import java.net.InetAddress;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The OAuth client against a real, maintained authorization server: NAV's mock-oauth2-server
 * (OpenID Connect discovery with the issuer's path, the authorization-code flow with PKCE, refresh,
 * client credentials; JWT access tokens), in front of a loopback resource server that names it.
 */
class MockOAuth2ServerTest {

  @TempDir
  Path home;

  private final MockOAuth2Server authorization = new MockOAuth2Server();
  private final FakeMcpServer resource = new FakeMcpServer(e -> Reply.status(404));
  private final List<String> log = new CopyOnWriteArrayList<>();

  @BeforeEach
  void start() {
    authorization.start(InetAddress.getLoopbackAddress(), 0);
    String issuer = issuer();
    resource.script(e -> switch (e.path()) {
      case "/mcp" -> Reply.status(401, "WWW-Authenticate", "Bearer resource_metadata=\"http://127.0.0.1:" + resource.port()
          + "/.well-known/oauth-protected-resource/mcp\"");
      case "/.well-known/oauth-protected-resource/mcp" -> Reply.json("{\"resource\":\"" + mcp() + "\",\"authorization_servers\":[\""
          + issuer + "\"],\"scopes_supported\":[\"openid\",\"mcp\"]}");
      default -> Reply.status(404);
    });
  }

  @AfterEach
  void stop() {
    authorization.shutdown();
    resource.close();
  }

  private String issuer() {
    String url = authorization.issuerUrl("mcp-realm").toString();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  private String mcp() {
    return "http://127.0.0.1:" + resource.port() + "/mcp";
  }

  private OAuthClient client(String clientId, String secret, boolean clientCredentials) {
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(10));
    OAuthSettings settings = new OAuthSettings(clientId, secret, null, null, true, null, Duration.ofSeconds(60),
        Duration.ofSeconds(30), clientCredentials, false, false, true, null);
    return new OAuthClient(mcp(), settings, new TokenStore(home.resolve("tokens.json"), null, log::add), http,
        OAuthPeers.approving(), log::add, log::add, Clock.systemUTC(), d -> { });
  }

  @Test
  void aBrowserSignInWithPkceGetsAJwtFromTheRealServerAndItsRefreshTokenRenewsIt() throws Exception {
    OAuthClient client = client("mcp-stdio-test", null, false);
    String first = client.token();
    SignedJWT jwt = SignedJWT.parse(first);
    assertThat(jwt.getJWTClaimsSet().getIssuer()).isEqualTo(issuer());
    assertThat(jwt.getJWTClaimsSet().getAudience()).isNotEmpty();
    TokenRecord stored = new TokenStore(home.resolve("tokens.json"), null, log::add).load(mcp()).orElseThrow();
    assertThat(stored.issuer()).isEqualTo(issuer());
    assertThat(stored.refreshToken()).isNotNull();
    assertThat(stored.tokenEndpoint()).isEqualTo(authorization.tokenEndpointUrl("mcp-realm").toString());

    String renewed = client.unauthorized(first, null, null);
    assertThat(renewed).isNotEqualTo(first);
    assertThat(SignedJWT.parse(renewed).getJWTClaimsSet().getIssuer()).isEqualTo(issuer());
    assertThat(log).anySatisfy(l -> assertThat(l).contains("access token refreshed"));
    assertThat(String.join("\n", log)).doesNotContain(first).doesNotContain(renewed).doesNotContain(stored.refreshToken());
  }

  @Test
  void aConfidentialClientSignsInAsItselfWithClientCredentials() throws Exception {
    String token = client("machine-client", "machine-secret", true).token();
    assertThat(SignedJWT.parse(token).getJWTClaimsSet().getSubject()).isEqualTo("machine-client");
  }
}
