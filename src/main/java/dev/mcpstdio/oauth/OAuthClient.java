package dev.mcpstdio.oauth;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The relay's OAuth client for one MCP server: which bearer token to send, and what to do when
 * the server refuses it (reference inventory §3.1, §3.7, §3.9).
 *
 * <p>A stored login whose access token is not about to expire is used as it is (one without an
 * expiry until the server refuses it). Otherwise, holding the server's {@link LoginLock} so that of
 * the relays a host starts together exactly one refreshes or signs in: the store is read again
 * (another process may just have done it), then the refresh token is spent (its rotation stored at
 * once), and failing that, a new sign-in runs. A refresh that fails for a passing reason (the
 * server busy, the network) is retried and never costs the login; one the server rejects drops it.
 */
public final class OAuthClient {

  /** No token could be had; the message is safe to show. */
  public static final class AuthFailed extends Exception {
    public AuthFailed(String message) {
      super(message);
    }
  }

  /** Attempts at a refresh that fails for a passing reason. */
  static final int REFRESH_ATTEMPTS = 3;

  private final String serverUrl;
  private final OAuthSettings settings;
  private final TokenStore store;
  private final OAuthHttp http;
  private final Browser browser;
  private final Consumer<String> log;
  private final Consumer<String> prompt;
  private final Clock clock;
  private final Sleeper sleeper;

  /** Waits between refresh attempts (a seam for tests). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration d) throws InterruptedException;
  }

  /**
   * @param log where progress and problems are told (scrubbed like every log line)
   * @param prompt where the user is told what to do: the sign-in URL, kept whole but for its state
   */
  public OAuthClient(String serverUrl, OAuthSettings settings, TokenStore store, OAuthHttp http, Browser browser, Consumer<String> log,
      Consumer<String> prompt, Clock clock, Sleeper sleeper) {
    this.serverUrl = serverUrl;
    this.settings = settings;
    this.store = store;
    this.http = http;
    this.browser = browser;
    this.log = log;
    this.prompt = prompt;
    this.clock = clock;
    this.sleeper = sleeper;
  }

  /**
   * When the login at hand should be refreshed in the background: its expiry less the leeway;
   * null without a login, an expiry or a way to refresh.
   */
  public java.time.Instant refreshDue() {
    java.time.Instant now = clock.instant();
    return store.load(serverUrl).filter(r -> r.expiresAt() != null && refreshable(r)).map(r -> {
      java.time.Instant beforeLeeway = r.expiresAt().minus(settings.refreshLeeway());
      java.time.Instant halfway = now.plus(java.time.Duration.between(now, r.expiresAt()).dividedBy(2));
      return beforeLeeway.isAfter(halfway) ? beforeLeeway : halfway; // tokens shorter-lived than the leeway: halfway
    }).orElse(null);
  }

  /**
   * The background refresh: spends the refresh token if the login is still due (another relay may
   * have refreshed it meanwhile); never starts a sign-in, which is left to the next request that
   * needs one.
   *
   * @return whether the login is fresh now (refreshed here or by another relay)
   */
  public boolean refreshInBackground() throws InterruptedException {
    try (LoginLock ignored = LoginLock.acquire(storeFolder(), serverUrl, settings.flowTimeout().plusSeconds(30))) {
      Optional<TokenRecord> stored = store.load(serverUrl);
      if (stored.isPresent() && fresh(stored.get())) {
        return true;
      }
      return stored.isPresent() && refreshable(stored.get()) && refresh(stored.get()) != null;
    } catch (IOException | AuthFailed e) {
      log.accept("OAuth: the background refresh did not happen (" + e.getMessage() + "); the next request will try");
      return false;
    }
  }

  /** The token of the stored login as it would be sent (no refresh, no sign-in); null without one. */
  public String currentToken() {
    return store.load(serverUrl).map(this::sendable).orElse(null);
  }

