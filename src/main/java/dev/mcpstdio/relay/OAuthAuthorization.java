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
  private final java.util.function.Consumer<String> secrets;
  private final java.util.Set<String> registered = java.util.concurrent.ConcurrentHashMap.newKeySet();

  /** @param secrets told each access token once, so the log never shows it (the relay's redactor) */
  public OAuthAuthorization(OAuthClient client, TokenStore store, String serverUrl, java.util.function.Consumer<String> secrets) {
    this.client = client;
    this.store = store;
    this.serverUrl = serverUrl;
    this.secrets = secrets;
  }

  private String bearer(String token) {
    if (registered.add(token)) {
      secrets.accept(token);
    }
    return "Bearer " + token;
  }

  @Override
  public String header() throws Unavailable, InterruptedException {
    try {
      return bearer(client.token());
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }

  @Override
  public String current() {
    return store.load(serverUrl).map(r -> bearer(r.accessToken())).orElse(null);
  }

  @Override
  public String renew(String rejected, int status, List<String> challenges) throws Unavailable, InterruptedException {
    String rejectedToken = rejected.startsWith("Bearer ") ? rejected.substring("Bearer ".length()) : rejected;
    Optional<AuthChallenge> bearer = AuthChallenge.bearer(challenges);
    String hint = bearer.map(AuthChallenge::resourceMetadata).orElse(null);
    try {
      if (status == 403) {
        String scope = bearer.filter(c -> "insufficient_scope".equals(c.error())).map(AuthChallenge::scope).orElse(null);
        if (scope == null) {
          return null; // forbidden without naming a scope: more scope would not help
        }
        return bearer(client.insufficientScope(rejectedToken, scope, hint));
      }
      return bearer(client.unauthorized(rejectedToken, hint, bearer.map(AuthChallenge::scope).orElse(null)));
    } catch (OAuthClient.AuthFailed e) {
      throw new Unavailable(e.getMessage());
    }
  }
}
