package dev.mcpstdio.cli;

import static dev.mcpstdio.cli.CliOptions.bytes;
import static dev.mcpstdio.cli.CliOptions.flag;
import static dev.mcpstdio.cli.CliOptions.level;
import static dev.mcpstdio.cli.CliOptions.option;
import static dev.mcpstdio.cli.CliOptions.parseOrAnswer;
import static dev.mcpstdio.cli.CliOptions.seconds;

import dev.mcpstdio.Version;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.stdio.Log;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/** {@code mcp-stdio serve [OPTIONS] [--] [COMMAND [ARGS...]]}: options into a {@link ServeConfig}. */
final class ServeCommand {

  /** What parsing produced: a config to run, or an exit code to return right away. */
  record Parsed(ServeConfig config, Integer exitNow, Log.Format logFormat) {}

  private ServeCommand() {}

  static CommandSpec spec() {
    CommandSpec spec = CommandSpec.create().name("mcp-stdio serve").version("mcp-stdio " + Version.get());
    spec.usageMessage().description(
        "Publish a stdio MCP server as a Streamable HTTP endpoint: one child process per session.",
        "Without a COMMAND, serves the built-in demo server (mcp-stdio demo).");
    spec.parser().stopAtPositional(true);
    spec.addPositional(PositionalParamSpec.builder().paramLabel("COMMAND [ARGS...]").arity("0..*").type(List.class)
        .auxiliaryTypes(String.class).description("The stdio server to run for each session (no shell).").build());
    option(spec, "--host", "HOST", String.class, "Bind address (default 127.0.0.1).");
    option(spec, "--port", "PORT", String.class, "Bind port; 0 picks a free one (default 8080).");
    option(spec, "--path", "PATH", String.class, "The MCP endpoint path (default /mcp).");
    option(spec, "--sse-path", "PATH", String.class, "Where legacy HTTP+SSE (2024-11-05) clients open their stream (default /sse).");
    option(spec, "--messages-path", "PATH", String.class, "Where legacy HTTP+SSE clients POST messages (default /messages).");
    flag(spec, "--no-sse", "Serve no legacy HTTP+SSE endpoints.");
    spec.addOption(OptionSpec.builder("--session-arg").paramLabel("TEMPLATE").type(List.class).auxiliaryTypes(String.class)
        .description("Append an argument to each session's command (repeatable); {sessionId}, {workspaceRoot} and "
            + "{plansFolder} are replaced. Shows in ps: never put secrets here.")
        .parameterConsumer(ServeCommand::verbatim).build());
    option(spec, "--workspace-root", "DIR", String.class, "Give each session a private folder DIR/<session id> (0700), removed with it.");
    flag(spec, "--keep-workspaces", "Keep session folders after their sessions end.");
    option(spec, "--callback-timeout", "SECONDS", String.class,
        "How long a child's callback waits for the host's decision (default 120; see docs/callbacks.md).");
    option(spec, "--child-stderr-rate", "BYTES", String.class,
        "Bytes per second of each child's stderr that reach the log, in bursts of up to 16 s' worth; the rest is"
            + " dropped and counted (default 16384).");
    option(spec, "--max-sessions", "N", String.class, "Live sessions at most; initialize past it gets 503 (default 100).");
    option(spec, "--session-idle-ttl", "SECONDS", String.class, "End sessions idle this long (no request in flight, no open stream); 0 never (default 1800).");
    option(spec, "--warm", "N", String.class,
        "Keep N session children started ahead of their clients (spawned, not initialized: a client's initialize"
            + " is the first line each sees), extra processes beside --max-sessions; one unused for --session-idle-ttl"
            + " is closed (default 0: each child starts when its client initializes).");
    flag(spec, "--modern-only", "Serve only 2026-07-28 clients: GET and DELETE get 405, a 2025-era initialize -32022.");
    option(spec, "--cache-ttl-ms", "MS", String.class, "The ttlMs stamped on cacheable 2026-era results (default 60000).");
    option(spec, "--modern-idle-ttl", "SECONDS", String.class, "Close pooled 2026-era children idle this long; 0 never (default 0).");
    option(spec, "--max-children-per-principal", "N", String.class,
        "Pooled 2026-era children per authenticated principal at most (default " + ServeConfig.Era2026.DEFAULT_PER_PRINCIPAL + ").");
    option(spec, "--max-pool-children", "N", String.class,
        "Pooled 2026-era children in all at most (default " + ServeConfig.Era2026.DEFAULT_TOTAL + ").");
    option(spec, "--max-message-size", "BYTES", String.class, "Largest request body and server line; 0 disables (default 10485760).");
    option(spec, "--backend-timeout", "SECONDS", String.class, "How long a request waits for the server's answer before 504 (default 120).");
    option(spec, "--max-connections", "N", String.class,
        "Connections open at once; past it new ones wait until one closes (default " + ServeConfig.Connections.DEFAULT_MAX + ").");
    option(spec, "--header-timeout", "SECONDS", String.class,
        "How long a request's head may take from its first byte; then the connection is closed (default 10).");
    option(spec, "--body-timeout", "SECONDS", String.class,
        "How long a request body may take, plus 1 s per 16 KiB it delivered; then 408 (default 30).");
    spec.addOption(OptionSpec.builder("--allow-origin").paramLabel("ORIGIN").type(List.class).auxiliaryTypes(String.class)
        .description("Also accept browser requests from this origin, e.g. https://app.example (repeatable).").build());
    option(spec, "--public-url", "URL", String.class, "The URL clients use to reach this endpoint (behind a proxy).");
    flag(spec, "--enable-oauth", "Run an embedded OAuth 2.1 authorization server; clients sign their user in (docs/reference.md).");
    option(spec, "--dev-user", "NAME", String.class, "With --enable-oauth: sign every authorization in as NAME (local tests only).");
    option(spec, "--trusted-user-header", "NAME", String.class,
        "With --enable-oauth: the header an authenticating proxy in front sets to the signed-in user.");
    spec.addOption(OptionSpec.builder("--allow-redirect-uri").paramLabel("URI").type(List.class).auxiliaryTypes(String.class)
        .description("With --enable-oauth: a hosted client's exact https redirect URI (repeatable).").build());
    option(spec, "--access-token-ttl", "SECONDS", String.class, "With --enable-oauth: access token lifetime (default 3600).");
    option(spec, "--login-oidc", "ISSUER", String.class,
        "With --enable-oauth: sign users in at this OpenID Connect provider when no trusted header names them.");
    option(spec, "--login-oidc-client-id", "ID", String.class, "With --login-oidc: this gateway's client at the provider.");
    option(spec, "--login-oidc-client-secret-file", "FILE", String.class,
        "Its secret, read from FILE (default: $MCP_STDIO_LOGIN_OIDC_CLIENT_SECRET).");
    option(spec, "--token-store", "FILE", String.class,
        "With --enable-oauth: keep clients and grants in FILE (0600, folder 0700), so that a restart signs nobody out.");
    option(spec, "--oauth-issuer", "URL", String.class,
        "Resource-server mode: take access tokens of this identity provider (JWTs by its keys, others by introspection).");
    option(spec, "--oauth-audience", "AUD", String.class, "With --oauth-issuer: the audience tokens must name (default: this endpoint's URL).");
    spec.addOption(OptionSpec.builder("--require-scope").paramLabel("SCOPE").type(List.class).auxiliaryTypes(String.class)
        .description("With --oauth-issuer: a scope every token must carry, else 403 insufficient_scope (repeatable).").build());
    option(spec, "--oauth-client-id", "ID", String.class,
        "With --oauth-issuer: this gateway's client at the provider, to introspect opaque tokens.");
    option(spec, "--oauth-client-secret-file", "FILE", String.class,
        "Its secret, read from FILE (default: $MCP_STDIO_OAUTH_CLIENT_SECRET).");
    option(spec, "--max-sessions-per-owner", "N", String.class,
        "A signed-in user holds at most N sessions; its next initialize ends its least recently used (default 0: no bound).");
    option(spec, "--user-env", "VAR", String.class,
        "Give each child of a signed-in user its user's name in environment variable VAR (not with --warm).");
    flag(spec, "--trust-proxy-headers",
        "A proxy in front sets X-Forwarded-Host and X-Forwarded-Proto: reflect them (ignored otherwise).");
    option(spec, "--auth-token", "TOKEN", String.class,
        "Require 'Authorization: Bearer TOKEN' (default: $MCP_STDIO_SERVE_TOKEN; prefer the env var, flags show in ps).");
    option(spec, "--log-level", "LEVEL", String.class, "debug, info, warn, error or off (default info).");
    CliOptions.declareLogFormat(spec);
    flag(spec, "-v", "--verbose", "Same as --log-level debug.");
    flag(spec, "-q", "--quiet", "Same as --log-level warn.");
    flag(spec, "-V", "--version", "Print the version and exit.");
    flag(spec, "-h", "--help", "Show this help and exit.");
    return spec;
  }