  /**
   * The token of the login at hand, refreshed under the login lock when it is about to expire; never
   * a new sign-in. Null without a login (or when its refresh was rejected, which drops it).
   */
  public String existingToken() throws InterruptedException {
    Optional<TokenRecord> stored = store.load(serverUrl);
    if (stored.isEmpty()) {
      return null;
    }
    if (fresh(stored.get())) {
      return sendable(stored.get());
    }
    if (!refreshable(stored.get())) {
      return null;
    }
    refreshInBackground(); // the same: re-read, refresh if still due, never sign in
    return store.load(serverUrl).filter(this::fresh).map(this::sendable).orElse(null);
  }

  /** The access token to send now: stored, refreshed, or from a new sign-in. */
  public String token() throws AuthFailed, InterruptedException {
    Optional<TokenRecord> stored = store.load(serverUrl);
    if (stored.isPresent() && fresh(stored.get())) {
      return sendable(stored.get());
    }
    return renew(null, null, null, null);
  }

  /**
   * The server refused {@code rejected} (401): refresh, else sign in again, unless another relay
   * has stored a different token meanwhile.
   *
   * @param hint the challenge's {@code resource_metadata}, or null
   * @param challengeScope the challenge's {@code scope}: what a new sign-in asks for, or null
   */
  public String unauthorized(String rejected, String hint, String challengeScope) throws AuthFailed, InterruptedException {
    return renew(rejected, hint, null, challengeScope);
  }

  /**
   * The server wants more scope (403 {@code insufficient_scope}): sign in again asking for the
   * union of what was granted and what the challenge names.
   */
  public String insufficientScope(String rejected, String challengeScope, String hint) throws AuthFailed, InterruptedException {
    Optional<TokenRecord> stored = store.load(serverUrl);
    String granted = stored.map(TokenRecord::scope).orElse(settings.scope());
    return renew(rejected, hint, union(granted, challengeScope), null);
  }

  private String renew(String rejected, String hint, String stepUpScope, String challengeScope)
      throws AuthFailed, InterruptedException {
    try (LoginLock ignored = LoginLock.acquire(storeFolder(), serverUrl, settings.flowTimeout().plusSeconds(30))) {
      Optional<TokenRecord> stored = store.load(serverUrl);
      if (stored.isPresent() && fresh(stored.get()) && !sendable(stored.get()).equals(rejected)
          && (stepUpScope == null || covers(stored.get().scope(), stepUpScope))) {
        return sendable(stored.get()); // another relay renewed it while this one waited
      }
      boolean refreshRejected = false;
      if (stored.isPresent() && hint != null && moved(stored.get(), hint)) {
        log.accept("OAuth: the server now names another authorization server; signing in there");
        refreshRejected = true; // nothing of the old login goes to the new server
      } else if (stored.isPresent() && stepUpScope == null && refreshable(stored.get())) {
        TokenRecord refreshed = refresh(stored.get());
        if (refreshed != null) {
          return sendable(refreshed);
        }
        refreshRejected = true;
      }
      if (stepUpScope != null && !steppedUp.add(stepUpScope)) { // once per scope: a server never satisfied stops here
        throw new AuthFailed("the server still wants more scope after signing in for " + stepUpScope + "; not asking again");
      }
      return sendable(signIn(stored.orElse(null), refreshRejected, hint, stepUpScope, challengeScope));
    } catch (IOException e) {
      throw new AuthFailed(e.getMessage());
    }
  }

  /** Whether the resource's metadata now names another authorization server than the login's (SEP-2352). */
  private boolean moved(TokenRecord login, String hint) throws InterruptedException {
    String now = new Discovery(http).authorizationServerFor(serverUrl, hint);
    return now != null && login.issuer() != null && !Discovery.trimTrailingSlash(now).equals(Discovery.trimTrailingSlash(login.issuer()));
  }

  /**
   * Step-up scopes signed in for already, for the relay's lifetime: the same one asked again means
   * more sign-ins will not help (MCP §6.8 asks clients to bound them; a restart starts afresh).
   */
  private final Set<String> steppedUp = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static boolean covers(String granted, String wanted) {
    Set<String> have = new java.util.HashSet<>(List.of((granted == null ? "" : granted).strip().split("\\s+")));
    return have.containsAll(List.of(wanted.strip().split("\\s+")));
  }

