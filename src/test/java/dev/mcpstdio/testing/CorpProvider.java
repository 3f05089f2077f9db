package dev.mcpstdio.testing;

import java.net.InetAddress;
import java.util.Map;
import no.nav.security.mock.oauth2.MockOAuth2Server;
import no.nav.security.mock.oauth2.token.OAuth2TokenCallback;

/**
 * A real OpenID Connect provider on loopback ({@code mock-oauth2-server}) with one issuer,
 * {@code corp}: its discovery document, JWKS, authorization and token endpoints, and RS256 tokens
 * issued on demand.
 */
public final class CorpProvider implements AutoCloseable {

  private final MockOAuth2Server server = new MockOAuth2Server();

  private CorpProvider() {
    server.start(InetAddress.getLoopbackAddress(), 0);
  }

  public static CorpProvider start() {
    return new CorpProvider();
  }

  /** The issuer, exactly as its tokens name it (no trailing slash). */
  public String issuer() {
    String url = server.issuerUrl("corp").toString();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /** A signed access token for {@code user} and {@code audience}, with extra claims, for an hour. */
  public String token(String user, String audience, Map<String, Object> claims) {
    return server.issueToken("corp", user, audience, claims, 3600).serialize();
  }

  /** What the next sign-in's tokens say (subject, audience, claims). */
  public void nextSignIn(OAuth2TokenCallback callback) {
    server.enqueueCallback(callback);
  }

  @Override
  public void close() {
    server.shutdown();
  }
}