  static Parsed parse(String[] args, Map<String, String> env, Log log, PrintWriter err) throws UsageException {
    // A later single-valued option wins over an earlier one, so the arguments given to the OCI
    // image (appended to its entrypoint's "serve --host 0.0.0.0 --port 8080") can override those.
    CommandLine commandLine = new CommandLine(spec()).setOverwrittenOptionsAllowed(true);
    ParseResult r = parseOrAnswer(commandLine, args, gatewayOptions(args), "mcp-stdio serve --help", err);
    if (r == null) {
      return new Parsed(null, ExitCodes.OK, Log.Format.TEXT);
    }
    return new Parsed(build(r, env, log), null, CliOptions.logFormat(r, env));
  }

  /**
   * A session argument is taken as written, even when it looks like one of serve's own options
   * ({@code --session-arg --workspace-root}: the child's option, not serve's).
   */
  private static void verbatim(java.util.Stack<String> args, CommandLine.Model.ArgSpec option,
      CommandSpec command) {
    if (args.isEmpty()) {
      throw new CommandLine.ParameterException(command.commandLine(), "Missing required parameter for option "
          + "'--session-arg' (TEMPLATE)");
    }
    List<String> values = option.getValue() == null ? new ArrayList<>() : new ArrayList<>(option.<List<String>>getValue());
    values.add(args.pop());
    option.setValue(values);
  }