  private Path storeFolder() {
    return store.file().getParent();
  }

  private boolean fresh(TokenRecord r) {
    return !r.expiresWithin(clock.instant(), settings.refreshLeeway().toSeconds());
  }

  private boolean refreshable(TokenRecord r) {
    return r.refreshToken() != null && r.tokenEndpoint() != null && r.clientId() != null
        && (r.clientSecretExpiresAt() == null || r.clientSecretExpiresAt().isAfter(clock.instant()));
  }

  /** The refreshed login, stored; null when the refresh was rejected (the login is then dropped). */
  private TokenRecord refresh(TokenRecord r) throws AuthFailed, InterruptedException, IOException {
    ClientIdentity client = new ClientIdentity(r.clientId(), r.clientSecret(), r.clientSecretExpiresAt(),
        r.tokenEndpointAuthMethod(), r.issuer());
    TokenEndpoint endpoint = new TokenEndpoint(http);
    String resource = r.noResourceIndicator() ? null : r.resource() != null ? r.resource() : settings.resourceFor(serverUrl);
    for (int attempt = 1; ; attempt++) {
      TokenResponse answer = endpoint.refresh(java.net.URI.create(r.tokenEndpoint()), client, r.refreshToken(), null, resource);
      switch (answer) {
        case TokenResponse.Granted g -> {
          TokenRecord next = merge(r, g, r.scope(), client, r.tokenEndpoint(), r.authorizationEndpoint(), r.registrationEndpoint(),
              r.issuer(), r.issParameterSupported(), resource, r.deviceClient());
          try {
            store.save(serverUrl, next); // a rotated refresh token is worthless unless kept at once
          } catch (IOException e) {
            log.accept("OAuth: the refreshed login could not be stored (" + e.getMessage() + "); it serves this relay only");
          }
          log.accept("OAuth: access token refreshed");
          return next;
        }
        case TokenResponse.Refused refused when !refused.retryable() -> {
          log.accept("OAuth: the refresh was refused (" + refused.describe() + "); signing in again");
          store.delete(serverUrl);
          return null;
        }
        case TokenResponse.Unusable u -> {
          log.accept("OAuth: the refresh answer is unusable (" + u.reason() + "); signing in again");
          store.delete(serverUrl);
          return null;
        }
        default -> {
          String why = answer instanceof TokenResponse.Refused refused ? refused.describe()
              : ((TokenResponse.Unreachable) answer).reason();
          if (attempt >= REFRESH_ATTEMPTS) {
            throw new AuthFailed("cannot refresh the access token now (" + why + "); the login is kept, try again later");
          }
          log.accept("OAuth: refresh failed for now (" + why + "); retrying");
          sleeper.sleep(Duration.ofSeconds(attempt));
        }
      }
    }
  }

