package dev.mcpstdio.serve;

import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.stdio.Log;
import java.net.URI;
import java.time.Duration;
import java.util.List;

/**
 * Everything {@code mcp-stdio serve} needs, parsed once from the command line.
 *
 * @param host the bind address
 * @param port the bind port (0 picks a free one)
 * @param path the MCP endpoint path, starting with {@code /}
 * @param child what to spawn for each session
 * @param maxSessions live sessions at most; an initialize past it gets 503
 * @param sessionIdleTtl a session idle this long (no request in flight, no open stream) is ended;
 *     zero keeps sessions until DELETE or the child's exit
 * @param maxMessageSize the largest request body and child stdout line; 0 means no bound
 * @param backendTimeout how long a request waits for the child's answer before 504
 * @param keepAlive the interval of SSE keep-alive comments
 * @param allowedOrigins extra browser origins allowed besides loopback and the public URL
 * @param publicUrl the URL clients use to reach this endpoint (behind a proxy), or null
 * @param trustProxyHeaders whether a proxy in front sets {@code X-Forwarded-Host} and
 *     {@code X-Forwarded-Proto} (they are ignored otherwise; {@code publicUrl} wins over them)
 * @param authToken the static bearer token clients must present, or null for no authentication
 * @param ladder the child shutdown ladder
 * @param logLevel how much to log
 * @param ssePath where legacy HTTP+SSE clients open their stream, or null to serve none
 * @param messagesPath where legacy HTTP+SSE clients POST their messages
 * @param launch session arguments and workspaces for session-scoped children
 * @param connections how many connections, and how long a request's head and body may take
 * @param era2026 how the 2026 era is served: its pool, its caching hint, whether it is the only era
 * @param warm 2025-era session children kept spawned ahead of their clients ({@code --warm}): started,
 *     not initialized, each with its session's public id, workspace and callback credentials; they
 *     are extra processes beside the {@code maxSessions} live ones, so at most {@code maxSessions +
 *     warm} session children run at once (those being closed aside); 0 spawns each child when its
 *     client's {@code initialize} arrives
 * @param oauth the embedded authorization server, or {@link EmbeddedOAuth#OFF}
 * @param owners what a signed-in user's sessions are bounded by and what their children are told
 * @param identityProvider resource-server mode: the external identity provider whose access tokens
 *     the endpoint takes ({@code --oauth-issuer}), or null
 */