  /** Options with a value (the word after them belongs to them). */
  private static final java.util.Set<String> VALUED = java.util.Set.of("--host", "--port", "--path", "--sse-path",
      "--messages-path", "--session-arg", "--workspace-root", "--callback-timeout", "--child-stderr-rate", "--max-sessions",
      "--session-idle-ttl", "--max-message-size", "--backend-timeout", "--max-connections", "--header-timeout",
      "--body-timeout", "--allow-origin", "--public-url", "--auth-token", "--log-level", "--log-format", "--cache-ttl-ms",
      "--modern-idle-ttl", "--max-children-per-principal", "--max-pool-children", "--warm", "--dev-user",
      "--trusted-user-header", "--allow-redirect-uri", "--access-token-ttl", "--max-sessions-per-owner", "--user-env",
      "--token-store", "--login-oidc", "--login-oidc-client-id", "--login-oidc-client-secret-file", "--oauth-issuer", "--oauth-audience", "--require-scope", "--oauth-client-id", "--oauth-client-secret-file");

  /** The arguments before the child's command: a {@code --help} after it is the child's own. */
  static String[] gatewayOptions(String[] args) {
    int i = 0;
    while (i < args.length && !args[i].equals("--") && args[i].startsWith("-")) {
      i += VALUED.contains(args[i]) ? 2 : 1;
    }
    return java.util.Arrays.copyOf(args, Math.min(i, args.length));
  }

  /** The environment variables that hold the gateway's own secrets: removed from every child's environment. */
  static final Set<String> GATEWAY_SECRETS = Set.of("MCP_STDIO_SERVE_TOKEN", "MCP_STDIO_OAUTH_CLIENT_SECRET",
      "MCP_STDIO_LOGIN_OIDC_CLIENT_SECRET");

