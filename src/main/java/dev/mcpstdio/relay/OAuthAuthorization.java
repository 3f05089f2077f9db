package dev.mcpstdio.relay;

import dev.mcpstdio.oauth.AuthChallenge;
import dev.mcpstdio.oauth.OAuthClient;
import dev.mcpstdio.oauth.TokenStore;
import java.util.List;
import java.util.Optional;

/** The relay's {@link Authorization} from its OAuth client: stored logins, refresh, sign-in, step-up. */
public final class OAuthAuthorization implements Authorization {

  private final OAuthClient client;
  private final TokenStore store;
  private final String serverUrl;

  public OAuthAuthorization(OAuthClient client, TokenStore store, String serverUrl) {
    this.client = client;
    this.store = store;
    this.serverUrl = serverUrl;
  }

  @Override
  public String header() throws Unavailable, InterruptedException {
    try {
      return "Bearer " + client.token();
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }

  @Override
  public String current() {
    return store.load(serverUrl).map(r -> "Bearer " + r.accessToken()).orElse(null);
  }

  @Override
  public String renew(String rejected, int status, List<String> challenges) throws Unavailable, InterruptedException {
    String rejectedToken = rejected.startsWith("Bearer ") ? rejected.substring("Bearer ".length()) : rejected;
    Optional<AuthChallenge> bearer = AuthChallenge.bearer(challenges);
    String hint = bearer.map(AuthChallenge::resourceMetadata).orElse(null);
    try {
      if (status == 403) {
        String scope = bearer.map(AuthChallenge::scope).orElse(null);
        if (scope == null) {
          return null; // forbidden without naming a scope: more scope would not help
        }
        return "Bearer " + client.insufficientScope(rejectedToken, scope, hint);
      }
      return "Bearer " + client.unauthorized(rejectedToken, hint);
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }
}
