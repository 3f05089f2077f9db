package dev.mcpstdio.cli;

import static dev.mcpstdio.cli.CliOptions.flag;
import static dev.mcpstdio.cli.CliOptions.option;
import static dev.mcpstdio.cli.CliOptions.seconds;

import dev.mcpstdio.oauth.EndpointGuard;
import dev.mcpstdio.oauth.OAuthSettings;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParseResult;

/** The relay's OAuth flags (docs/reference.md), and the checks that tie them together. */
final class OAuthOptions {

  /** Flags that only mean something with --oauth. */
  private static final List<String> NEEDS_OAUTH = List.of("--oauth-device", "--oauth-use-id-token", "--no-proactive-refresh",
      "--client-id", "--client-secret-file", "--client-metadata-url",
      "--oauth-scope", "--no-resource-indicator", "--oauth-resource", "--oauth-refresh-leeway", "--oauth-timeout",
      "--token-store", "--client-credentials");

  private OAuthOptions() {}

  static void declare(CommandSpec spec) {
    flag(spec, "--oauth", "Sign in to the server with OAuth 2.1 (browser; tokens kept in the token store).");
    flag(spec, "--oauth-device", "Sign in with the device flow (a code to enter on another device); implies --oauth.");
    option(spec, "--client-id", "ID", String.class, "A pre-registered OAuth client id (default: $MCP_OAUTH_CLIENT_ID).");
    option(spec, "--client-secret-file", "FILE", String.class,
        "Read the pre-registered client's secret from FILE (default: $MCP_OAUTH_CLIENT_SECRET); never on argv.");
    option(spec, "--client-metadata-url", "URL", String.class, "Identify the client by this client ID metadata document (CIMD).");
    option(spec, "--oauth-scope", "SCOPE", String.class, "The scope to ask for (default: what the server advertises).");
    flag(spec, "--no-resource-indicator", "Do not send the RFC 8707 resource parameter.");
    option(spec, "--oauth-resource", "URI", String.class, "The resource to name instead of the server URL.");
    option(spec, "--oauth-refresh-leeway", "SECONDS", String.class,
        "Refresh this long before the access token expires (default 60; $MCP_OAUTH_REFRESH_LEEWAY).");
    option(spec, "--oauth-timeout", "SECONDS", String.class, "How long a sign-in may take (default 120).");
    option(spec, "--token-store", "FILE", String.class,
        "The token store (default $XDG_CONFIG_HOME/mcp-stdio/tokens.json, else ~/.config/mcp-stdio/tokens.json).");
    flag(spec, "--client-credentials", "Sign in as the client itself (machine to machine; needs --client-id and a secret).");
    flag(spec, "--oauth-use-id-token", "Send the OpenID Connect ID token as the bearer token (for servers that want it).");
    flag(spec, "--no-proactive-refresh", "Refresh only when a request finds the token expiring, not in the background.");
  }