public record ServeConfig(
    String host,
    int port,
    String path,
    ChildSpec child,
    int maxSessions,
    Duration sessionIdleTtl,
    long maxMessageSize,
    Duration backendTimeout,
    Duration keepAlive,
    List<String> allowedOrigins,
    URI publicUrl,
    boolean trustProxyHeaders,
    String authToken,
    ChildProcess.Ladder ladder,
    Log.Level logLevel,
    String ssePath,
    String messagesPath,
    SessionLaunch launch,
    Connections connections,
    Era2026 era2026,
    int warm,
    EmbeddedOAuth oauth,
    Owners owners,
    dev.mcpstdio.serve.auth.ExternalTokens.Settings identityProvider) {

  /**
   * The embedded OAuth 2.1 authorization server ({@code --enable-oauth}; docs/reference.md).
   *
   * @param devUser the user every authorization signs in as ({@code --dev-user}; local tests only)
   * @param trustedUserHeader the header an authenticating proxy in front sets to the signed-in user
   *     ({@code --trusted-user-header}); it wins over {@code devUser} when a request carries it
   * @param allowedRedirectUris exact redirect URIs a client may register beside the loopback ones
   *     ({@code --allow-redirect-uri}: a hosted client's callback)
   * @param accessTokenTtl how long an access token lives ({@code --access-token-ttl})
   * @param tokenStore where its clients and grants outlive a restart ({@code --token-store}), or null: in memory only
   * @param login the OpenID Connect provider users sign in at when no trusted header names them
   *     ({@code --login-oidc}), or null
   */
  public record EmbeddedOAuth(boolean enabled, String devUser, String trustedUserHeader, java.util.Set<String> allowedRedirectUris,
      Duration accessTokenTtl, java.nio.file.Path tokenStore, dev.mcpstdio.serve.auth.FederationSettings login) {
    public static final EmbeddedOAuth OFF = new EmbeddedOAuth(false, null, null, java.util.Set.of(), Duration.ofHours(1));

    public EmbeddedOAuth {
      allowedRedirectUris = java.util.Set.copyOf(allowedRedirectUris);
    }

    /** In memory only. */
    public EmbeddedOAuth(boolean enabled, String devUser, String trustedUserHeader, java.util.Set<String> allowedRedirectUris,
        Duration accessTokenTtl) {
      this(enabled, devUser, trustedUserHeader, allowedRedirectUris, accessTokenTtl, null, null);
    }

    /** Without federated login. */
    public EmbeddedOAuth(boolean enabled, String devUser, String trustedUserHeader, java.util.Set<String> allowedRedirectUris,
        Duration accessTokenTtl, java.nio.file.Path tokenStore) {
      this(enabled, devUser, trustedUserHeader, allowedRedirectUris, accessTokenTtl, tokenStore, null);
    }

    /** {@link dev.mcpstdio.serve.http.Principals#isUserName}: one rule for every source of user names. */
    public static boolean isUserName(String name) {
      return dev.mcpstdio.serve.http.Principals.isUserName(name);
    }
  }

  /**
   * What belongs to each signed-in user beyond its sessions' privacy (which always holds).
   *
   * @param maxSessionsPerOwner 2025-era sessions one signed-in user holds at most; its next
   *     {@code initialize} ends its least recently used one ({@code --max-sessions-per-owner}; 0: no
   *     bound but {@code --max-sessions}). The gateway's own principals (open, static token) are not
   *     bounded by it: they stand for everyone.
   * @param userEnv the environment variable each child of a signed-in user is given its user's name
   *     in ({@code --user-env}), or null; never set for the gateway's own principals
   */
  public record Owners(int maxSessionsPerOwner, String userEnv) {
    public static final Owners NONE = new Owners(0, null);

    /**
     * Names a child's loader, interpreter, shell or search path reads (compared ignoring case, as
     * Windows does): a user name there would choose what code runs.
     */
    public static final java.util.Set<String> REFUSED_ENV = java.util.Set.of("PATH", "CLASSPATH", "GLIBC_TUNABLES", "GCONV_PATH",
        "LOCPATH", "NLSPATH", "ENV", "IFS", "HOME", "SHELL", "CDPATH", "PS4", "PROMPT_COMMAND");

    /**
     * Prefixes of such names: the dynamic loaders' ({@code LD_}, {@code DYLD_}), the interpreters' and
     * runtimes', and the gateway's own ({@code MCP_STDIO_}: a child's callback credentials live there).
     */
    public static final java.util.List<String> REFUSED_ENV_PREFIXES = java.util.List.of("LD_", "DYLD_", "MCP_STDIO_", "PYTHON",
        "PERL", "RUBY", "NODE_", "NPM_", "JAVA_", "JDK_", "_JAVA_", "BASH_", "GIT_", "DOTNET_", "CORECLR_", "COMPLUS_");

    public Owners {
      if (maxSessionsPerOwner < 0) {
        throw new IllegalArgumentException("--max-sessions-per-owner: 0 (no bound) or more");
      }
      if (userEnv != null && refusal(userEnv) != null) {
        throw new IllegalArgumentException("--user-env " + userEnv + ": " + refusal(userEnv));
      }
    }

    /** Why {@code name} cannot carry the user's name, or null when it can. */
    public static String refusal(String name) {
      if (!name.matches("[A-Za-z_][A-Za-z0-9_]{0,127}")) {
        return "not an environment variable name (a letter or _, then letters, digits or _)";
      }
      String upper = name.toUpperCase(java.util.Locale.ROOT);
      if (REFUSED_ENV.contains(upper) || REFUSED_ENV_PREFIXES.stream().anyMatch(upper::startsWith)) {
        return "a child's loader, interpreter or shell reads it, so a user's name there would choose what runs";
      }
      return null;
    }

    /** What the child of {@code principal} is given beyond the command's environment. */
    public java.util.Map<String, String> envFor(String principal) {
      return userEnv == null || !dev.mcpstdio.serve.http.Principals.isUser(principal) ? java.util.Map.of()
          : java.util.Map.of(userEnv, principal);
    }
  }

  /**
   * The 2026 era on the MCP endpoint.
   *
   * @param modernOnly serve only 2026-era clients (GET and DELETE 405, a 2025-era initialize -32022)
   * @param cacheTtlMs the {@code ttlMs} stamped on cacheable results ({@code --cache-ttl-ms})
   * @param idleTtl a pooled child idle this long is closed; zero: never ({@code --modern-idle-ttl})
   * @param perPrincipal pooled children per principal at most ({@code --max-children-per-principal})
   * @param total pooled children in all at most ({@code --max-pool-children})
   */
  public record Era2026(boolean modernOnly, long cacheTtlMs, Duration idleTtl, int perPrincipal, int total) {
    public static final long DEFAULT_CACHE_TTL_MS = 60_000;
    public static final int DEFAULT_PER_PRINCIPAL = 4;
    public static final int DEFAULT_TOTAL = 64;
    public static final Era2026 DEFAULT = new Era2026(false, DEFAULT_CACHE_TTL_MS, Duration.ZERO, DEFAULT_PER_PRINCIPAL, DEFAULT_TOTAL);

    public Era2026 {
      if (cacheTtlMs < 0 || idleTtl.isNegative() || perPrincipal < 1 || total < perPrincipal) {
        throw new IllegalArgumentException("invalid 2026-era settings: cache TTL and idle TTL at least 0, "
            + "at least one child per principal, and no fewer in all than per principal");
      }
    }
  }

  /**
   * What keeps slow or many clients from starving the rest.
   *
   * @param max connections open at once; past it new connections wait in the system's accept queue
   *     (established ones are unaffected) until one closes
   * @param headerTimeout how long a request's head may take to arrive, from its first byte
   * @param bodyTimeout how long a request body may take, plus one second for every
   *     {@link #MIN_BODY_RATE} bytes it has delivered (408 past it)
   */
  public record Connections(int max, Duration headerTimeout, Duration bodyTimeout) {

    /**
     * Connections at most, by default: room for every session ({@link #DEFAULT_MAX_SESSIONS}) to
     * hold its GET stream, a callbacks stream and a few requests at once, while the file
     * descriptors of the connections and of the sessions' children stay far below the few
     * thousand a default limit allows.
     */
    public static final int DEFAULT_MAX = 512;

    public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_BODY_TIMEOUT = Duration.ofSeconds(30);

    /** Bytes a second a body must keep up beyond {@link #bodyTimeout} (16 KiB: 128 kbit/s). */
    public static final long MIN_BODY_RATE = dev.mcpstdio.serve.http.RequestBodies.MIN_BODY_RATE;

    public static final Connections DEFAULT = new Connections(DEFAULT_MAX, DEFAULT_HEADER_TIMEOUT, DEFAULT_BODY_TIMEOUT);

    public Connections {
      if (max < 1 || headerTimeout.isNegative() || headerTimeout.isZero() || bodyTimeout.isNegative() || bodyTimeout.isZero()) {
        throw new IllegalArgumentException("connections: max >= 1 and positive timeouts");
      }
    }
  }

  /**
   * How each session's child is started beyond the command: arguments appended from templates
   * ({@code {sessionId}}, {@code {workspaceRoot}}, {@code {plansFolder}}), and a per-session
   * workspace folder under {@code workspaceRoot} (created 0700, removed with the session unless
   * {@code keepWorkspaces}), how long a callback waits for the host's decision, and how much of
   * the child's stderr reaches the log ({@code --child-stderr-rate}).
   */
  public record SessionLaunch(java.util.List<String> argTemplates, java.nio.file.Path workspaceRoot, boolean keepWorkspaces,
      Duration callbackTimeout, ChildProcess.StderrLimit stderrLimit) {
    public static final Duration DEFAULT_CALLBACK_TIMEOUT = Duration.ofSeconds(120);

    public static final SessionLaunch NONE = new SessionLaunch(java.util.List.of(), null, false, DEFAULT_CALLBACK_TIMEOUT);

    public SessionLaunch {
      argTemplates = java.util.List.copyOf(argTemplates);
      java.util.Objects.requireNonNull(stderrLimit, "stderrLimit");
    }

    public SessionLaunch(java.util.List<String> argTemplates, java.nio.file.Path workspaceRoot, boolean keepWorkspaces,
        Duration callbackTimeout) {
      this(argTemplates, workspaceRoot, keepWorkspaces, callbackTimeout, ChildProcess.StderrLimit.DEFAULT);
    }

    public SessionLaunch(java.util.List<String> argTemplates, java.nio.file.Path workspaceRoot, boolean keepWorkspaces) {
      this(argTemplates, workspaceRoot, keepWorkspaces, DEFAULT_CALLBACK_TIMEOUT);
    }
  }

  public static final int DEFAULT_PORT = 8080;
  public static final String DEFAULT_PATH = "/mcp";
  public static final int DEFAULT_MAX_SESSIONS = 100;
  public static final long DEFAULT_MAX_MESSAGE_SIZE = 10L << 20;
  public static final Duration DEFAULT_BACKEND_TIMEOUT = Duration.ofSeconds(120);
  public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(15);
  public static final String DEFAULT_SSE_PATH = "/sse";
  public static final String DEFAULT_MESSAGES_PATH = "/messages";

  /**
   * Sessions whose clients vanished without DELETE would otherwise hold their children, and
   * their slots, until a restart.
   */
  public static final Duration DEFAULT_SESSION_IDLE_TTL = Duration.ofMinutes(30);

  /** Warm session children at most ({@code --warm}); each is a process kept running before it is needed. */
  public static final int MAX_WARM = 1024;

  public ServeConfig {
    allowedOrigins = List.copyOf(allowedOrigins);
    if (warm < 0 || warm > Math.min(MAX_WARM, maxSessions)) {
      throw new IllegalArgumentException("warm session children: from 0 to --max-sessions (and at most " + MAX_WARM + ")");
    }
    java.util.Objects.requireNonNull(owners, "owners");
    if (identityProvider != null && oauth.enabled()) {
      throw new IllegalArgumentException("--oauth-issuer and --enable-oauth: one authorization server per endpoint");
    }
    if (owners.userEnv() != null && warm > 0) {
      throw new IllegalArgumentException("--user-env cannot be used with --warm: a warm child starts before its user is known");
    }
  }

  /** Defaults for everything but the child: loopback, port 8080, {@code /mcp}, no auth. */
  public static ServeConfig defaults(ChildSpec child) {
    return new ServeConfig("127.0.0.1", DEFAULT_PORT, DEFAULT_PATH, child, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_TTL,
        DEFAULT_MAX_MESSAGE_SIZE, DEFAULT_BACKEND_TIMEOUT, DEFAULT_KEEP_ALIVE, List.of(), null, false, null,
        ChildProcess.Ladder.DEFAULT, Log.Level.INFO, DEFAULT_SSE_PATH, DEFAULT_MESSAGES_PATH, SessionLaunch.NONE,
        Connections.DEFAULT, Era2026.DEFAULT, 0, EmbeddedOAuth.OFF, Owners.NONE, null);
  }

  public ServeConfig withPort(int newPort) {
    return new ServeConfig(host, newPort, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  public ServeConfig withAuthToken(String token) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, token, ladder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  public ServeConfig withLimits(int sessions, Duration idleTtl, long messageSize, Duration timeout, Duration alive) {
    return new ServeConfig(host, port, path, child, sessions, idleTtl, messageSize, timeout, alive, allowedOrigins,
        publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  public ServeConfig withOrigins(List<String> origins, URI url) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, origins, url, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  public ServeConfig withChild(ChildSpec newChild, ChildProcess.Ladder newLadder) {
    return new ServeConfig(host, port, path, newChild, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, newLadder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  /** The same, with the legacy HTTP+SSE endpoints at these paths ({@code ssePath} null: none). */
  public ServeConfig withLegacySse(String newSsePath, String newMessagesPath) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, newSsePath, newMessagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  public ServeConfig withLaunch(SessionLaunch newLaunch) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, newLaunch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  /** The same, with these connection bounds. */
  public ServeConfig withConnections(Connections newConnections) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        newConnections, era2026, warm, oauth, owners, identityProvider);
  }

  /** The same, serving the 2026 era with these settings. */
  public ServeConfig withEra2026(Era2026 newEra2026) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        connections, newEra2026, warm, oauth, owners, identityProvider);
  }

  /** The same, keeping {@code n} session children spawned ahead of their clients ({@code --warm}). */
  public ServeConfig withWarm(int n) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        connections, era2026, n, oauth, owners, identityProvider);
  }

  /** The same, with the embedded authorization server so configured. */
  public ServeConfig withOAuth(EmbeddedOAuth newOAuth) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        connections, era2026, warm, newOAuth, owners, identityProvider);
  }

  /** The same, with these per-user bounds and environment. */
  public ServeConfig withOwners(Owners newOwners) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        connections, era2026, warm, oauth, newOwners, identityProvider);
  }

  /** The same, taking the access tokens of this identity provider (resource-server mode; null: none). */
  public ServeConfig withIdentityProvider(dev.mcpstdio.serve.auth.ExternalTokens.Settings provider) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trustProxyHeaders, authToken, ladder, logLevel, ssePath, messagesPath, launch,
        connections, era2026, warm, oauth, owners, provider);
  }

  /** The same, trusting (or not) the {@code X-Forwarded-*} headers of a proxy in front. */
  public ServeConfig withTrustProxyHeaders(boolean trust) {
    return new ServeConfig(host, port, path, child, maxSessions, sessionIdleTtl, maxMessageSize, backendTimeout,
        keepAlive, allowedOrigins, publicUrl, trust, authToken, ladder, logLevel, ssePath, messagesPath, launch, connections, era2026, warm, oauth, owners, identityProvider);
  }

  /** The path of the public URL (a proxy's prefix) without a trailing slash; empty without one. */
  public String pathPrefix() {
    return pathPrefix(publicUrl);
  }

  public static String pathPrefix(URI publicUrl) {
    if (publicUrl == null || publicUrl.getRawPath() == null) {
      return "";
    }
    String p = publicUrl.getRawPath();
    return p.endsWith("/") ? p.substring(0, p.length() - 1) : p;
  }
}