  private static ServeConfig build(ParseResult r, Map<String, String> env, Log log) throws UsageException {
    List<String> command = new ArrayList<>();
    if (!r.matchedPositionals().isEmpty()) {
      command.addAll(r.matchedPositional(0).getValue());
    }
    // The gateway's secrets guard it; the child (third-party code, and whatever it spawns) never sees them.
    ChildSpec child = (command.isEmpty() ? demoChild(env) : new ChildSpec(command).without(Set.of("MCP_STDIO_LAUNCHER")))
        .without(GATEWAY_SECRETS);
    ServeConfig config = ServeConfig.defaults(child);

    String host = r.matchedOptionValue("--host", "127.0.0.1").trim();
    if (host.isEmpty()) {
      throw new UsageException("--host must not be empty", ExitCodes.USAGE);
    }
    int port = integer(r, "--port", ServeConfig.DEFAULT_PORT, 0, 65535);
    String path = endpointPath(r, "--path", ServeConfig.DEFAULT_PATH);
    int maxSessions = integer(r, "--max-sessions", ServeConfig.DEFAULT_MAX_SESSIONS, 1, 100_000);
    Duration idle = seconds(r, "--session-idle-ttl", ServeConfig.DEFAULT_SESSION_IDLE_TTL, true);
    int warm = integer(r, "--warm", 0, 0, ServeConfig.MAX_WARM);
    if (warm > maxSessions) {
      throw new UsageException("--warm must not exceed --max-sessions (" + maxSessions + "): a warm child waits for a"
          + " session slot", ExitCodes.USAGE);
    }
    long maxMessage = bytes(r, "--max-message-size", ServeConfig.DEFAULT_MAX_MESSAGE_SIZE);
    Duration backend = seconds(r, "--backend-timeout", ServeConfig.DEFAULT_BACKEND_TIMEOUT, false);
    ServeConfig.Connections connections = new ServeConfig.Connections(
        integer(r, "--max-connections", ServeConfig.Connections.DEFAULT_MAX, 1, 1_000_000),
        seconds(r, "--header-timeout", ServeConfig.Connections.DEFAULT_HEADER_TIMEOUT, false),
        seconds(r, "--body-timeout", ServeConfig.Connections.DEFAULT_BODY_TIMEOUT, false));
    List<String> origins = new ArrayList<>();
    for (String origin : r.matchedOptionValue("--allow-origin", List.<String>of())) {
      origins.add(origin(origin));
    }
    URI publicUrl = r.hasMatchedOption("--public-url") ? publicUrl(r.matchedOptionValue("--public-url", "")) : null;

    String token = env.get("MCP_STDIO_SERVE_TOKEN");
    if (r.hasMatchedOption("--auth-token")) {
      token = r.matchedOptionValue("--auth-token", "");
      log.warn("--auth-token is visible to every local user in ps; prefer MCP_STDIO_SERVE_TOKEN");
    }
    if (token != null && token.isBlank()) {
      token = null;
    }
    if (token != null) {
      log.redactor().addSecret(token);
    }
    if (token == null && !dev.mcpstdio.net.Hosts.isLoopback(host)) {
      log.warn("serving on " + host + " without authentication: anyone who can reach this port can run "
          + child.argv().getFirst() + "; set MCP_STDIO_SERVE_TOKEN");
    }
    String ssePath = endpointPath(r, "--sse-path", ServeConfig.DEFAULT_SSE_PATH);
    String messagesPath = endpointPath(r, "--messages-path", ServeConfig.DEFAULT_MESSAGES_PATH);
    if (!r.hasMatchedOption("--no-sse") && (ssePath.equals(path) || messagesPath.equals(path) || ssePath.equals(messagesPath))) {
      throw new UsageException("--path, --sse-path and --messages-path must differ", ExitCodes.USAGE);
    }
    ServeConfig.EmbeddedOAuth oauth = oauth(r, env, host, publicUrl, log);
    dev.mcpstdio.serve.auth.ExternalTokens.Settings provider = identityProvider(r, env, host, publicUrl, log);
    if (provider != null && oauth.enabled()) {
      throw new UsageException("--oauth-issuer and --enable-oauth cannot be used together: an endpoint has one authorization server",
          ExitCodes.USAGE);
    }
    return new ServeConfig(host, port, path, child, maxSessions, idle, maxMessage, backend,
        ServeConfig.DEFAULT_KEEP_ALIVE, origins, publicUrl, r.hasMatchedOption("--trust-proxy-headers"), token,
        ChildProcess.Ladder.DEFAULT, level(r), r.hasMatchedOption("--no-sse") ? null : ssePath, messagesPath, launch(r),
        connections, era2026(r), warm, oauth, owners(r, oauth.enabled() || provider != null, warm), provider);
  }