  /**
   * A new login: discovery, the client identity, the flow; stored before it is returned.
   *
   * @param stepUpScope the union a step-up asks for, or null
   * @param challengeScope the scope a 401's challenge named, or null
   */
  private TokenRecord signIn(TokenRecord previous, boolean refreshRejected, String hint, String stepUpScope,
      String challengeScope)
      throws AuthFailed, InterruptedException, IOException {
    Discovery.Result found;
    try {
      found = new Discovery(http).discover(serverUrl, hint, settings.resourceIndicator() ? settings.resource() : null);
    } catch (Discovery.Refused e) {
      throw new AuthFailed(e.getMessage());
    }
    found.warnings().forEach(w -> log.accept("OAuth: " + w));
    Discovery.ServerMetadata server = found.server();
    // a step-up's union; else the operator's choice; else (MCP 2025-11-25) the challenge's, else all the
    // resource supports, else none
    String scope = stepUpScope != null ? stepUpScope : settings.scope() != null ? settings.scope()
        : challengeScope != null ? challengeScope : found.challengeScope() != null ? found.challengeScope()
        : found.resource() != null && !found.resource().scopesSupported().isEmpty()
            ? String.join(" ", found.resource().scopesSupported()) : null;
    // RFC 8707 resource: the operator's, else exactly as the resource's metadata publishes it (MCP
    // 2026-07-28), else the server URL
    String published = found.resource() == null ? null : found.resource().resource();
    String resource = !settings.resourceIndicator() ? null : settings.resource() == null && published != null ? published
        : settings.resourceFor(serverUrl);
    TokenEndpoint tokens = new TokenEndpoint(http);
    ClientIdentity client;
    TokenResponse.Granted granted;
    boolean deviceFlow = !settings.clientCredentials()
        && (settings.device() || (!browser.available() && server.deviceAuthorizationEndpoint() != null));
    if (settings.clientCredentials()) {
      client = preRegistered(server);
      if (client == null || client.clientSecret() == null) {
        throw new AuthFailed("--client-credentials needs --client-id and a client secret (--client-secret-file)");
      }
      granted = granted(tokens.clientCredentials(server.tokenEndpoint(), client, scope, resource), "the client credentials grant");
    } else if (deviceFlow) {
      if (!settings.device()) {
        log.accept("OAuth: no browser can be opened here; signing in with the device flow");
      }
      try {
        client = identity(server, cached(previous, true), null, scope);
        granted = new DeviceFlow(http, prompt, log, sleeper, settings.flowTimeout()).run(server, client, scope, resource);
      } catch (AuthorizationCodeFlow.Failed e) {
        throw new AuthFailed(e.getMessage());
      }
    } else {
      AuthorizationCodeFlow flow = new AuthorizationCodeFlow(tokens, browser, prompt, settings.flowTimeout());
      ClientIdentity cached = cached(previous, false);
      try {
        AuthorizationCodeFlow.Grant grant = flow.run(server, redirect -> identity(server, cached, redirect, scope), scope, resource);
        client = grant.client();
        granted = grant.tokens();
      } catch (AuthorizationCodeFlow.Failed e) {
        throw new AuthFailed(e.getMessage());
      }
    }
    granted.warnings().forEach(w -> log.accept("OAuth: " + w));
    TokenRecord record = merge(refreshRejected ? null : previous, granted, scope, client, server.tokenEndpoint().toString(),
        server.authorizationEndpoint().toString(), server.registrationEndpoint() == null ? null : server.registrationEndpoint().toString(),
        server.issuer(), server.issParameterSupported(), resource,
        deviceFlow && client.clientId() != null && settings.clientId() == null && settings.clientMetadataUrl() == null);
    store.save(serverUrl, record);
    log.accept("OAuth: signed in to " + ServerKey.of(serverUrl));
    return record;
  }

  /**
   * The registration the previous login used, for a flow of the same kind: one made for the device
   * flow has no redirect URI, and one made with a redirect URI may lack the device grant.
   */
  private static ClientIdentity cached(TokenRecord previous, boolean forDeviceFlow) {
    return previous == null || previous.clientId() == null || previous.deviceClient() != forDeviceFlow ? null
        : new ClientIdentity(previous.clientId(), previous.clientSecret(), previous.clientSecretExpiresAt(),
            previous.tokenEndpointAuthMethod(), previous.issuer());
  }

  /** Pre-registered, then a client ID metadata document, then a cached registration, then a new one. */
  private ClientIdentity identity(Discovery.ServerMetadata server, ClientIdentity cached, String redirectUri, String scope)
      throws AuthorizationCodeFlow.Failed, InterruptedException {
    ClientIdentity configured = preRegistered(server);
    if (configured != null) {
      return configured;
    }
    if (settings.clientMetadataUrl() != null && server.clientIdMetadataDocumentSupported()) {
      return new ClientIdentity(settings.clientMetadataUrl(), null, null, ClientIdentity.NONE, server.issuer());
    }
    if (settings.clientMetadataUrl() != null) {
      log.accept("OAuth: the authorization server does not accept client ID metadata documents; registering instead");
    }
    if (cached != null && cached.usableWith(server.issuer(), clock.instant())) {
      return cached;
    }
    try {
      return new Registration(http, w -> log.accept("OAuth: " + w)).register(server, redirectUri, scope);
    } catch (Registration.Failed e) {
      throw new AuthorizationCodeFlow.Failed(e.getMessage());
    }
  }