  /**
   * The settings, or null without --oauth (unless {@code implied}: {@code auth login} needs no
   * flag to mean it); a usage error for combinations that cannot work.
   */
  static OAuthSettings parse(ParseResult r, Map<String, String> env, Log log, boolean staticAuthorization, boolean implied)
      throws UsageException {
    if (!implied && !r.hasMatchedOption("--oauth") && !r.hasMatchedOption("--oauth-device")) {
      List<String> ignored = NEEDS_OAUTH.stream().filter(r::hasMatchedOption).toList();
      if (!ignored.isEmpty()) {
        log.warn(String.join(", ", ignored) + (ignored.size() == 1 ? " is" : " are") + " ignored without --oauth or --oauth-device");
      }
      return null;
    }
    if (r.hasMatchedOption("--oauth") && r.hasMatchedOption("--oauth-device")) {
      throw new UsageException("--oauth and --oauth-device are two ways to sign in; choose one", ExitCodes.FAILURE);
    }
    if (staticAuthorization) {
      throw new UsageException("--oauth cannot be combined with --bearer-token or -H Authorization", ExitCodes.FAILURE);
    }
    String clientId = r.matchedOptionValue("--client-id", env.get("MCP_OAUTH_CLIENT_ID"));
    String secret = secret(r, env);
    if (secret != null) {
      log.redactor().addSecret(secret);
      if (clientId == null) {
        throw new UsageException("a client secret needs --client-id", ExitCodes.USAGE);
      }
    }
    String metadataUrl = r.matchedOptionValue("--client-metadata-url", null);
    if (metadataUrl != null && (EndpointGuard.refusal(metadataUrl) != null || !metadataUrl.startsWith("https://")
        || java.net.URI.create(metadataUrl).getPath() == null || java.net.URI.create(metadataUrl).getPath().length() < 2)) {
      throw new UsageException("--client-metadata-url must be an https URL with a path", ExitCodes.USAGE);
    }
    if (metadataUrl != null && clientId != null) {
      log.warn("--client-metadata-url is ignored: --client-id names a pre-registered client");
    }
    boolean clientCredentials = r.hasMatchedOption("--client-credentials");
    boolean device = r.hasMatchedOption("--oauth-device");
    if (device && clientCredentials) {
      throw new UsageException("--oauth-device and --client-credentials are two different ways to sign in; choose one",
          ExitCodes.USAGE);
    }
    if (clientCredentials && (clientId == null || secret == null)) {
      throw new UsageException("--client-credentials needs --client-id and a secret (--client-secret-file or "
          + "$MCP_OAUTH_CLIENT_SECRET)", ExitCodes.USAGE);
    }
    String resource = r.matchedOptionValue("--oauth-resource", null);
    boolean indicator = !r.hasMatchedOption("--no-resource-indicator");
    if (resource != null && !indicator) {
      throw new UsageException("--oauth-resource and --no-resource-indicator contradict each other", ExitCodes.FAILURE);
    }
    if (resource != null && !absoluteWithoutFragment(resource)) {
      throw new UsageException("--oauth-resource must be an absolute URI without a fragment", ExitCodes.FAILURE);
    }
    Duration leeway = seconds(r, "--oauth-refresh-leeway", leewayFromEnv(env), true);
    Duration timeout = seconds(r, "--oauth-timeout", OAuthSettings.DEFAULT_FLOW_TIMEOUT, false);
    String store = r.matchedOptionValue("--token-store", null);
    return new OAuthSettings(clientId, secret, metadataUrl, r.matchedOptionValue("--oauth-scope", null), indicator, resource,
        leeway, timeout, clientCredentials, device, r.hasMatchedOption("--oauth-use-id-token"),
        !r.hasMatchedOption("--no-proactive-refresh"), store == null ? null : Path.of(store).toAbsolutePath());
  }

  /** RFC 8707: an absolute URI (any scheme: Entra ID uses api://...), without a fragment. */
  private static boolean absoluteWithoutFragment(String uri) {
    try {
      java.net.URI u = new java.net.URI(uri);
      return u.isAbsolute() && u.getRawFragment() == null && !uri.contains("#");
    } catch (java.net.URISyntaxException e) {
      return false;
    }
  }

  private static String secret(ParseResult r, Map<String, String> env) throws UsageException {
    String file = r.matchedOptionValue("--client-secret-file", null);
    if (file == null) {
      String fromEnv = env.get("MCP_OAUTH_CLIENT_SECRET");
      return fromEnv == null || fromEnv.isBlank() ? null : fromEnv.strip();
    }
    try {
      String secret = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
      if (secret.isEmpty()) {
        throw new UsageException("--client-secret-file " + file + " is empty", ExitCodes.USAGE);
      }
      return secret;
    } catch (IOException e) {
      throw new UsageException("cannot read --client-secret-file " + file + ": " + e.getMessage(), ExitCodes.USAGE);
    }
  }

  private static Duration leewayFromEnv(Map<String, String> env) throws UsageException {
    String text = env.get("MCP_OAUTH_REFRESH_LEEWAY");
    if (text == null || text.isBlank()) {
      return OAuthSettings.DEFAULT_REFRESH_LEEWAY;
    }
    try {
      long s = Long.parseLong(text.strip());
      if (s < 0) {
        throw new NumberFormatException();
      }
      return Duration.ofSeconds(s);
    } catch (NumberFormatException e) {
      throw new UsageException("MCP_OAUTH_REFRESH_LEEWAY must be a whole number of seconds >= 0", ExitCodes.USAGE);
    }
  }
}