  /** {@code --max-sessions-per-owner} and {@code --user-env}: what a signed-in user's sessions get. */
  private static ServeConfig.Owners owners(ParseResult r, boolean users, int warm) throws UsageException {
    int perOwner = integer(r, "--max-sessions-per-owner", 0, 0, ServeConfig.DEFAULT_MAX_SESSIONS * 1000);
    String userEnv = r.matchedOptionValue("--user-env", (String) null);
    if ((perOwner > 0 || userEnv != null) && !users) {
      throw new UsageException("--max-sessions-per-owner and --user-env need signed-in users (--enable-oauth or --oauth-issuer)",
          ExitCodes.USAGE);
    }
    if (userEnv != null) {
      String refusal = ServeConfig.Owners.refusal(userEnv);
      if (refusal != null) {
        throw new UsageException("--user-env " + userEnv + ": " + refusal, ExitCodes.USAGE);
      }
      if (warm > 0) {
        throw new UsageException("--user-env cannot be used with --warm: a warm child starts before its user is known",
            ExitCodes.USAGE);
      }
    }
    return new ServeConfig.Owners(perOwner, userEnv);
  }

  /** {@code --login-oidc} and its client; null without it. */
  private static dev.mcpstdio.serve.auth.FederationSettings federatedLogin(ParseResult r, Map<String, String> env, Log log)
      throws UsageException {
    String issuer = r.matchedOptionValue("--login-oidc", (String) null);
    String clientId = r.matchedOptionValue("--login-oidc-client-id", (String) null);
    String secretFile = r.matchedOptionValue("--login-oidc-client-secret-file", (String) null);
    if (issuer == null) {
      if (clientId != null || secretFile != null) {
        throw new UsageException("--login-oidc-client-id and --login-oidc-client-secret-file need --login-oidc", ExitCodes.USAGE);
      }
      return null;
    }
    issuerRefusal("--login-oidc", issuer);
    if (clientId == null || clientId.isBlank()) {
      throw new UsageException("--login-oidc needs --login-oidc-client-id: the gateway's client at the provider", ExitCodes.USAGE);
    }
    String secret = secret(secretFile, "--login-oidc-client-secret-file", env.get("MCP_STDIO_LOGIN_OIDC_CLIENT_SECRET"));
    if (secret == null) {
      throw new UsageException("--login-oidc needs the client's secret: --login-oidc-client-secret-file or"
          + " $MCP_STDIO_LOGIN_OIDC_CLIENT_SECRET", ExitCodes.USAGE);
    }
    log.redactor().addSecret(secret);
    return new dev.mcpstdio.serve.auth.FederationSettings(issuer, clientId, secret);
  }

  /** Refuses an issuer URL the gateway would not fetch from. */
  private static void issuerRefusal(String flag, String issuer) throws UsageException {
    String refusal = dev.mcpstdio.oauth.EndpointGuard.refusal(issuer);
    if (refusal == null && (URI.create(issuer).getRawQuery() != null || URI.create(issuer).getRawFragment() != null)) {
      refusal = "an issuer has no query or fragment";
    }
    if (refusal != null) {
      throw new UsageException(flag + " " + issuer + ": " + refusal, ExitCodes.USAGE);
    }
  }

  /** A client secret: the file's content (trimmed) when {@code file} is given, else {@code fromEnv}; null when empty. */
  private static String secret(String file, String flag, String fromEnv) throws UsageException {
    String secret = fromEnv;
    if (file != null) {
      try {
        secret = java.nio.file.Files.readString(Path.of(file)).strip();
      } catch (java.io.IOException | RuntimeException e) {
        throw new UsageException(flag + " " + file + ": cannot be read (" + e.getMessage() + ")", ExitCodes.USAGE);
      }
    }
    return secret == null || secret.isEmpty() ? null : secret;
  }