  private ClientIdentity preRegistered(Discovery.ServerMetadata server) {
    if (settings.clientId() == null) {
      return null;
    }
    String method = settings.clientSecret() == null ? ClientIdentity.NONE
        : server.tokenEndpointAuthMethods().contains(ClientIdentity.POST) || server.tokenEndpointAuthMethods().isEmpty()
            ? ClientIdentity.POST : ClientIdentity.BASIC;
    return new ClientIdentity(settings.clientId(), settings.clientSecret(), null, method, server.issuer());
  }

  private static TokenResponse.Granted granted(TokenResponse r, String what) throws AuthFailed {
    return switch (r) {
      case TokenResponse.Granted g -> g;
      case TokenResponse.Refused refused -> throw new AuthFailed(what + " was refused: " + refused.describe());
      case TokenResponse.Unusable u -> throw new AuthFailed(u.reason());
      case TokenResponse.Unreachable u -> throw new AuthFailed(u.reason());
    };
  }

  /**
   * The new login. A refresh token the answer leaves out is kept from {@code previous} only when
   * that login is of the same client at the same authorization server (a refresh token never
   * travels to another server); a scope it leaves out is the one requested (RFC 6749 §5.1).
   *
   * @param previous the login being renewed, or null when nothing may be carried over
   */
  private TokenRecord merge(TokenRecord previous, TokenResponse.Granted g, String requestedScope, ClientIdentity client,
      String tokenEndpoint, String authorizationEndpoint, String registrationEndpoint, String issuer, Boolean issSupported,
      String resource, boolean deviceClient) {
    Instant expiresAt = g.expiresIn() == null ? null : clock.instant().plusSeconds(g.expiresIn());
    boolean sameClient = previous != null && java.util.Objects.equals(previous.issuer(), issuer)
        && java.util.Objects.equals(previous.clientId(), client.clientId());
    String refresh = g.refreshToken() != null ? g.refreshToken() : sameClient ? previous.refreshToken() : null;
    String scope = g.scope() != null ? g.scope() : requestedScope;
    String idToken = g.idToken() != null ? g.idToken() : sameClient ? previous.idToken() : null;
    return new TokenRecord(g.accessToken(), g.tokenType(), expiresAt, refresh, scope, client.clientId(), client.clientSecret(),
        client.secretExpiresAt(), tokenEndpoint, authorizationEndpoint, registrationEndpoint, issuer, client.authMethod(),
        resource == null, issSupported, idToken, resource, deviceClient);
  }

  private final java.util.concurrent.atomic.AtomicBoolean warnedNoIdToken = new java.util.concurrent.atomic.AtomicBoolean();

  /** The token to send: the access token, or with {@code --oauth-use-id-token} the ID token when there is one. */
  private String sendable(TokenRecord r) {
    if (settings.useIdToken() && r.idToken() == null && warnedNoIdToken.compareAndSet(false, true)) {
      log.accept("OAuth: --oauth-use-id-token, but the authorization server issued no ID token; sending the access token");
    }
    return settings.useIdToken() && r.idToken() != null ? r.idToken() : r.accessToken();
  }

  /** The sorted union of two space-separated scope lists; null when both are empty. */
  static String union(String a, String b) {
    Set<String> all = new TreeSet<>();
    for (String s : new String[] {a, b}) {
      if (s != null) {
        all.addAll(List.of(s.strip().split("\\s+")));
      }
    }
    all.remove("");
    return all.isEmpty() ? null : String.join(" ", new LinkedHashSet<>(all));
  }
}
