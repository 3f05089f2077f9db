package dev.mcpstdio.cli;

import static dev.mcpstdio.cli.CliOptions.flag;
import static dev.mcpstdio.cli.CliOptions.option;
import static dev.mcpstdio.cli.CliOptions.parseOrAnswer;

import dev.mcpstdio.Version;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.net.OutboundHttp;
import dev.mcpstdio.oauth.ClientIdentity;
import dev.mcpstdio.oauth.Discovery;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.ServerKey;
import dev.mcpstdio.oauth.TokenEndpoint;
import dev.mcpstdio.oauth.TokenRecord;
import dev.mcpstdio.oauth.TokenStore;
import dev.mcpstdio.relay.Authorization;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.StdoutWire;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

/**
 * {@code mcp-stdio auth list|login|logout}: the stored logins, seen and managed without relaying.
 * {@code list} writes one JSON object per login on stdout (never a token); {@code login URL} signs
 * in as the relay would with the same OAuth flags; {@code logout URL} revokes the tokens where the
 * server offers RFC 7009 revocation and forgets the login either way.
 */
final class AuthCommand {

  private AuthCommand() {}

  private static CommandSpec spec() {
    CommandSpec spec = CommandSpec.create().name("mcp-stdio auth").version("mcp-stdio " + Version.get());
    spec.usageMessage().description("See, make and drop the relay's OAuth logins.",
        "  list            every stored login, one JSON object per line on stdout",
        "  login URL       sign in to the server at URL now (takes the relay's OAuth flags)",
        "  logout URL      revoke (where offered) and forget the login for URL");
    spec.addPositional(PositionalParamSpec.builder().paramLabel("ACTION").arity("1").type(String.class).build());
    spec.addPositional(PositionalParamSpec.builder().paramLabel("URL").arity("0..1").type(String.class).build());
    OAuthOptions.declare(spec);
    option(spec, "--timeout-connect", "SECONDS", String.class, "Connection timeout (default 10).");
    flag(spec, "-V", "--version", "Print the version and exit.");
    flag(spec, "-h", "--help", "Show this help and exit.");
    return spec;
  }

  static int run(String[] args, Map<String, String> env, StdoutWire wire, Log log, PrintWriter err)
      throws UsageException, InterruptedException {
    ParseResult r = parseOrAnswer(new CommandLine(spec()), args, args, "mcp-stdio auth --help", err);
    if (r == null) {
      return ExitCodes.OK;
    }
    String action = r.matchedPositional(0).getValue();
    String url = r.matchedPositionals().size() > 1 ? r.matchedPositional(1).getValue() : null;
    String storeOption = r.matchedOptionValue("--token-store", null);
    TokenStore store = storeOption != null ? TokenStore.at(Path.of(storeOption), log::warn)
        : new TokenStore(TokenStore.defaultPath(env), TokenStore.legacyPath(env), log::warn);
    switch (action) {
      case "list" -> {
        for (Map.Entry<String, TokenRecord> e : store.all().entrySet()) {
          wire.write(describe(e.getKey(), e.getValue()).getBytes(StandardCharsets.UTF_8));
        }
        return ExitCodes.OK;
      }
      case "login" -> {
        URI server = RelayCommand.url(need(url, action));
        RelayConfig config = RelayConfig.defaults(server).withOAuth(OAuthOptions.parse(r, env, log, false, true));
        try {
          Authorization auth = OAuthWiring.create(config, env, log);
          boolean already = auth.existing() != null;
          auth.header();
          log.info((already ? "already signed in to " : "signed in to ") + ServerKey.of(server.toString())
              + "; the login is in " + store.file());
          return ExitCodes.OK;
        } catch (IOException | Authorization.Unavailable e) {
          log.error("sign-in failed: " + e.getMessage());
          return ExitCodes.FAILURE;
        }
      }
      case "logout" -> {
        String server = RelayCommand.url(need(url, action)).toString();
        Optional<TokenRecord> login = store.load(server);
        if (login.isEmpty()) {
          log.warn("no login stored for " + ServerKey.of(server));
          return ExitCodes.FAILURE;
        }
        revoke(login.get(), env, log, CliOptions.seconds(r, "--timeout-connect", Duration.ofSeconds(10), false));
        try {
          store.delete(server);
        } catch (IOException e) {
          log.error("cannot update the token store: " + e.getMessage());
          return ExitCodes.FAILURE;
        }
        log.info("logged out of " + ServerKey.of(server));
        return ExitCodes.OK;
      }
      default -> throw new UsageException("unknown action '" + action + "': list, login or logout", ExitCodes.USAGE);
    }
  }

  private static String need(String url, String action) throws UsageException {
    if (url == null) {
      throw new UsageException("auth " + action + " needs the server's URL", ExitCodes.USAGE);
    }
    return url;
  }

  /** Best effort: the refresh token first (it outlives the access token), then the access token. */
  private static void revoke(TokenRecord login, Map<String, String> env, Log log, Duration connect) throws InterruptedException {
    if (login.issuer() == null || login.clientId() == null) {
      return;
    }
    try {
      OAuthHttp http = new OAuthHttp(OutboundHttp.createWithoutCookies(new OutboundHttp.Settings(connect, List.of(), env)),
          OAuthWiring.REQUEST_TIMEOUT);
      Discovery.ServerMetadata server = new Discovery(http).metadataOf(login.issuer());
      if (server == null || server.revocationEndpoint() == null) {
        log.info("the authorization server offers no token revocation; the login is only forgotten here");
        return;
      }
      ClientIdentity client = new ClientIdentity(login.clientId(), login.clientSecret(), login.clientSecretExpiresAt(),
          login.tokenEndpointAuthMethod(), login.issuer());
      TokenEndpoint tokens = new TokenEndpoint(http);
      boolean refresh = login.refreshToken() == null
          || tokens.revoke(server.revocationEndpoint(), client, login.refreshToken(), "refresh_token");
      boolean access = tokens.revoke(server.revocationEndpoint(), client, login.accessToken(), "access_token");
      log.info(refresh && access ? "the tokens were revoked at the server" : "the server did not confirm the revocation");
    } catch (IOException e) {
      log.warn("cannot reach the authorization server to revoke the tokens: " + e.getMessage());
    }
  }

  /** One login as a JSON object: where, who, what, until when; never a token or a secret. */
  static String describe(String server, TokenRecord r) {
    int query = server.indexOf('?');
    String shown = query < 0 ? server : server.substring(0, query) + "?<redacted>"; // a query may hold an API key
    return "{\"server\":" + Json.quote(shown) + ",\"issuer\":" + quoteOrNull(r.issuer()) + ",\"clientId\":"
        + quoteOrNull(r.clientId()) + ",\"scope\":" + quoteOrNull(r.scope()) + ",\"expiresAt\":"
        + (r.expiresAt() == null ? "null" : Json.quote(r.expiresAt().toString())) + ",\"refreshable\":"
        + (r.refreshToken() != null) + "}";
  }

  private static String quoteOrNull(String s) {
    return s == null ? "null" : Json.quote(s);
  }
}