  /** {@code --oauth-issuer} and the flags that go with it (resource-server mode); null without it. */
  private static dev.mcpstdio.serve.auth.ExternalTokens.Settings identityProvider(ParseResult r, Map<String, String> env, String host,
      URI publicUrl, Log log) throws UsageException {
    String issuer = r.matchedOptionValue("--oauth-issuer", (String) null);
    String audience = r.matchedOptionValue("--oauth-audience", (String) null);
    List<String> scopes = r.matchedOptionValue("--require-scope", List.<String>of());
    String clientId = r.matchedOptionValue("--oauth-client-id", (String) null);
    String secretFile = r.matchedOptionValue("--oauth-client-secret-file", (String) null);
    if (issuer == null) {
      if (audience != null || !scopes.isEmpty() || clientId != null || secretFile != null) {
        throw new UsageException("--oauth-audience, --require-scope, --oauth-client-id and --oauth-client-secret-file need --oauth-issuer",
            ExitCodes.USAGE);
      }
      return null;
    }
    issuerRefusal("--oauth-issuer", issuer);
    if (audience != null && (audience.isBlank() || audience.length() > 2048 || audience.chars().anyMatch(c -> c < 0x20 || c == 0x7F))) {
      throw new UsageException("--oauth-audience must be 1 to 2048 characters without control characters", ExitCodes.USAGE);
    }
    if (audience == null && publicUrl == null && !dev.mcpstdio.net.Hosts.isLoopback(host)) {
      throw new UsageException("--oauth-issuer on " + host + " needs --oauth-audience or --public-url: the audience its tokens must"
          + " name is this endpoint's fixed URL, never one built from what a request says", ExitCodes.USAGE);
    }
    for (String scope : scopes) {
      if (!dev.mcpstdio.serve.auth.ExternalTokens.Settings.SCOPE.matcher(scope).matches()) {
        throw new UsageException("--require-scope " + scope + ": not a scope (printable ASCII but space, '\"' and '\\')", ExitCodes.USAGE);
      }
    }
    String secret = secret(secretFile, "--oauth-client-secret-file", clientId == null ? null : env.get("MCP_STDIO_OAUTH_CLIENT_SECRET"));
    if ((clientId == null) != (secret == null)) {
      throw new UsageException(clientId == null ? "--oauth-client-secret-file needs --oauth-client-id"
          : "--oauth-client-id needs its secret: --oauth-client-secret-file or $MCP_STDIO_OAUTH_CLIENT_SECRET", ExitCodes.USAGE);
    }
    if (secret != null) {
      log.redactor().addSecret(secret);
    }
    return new dev.mcpstdio.serve.auth.ExternalTokens.Settings(issuer, audience, scopes, clientId, secret);
  }

