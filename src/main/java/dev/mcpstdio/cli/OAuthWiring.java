package dev.mcpstdio.cli;

import dev.mcpstdio.net.OutboundHttp;
import dev.mcpstdio.oauth.Browser;
import dev.mcpstdio.oauth.OAuthClient;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.OAuthSettings;
import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.relay.Authorization;
import dev.mcpstdio.relay.OAuthAuthorization;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

/** Builds the relay's OAuth sign-in from its settings: the token store, an HTTP client without cookies, the browser. */
final class OAuthWiring {

  /** How long one OAuth HTTP request (discovery, token, registration) may take. */
  static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  private OAuthWiring() {}

  static Authorization create(RelayConfig config, Map<String, String> env, Log log) throws IOException {
    OAuthSettings s = config.oauth();
    Log oauthLog = log.tagged("oauth");
    TokenStore store = s.tokenStore() != null ? TokenStore.at(s.tokenStore(), oauthLog::warn)
        : new TokenStore(TokenStore.defaultPath(env), TokenStore.legacyPath(env), oauthLog::warn);
    OAuthHttp http = new OAuthHttp(OutboundHttp.createWithoutCookies(
        new OutboundHttp.Settings(config.connectTimeout(), config.caFiles(), env)), REQUEST_TIMEOUT);
    String server = config.url().toString();
    OAuthClient client = new OAuthClient(server, s, store, http, Browser.system(env), oauthLog::info, oauthLog::prompt, Clock.systemUTC(), d -> Thread.sleep(d.toMillis()));
    return new OAuthAuthorization(client, log.redactor(), s.proactiveRefresh(), Clock.systemUTC());
  }
}