  /** {@code --enable-oauth} and the flags that go with it. */
  private static ServeConfig.EmbeddedOAuth oauth(ParseResult r, Map<String, String> env, String host, URI publicUrl, Log log) throws UsageException {
    boolean enabled = r.hasMatchedOption("--enable-oauth");
    if (enabled && publicUrl == null && !r.hasMatchedOption("--trust-proxy-headers") && !dev.mcpstdio.net.Hosts.isLoopback(host)) {
      throw new UsageException("--enable-oauth on " + host + " needs --public-url (or --trust-proxy-headers behind a proxy):"
          + " the issuer would otherwise be whatever Host a client sends", ExitCodes.USAGE);
    }
    List<String> allowed = r.matchedOptionValue("--allow-redirect-uri", List.<String>of());
    String devUser = r.matchedOptionValue("--dev-user", (String) null);
    String header = r.matchedOptionValue("--trusted-user-header", (String) null);
    boolean ttlGiven = r.hasMatchedOption("--access-token-ttl");
    String store = r.matchedOptionValue("--token-store", (String) null);
    if (!enabled && (!allowed.isEmpty() || devUser != null || header != null || ttlGiven || store != null)) {
      throw new UsageException("--allow-redirect-uri, --dev-user, --trusted-user-header, --access-token-ttl and --token-store"
          + " need --enable-oauth", ExitCodes.USAGE);
    }
    if (store != null && store.isBlank()) {
      throw new UsageException("--token-store needs a file name", ExitCodes.USAGE);
    }
    dev.mcpstdio.serve.auth.FederationSettings login = federatedLogin(r, env, log);
    if (login != null && !enabled) {
      throw new UsageException("--login-oidc needs --enable-oauth", ExitCodes.USAGE);
    }
    if (login != null && devUser != null) {
      throw new UsageException("--login-oidc and --dev-user: the dev user would sign everybody in before the provider could", ExitCodes.USAGE);
    }
    if (devUser != null && !ServeConfig.EmbeddedOAuth.isUserName(devUser)) {
      throw new UsageException("--dev-user must be 1 to 256 characters without control characters", ExitCodes.USAGE);
    }
    if (header != null && !header.matches("[A-Za-z0-9-]{1,64}")) {
      throw new UsageException("--trusted-user-header must be a header name (letters, digits, '-')", ExitCodes.USAGE);
    }
    for (String uri : allowed) {
      URI u;
      try {
        u = new URI(uri);
      } catch (java.net.URISyntaxException e) {
        throw new UsageException("--allow-redirect-uri is not a URI: " + uri, ExitCodes.USAGE);
      }
      if (!"https".equals(u.getScheme()) || u.getHost() == null || u.getRawFragment() != null || u.getRawUserInfo() != null) {
        throw new UsageException("--allow-redirect-uri must be an https URL without user information or a fragment: " + uri,
            ExitCodes.USAGE);
      }
    }
    Duration ttl = seconds(r, "--access-token-ttl", ServeConfig.EmbeddedOAuth.OFF.accessTokenTtl(), false);
    if (ttl.toSeconds() < 60 || ttl.toDays() > 1) {
      throw new UsageException("--access-token-ttl must be from 60 to 86400 seconds", ExitCodes.USAGE);
    }
    if (enabled && devUser != null) {
      log.warn("--dev-user signs every authorization in as " + devUser + ": for local tests only");
    }
    if (enabled && devUser == null && header == null && login == null) {
      log.warn("--enable-oauth without --trusted-user-header or --dev-user: nobody can sign in, every authorization is denied");
    }
    return enabled ? new ServeConfig.EmbeddedOAuth(true, devUser, header, java.util.Set.copyOf(allowed), ttl,
        store == null ? null : Path.of(store), login) : ServeConfig.EmbeddedOAuth.OFF;
  }

  /**
   * The built-in demo as a child: through the launcher when this process was started by it (the
   * child then gets the same JVM flags and ahead-of-time cache), else this JVM's own java and
   * class path, with the flags that keep the JVM's own output off stdout.
   */
  static ChildSpec demoChild(Map<String, String> env) {
    String launcher = env.get("MCP_STDIO_LAUNCHER");
    if (launcher != null && !launcher.isBlank() && java.nio.file.Files.isExecutable(Path.of(launcher))) {
      // the jar is already built: the child's launcher must not rebuild it under the running gateway
      return new ChildSpec(List.of(launcher, "demo")).with(Map.of("MCP_STDIO_NO_BUILD", "1"));
    }
    String java = ProcessHandle.current().info().command().orElse("java");
    return new ChildSpec(List.of(java, "-Xlog:disable", "-Xlog:all=warning:stderr", "-XX:+DisplayVMOutputToStderr",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-cp", System.getProperty("java.class.path"),
        Main.class.getName(), "demo"));
  }

  /** {@code --session-arg}, {@code --workspace-root}, {@code --keep-workspaces}. */
  private static ServeConfig.SessionLaunch launch(ParseResult r) throws UsageException {
    List<String> consumed = r.commandSpec().findOption("--session-arg").getValue(); // set by verbatim(), not matched
    List<String> templates = consumed == null ? List.of() : consumed;
    Path root = r.hasMatchedOption("--workspace-root") ? Path.of(r.matchedOptionValue("--workspace-root", "")).toAbsolutePath() : null;
    for (String template : templates) {
      java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\{[^}]*}").matcher(template);
      while (m.find()) {
        if (!List.of("{sessionId}", "{workspaceRoot}", "{plansFolder}").contains(m.group())) {
          throw new UsageException("--session-arg: unknown placeholder " + m.group()
              + " (known: {sessionId}, {workspaceRoot}, {plansFolder})", ExitCodes.USAGE);
        }
        if (!m.group().equals("{sessionId}") && root == null) {
          throw new UsageException("--session-arg uses " + m.group() + ", which needs --workspace-root", ExitCodes.USAGE);
        }
      }
    }
    if (r.hasMatchedOption("--keep-workspaces") && root == null) {
      throw new UsageException("--keep-workspaces needs --workspace-root", ExitCodes.USAGE);
    }
    Duration callbackTimeout = seconds(r, "--callback-timeout", ServeConfig.SessionLaunch.DEFAULT_CALLBACK_TIMEOUT, false);
    int stderrRate = integer(r, "--child-stderr-rate", (int) ChildProcess.StderrLimit.DEFAULT.bytesPerSecond(), 1024,
        64 << 20);
    return new ServeConfig.SessionLaunch(templates, root, r.hasMatchedOption("--keep-workspaces"), callbackTimeout,
        new ChildProcess.StderrLimit(stderrRate));
  }

  /** An endpoint path option: it starts with / and holds no quote, space, ? or #. */
  private static String endpointPath(ParseResult r, String name, String fallback) throws UsageException {
    String path = r.matchedOptionValue(name, fallback);
    if (!path.startsWith("/") || path.matches(".*[\"\\s?#].*")) {
      throw new UsageException(name + " must start with / and contain no quote, space, ? or #", ExitCodes.USAGE);
    }
    return path;
  }

  private static ServeConfig.Era2026 era2026(ParseResult r) throws UsageException {
    int perPrincipal = integer(r, "--max-children-per-principal", ServeConfig.Era2026.DEFAULT_PER_PRINCIPAL, 1, 10_000);
    int total = integer(r, "--max-pool-children", Math.max(perPrincipal, ServeConfig.Era2026.DEFAULT_TOTAL), 1, 100_000);
    if (total < perPrincipal) {
      throw new UsageException("--max-pool-children must be at least --max-children-per-principal", ExitCodes.USAGE);
    }
    return new ServeConfig.Era2026(r.hasMatchedOption("--modern-only"),
        integer(r, "--cache-ttl-ms", (int) ServeConfig.Era2026.DEFAULT_CACHE_TTL_MS, 0, Integer.MAX_VALUE),
        seconds(r, "--modern-idle-ttl", Duration.ZERO, true), perPrincipal, total);
  }

  private static int integer(ParseResult r, String name, int fallback, int min, int max) throws UsageException {
    if (!r.hasMatchedOption(name)) {
      return fallback;
    }
    String text = r.matchedOptionValue(name, "").trim();
    try {
      int value = Integer.parseInt(text);
      if (value < min || value > max) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new UsageException(name + " expects a whole number from " + min + " to " + max + ", got '" + text + "'",
          ExitCodes.USAGE);
    }
  }

  private static String origin(String text) throws UsageException {
    String value = text.trim().toLowerCase(Locale.ROOT);
    if (value.endsWith("/")) {
      value = value.substring(0, value.length() - 1);
    }
    if (!value.matches("[a-z][a-z0-9+.-]*://[^/\\s\"?#@]+")) {
      throw new UsageException("--allow-origin expects scheme://host[:port], got '" + text + "'", ExitCodes.USAGE);
    }
    return value;
  }

  static URI publicUrl(String text) throws UsageException {
    URI url;
    try {
      url = new URI(text.trim());
    } catch (URISyntaxException e) {
      throw new UsageException("--public-url is not a URL: " + e.getReason(), ExitCodes.USAGE);
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("https") && !scheme.equals("http")) {
      throw new UsageException("--public-url must be an http:// or https:// URL", ExitCodes.USAGE);
    }
    if (url.getHost() == null || url.getRawUserInfo() != null || url.getRawQuery() != null || url.getRawFragment() != null
        || text.matches(".*[\"\\s].*")) {
      throw new UsageException("--public-url needs a host and no credentials, query, fragment, quotes or spaces",
          ExitCodes.USAGE);
    }
    if (scheme.equals("http") && !dev.mcpstdio.net.Hosts.isLoopback(url.getHost())) {
      throw new UsageException("--public-url must use https unless it is a loopback address", ExitCodes.USAGE);
    }
    return url;
  }
}
