package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.Pkce;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The embedded authorization server's rules, without HTTP: registration, authorization codes,
 * the token endpoint's two grants, revocation, and the resource server's check of an access
 * token. OAuth 2.1 for public clients: PKCE S256 only, exact redirect URIs (a loopback one up to
 * its port), single-use codes, refresh tokens rotated on every use.
 *
 * <p>Every code and token belongs to a grant family (one per authorization), whose id the code
 * and the refresh tokens carry before a dot, and whose record knows the one refresh token that is
 * current. So a used code, or a refresh token that is not the current one, is known as a copy
 * for as long as its family lives, however full the stores are: within
 * {@link GrantSettings#replayGrace} of its use it is refused plainly (the client retrying an
 * answer it lost), later the whole family is revoked (RFC 9700 section 4.14.2). A family's life is
 * fixed when its code is redeemed; rotation never extends it. A family pushed out at the store's
 * bound takes its tokens with it (fail closed).
 *
 * <p>Secrets are stored only as their SHA-256 ({@link OpaqueTokens#key}). Every store is bounded
 * ({@link GrantSettings}). Thread-safe: one lock over all stores; nothing slow runs under it.
 */
public final class Grants {

  /** RFC 7636 section 4.1: 43 to 128 unreserved characters (also the shape of an S256 challenge). */
  private static final Pattern PKCE_VALUE = Pattern.compile("[A-Za-z0-9._~-]{43,128}");

  /** Redirect URIs one client may register at most. */
  static final int MAX_REDIRECT_URIS = 10;

  /**
   * Live grant families of one user at most: a user who signs in again and again (a script, a
   * client that loses its tokens) replaces its own oldest grants instead of pushing other users'
   * out of the bounded store; a hundred is far more than the clients one person runs.
   */
  static final int MAX_FAMILIES_PER_USER = 100;

  /** Characters of a requested scope at most. */
  static final int MAX_SCOPE = 1024;

  private final GrantSettings settings;
  private final Set<String> allowedRedirects;
  private final LongSupplier clock;

  /** Told after every change a restart should not lose ({@code --token-store}); the grants' lock is not held. */
  private volatile Runnable changed = () -> {};

  // guarded by this
  private final Map<String, RegisteredClient> clients = new LinkedHashMap<>();
  private final BoundedStore<Code> codes;
  private final BoundedStore<Family> families;
  private final BoundedStore<Token> accessTokens;

  /**
   * @param allowedRedirects the operator's exact redirect URIs beside the loopback ones
   * @param clock epoch milliseconds
   */
  public Grants(GrantSettings settings, Set<String> allowedRedirects, LongSupplier clock) {
    this.settings = settings;
    this.allowedRedirects = Set.copyOf(allowedRedirects);
    this.clock = clock;
    this.codes = new BoundedStore<>(settings.maxEntries());
    this.families = new BoundedStore<>(settings.maxEntries());
    this.accessTokens = new BoundedStore<>(settings.maxEntries());
  }

  /** A code waiting to be redeemed; its family is named in the code itself. */
  record Code(String clientId, String redirectUri, String challenge, String user, String scope, String resource,
      long expiresAt) implements BoundedStore.Expiring {}

  /**
   * One authorization and everything issued from it. Its life is fixed when its code is redeemed
   * (rotation never extends it); it knows its one current refresh token, the one before it (for
   * the grace), and whether it was revoked. A family that is gone (expired, or pushed out at the
   * store's bound) takes its tokens with it: nothing of it is accepted any more.
   */
  record Family(String user, String clientId, String scope, String resource, String codeKey, long redeemedAt,
      String currentRefresh, String previousRefresh, long rotatedAt, boolean revoked, long expiresAt)
      implements BoundedStore.Expiring {

    Family rotated(String newRefresh, long now) {
      return new Family(user, clientId, scope, resource, codeKey, redeemedAt, newRefresh, currentRefresh, now, false, expiresAt);
    }

    Family asRevoked() {
      return new Family(user, clientId, scope, resource, codeKey, redeemedAt, null, null, rotatedAt, true, expiresAt);
    }
  }

  /** An access token. */
  record Token(String user, String clientId, String resource, String family, long expiresAt)
      implements BoundedStore.Expiring {}

  /** Why a registration was refused (RFC 7591 section 3.2.2). */
  public static final class RegistrationRefused extends Exception {
    private final String error;

    RegistrationRefused(String error, String description) {
      super(description);
      this.error = error;
    }

    public String error() {
      return error;
    }
  }

  // registration ---------------------------------------------------------------------------

  /**
   * Registers a public client with these redirect URIs (at most {@link #MAX_REDIRECT_URIS}), each
   * a loopback URI or one of the operator's. At the client bound, the oldest registration nobody is
   * signed in with makes room (else the oldest).
   */
  public RegisteredClient register(List<String> redirectUris) throws RegistrationRefused {
    if (redirectUris == null || redirectUris.isEmpty()) {
      throw new RegistrationRefused("invalid_client_metadata", "redirect_uris must be a non-empty array");
    }
    if (redirectUris.size() > MAX_REDIRECT_URIS) {
      throw new RegistrationRefused("invalid_client_metadata", "at most " + MAX_REDIRECT_URIS + " redirect_uris");
    }
    for (String uri : redirectUris) {
      if (!RedirectUris.registrable(uri, allowedRedirects)) {
        throw new RegistrationRefused("invalid_redirect_uri",
            "not a loopback redirect URI (RFC 8252) nor one this server allows: " + shown(uri));
      }
    }
    RegisteredClient client = new RegisteredClient(OpaqueTokens.fresh(), List.copyOf(new LinkedHashSet<>(redirectUris)),
        clock.getAsLong() / 1000);
    long now = clock.getAsLong();
    synchronized (this) {
      if (clients.size() >= settings.maxClients()) {
        clients.remove(evictable(now));
      }
      clients.put(client.clientId(), client);
    }
    changed.run();
    return client;
  }

  /**
   * The client that makes room at the bound: the oldest one no live grant family belongs to (a
   * flood of registrations then pushes out only clients nobody is signed in with), else the
   * oldest. Under the lock.
   */
  private String evictable(long now) {
    Set<String> signedIn = new java.util.HashSet<>();
    families.forEachLive(now, f -> {
      if (!f.revoked()) {
        signedIn.add(f.clientId());
      }
    });
    for (String id : clients.keySet()) {
      if (!signedIn.contains(id)) {
        return id;
      }
    }
    return clients.keySet().iterator().next();
  }

  public synchronized RegisteredClient client(String clientId) {
    return clientId == null ? null : clients.get(clientId);
  }

  // authorization --------------------------------------------------------------------------

  /**
   * The authorization endpoint for the resource {@code thisResource} (the endpoint's URL as the
   * client reached it, RFC 8707): a {@code resource} the request names must be it, and the code
   * and its tokens are bound to it.
   */
  public AuthorizeOutcome authorize(AuthorizationRequest r, String thisResource) {
    return authorize(r, thisResource, client(r.clientId()));
  }

  /**
   * {@link #authorize} for {@code client} (a registered one, or one its metadata document
   * describes; null for none).
   */
  public AuthorizeOutcome authorize(AuthorizationRequest r, String thisResource, RegisteredClient client) {
    AuthorizeOutcome problem = check(r, thisResource, client);
    if (problem != null) {
      return problem;
    }
    if (r.user() == null || r.user().isEmpty()) {
      return new AuthorizeOutcome.RedirectError("access_denied", "no signed-in user");
    }
    String resource = withoutTrailingSlash(thisResource);
    String code = OpaqueTokens.family() + "." + OpaqueTokens.fresh();
    long now = clock.getAsLong();
    synchronized (this) {
      codes.put(OpaqueTokens.key(code), new Code(client.clientId(), r.redirectUri(), r.codeChallenge(), r.user(),
          blankToNull(r.scope()), resource, now + settings.codeTtl().toMillis()), now);
    }
    changed.run();
    return new AuthorizeOutcome.Issued(code);
  }

  /**
   * Whether {@code r} is a request this server can grant once a user is signed in: null when it
   * is, else the outcome that refuses it (the user is not looked at: a login elsewhere may follow).
   */
  public AuthorizeOutcome check(AuthorizationRequest r, String thisResource) {
    return check(r, thisResource, client(r.clientId()));
  }

  /** {@link #check} for {@code client} (null for none). */
  public AuthorizeOutcome check(AuthorizationRequest r, String thisResource, RegisteredClient client) {
    if (client == null || !client.clientId().equals(r.clientId())) {
      return new AuthorizeOutcome.Refused("unknown client_id");
    }
    if (client.redirectUris().stream().noneMatch(registered -> RedirectUris.matches(registered, r.redirectUri()))) {
      return new AuthorizeOutcome.Refused("redirect_uri is not one the client registered");
    }
    if (!"code".equals(r.responseType())) {
      return new AuthorizeOutcome.RedirectError("unsupported_response_type", "only response_type=code is supported");
    }
    if (r.codeChallenge() == null) {
      return new AuthorizeOutcome.RedirectError("invalid_request", "code_challenge is required (PKCE)");
    }
    if (!"S256".equals(r.codeChallengeMethod())) {
      return new AuthorizeOutcome.RedirectError("invalid_request", "code_challenge_method must be S256");
    }
    if (!PKCE_VALUE.matcher(r.codeChallenge()).matches()) {
      return new AuthorizeOutcome.RedirectError("invalid_request", "code_challenge is malformed");
    }
    if (r.scope() != null && r.scope().length() > MAX_SCOPE) {
      return new AuthorizeOutcome.RedirectError("invalid_scope", "scope longer than " + MAX_SCOPE + " characters");
    }
    String resource = withoutTrailingSlash(thisResource);
    if (r.resource() != null && !withoutTrailingSlash(r.resource()).equals(resource)) {
      return new AuthorizeOutcome.RedirectError("invalid_target", "resource is not this server's");
    }
    return null;
  }

  // the token endpoint ----------------------------------------------------------------------

  /** The token endpoint, on the request's form fields. */
  public TokenOutcome token(Map<String, String> form) {
    String grantType = form.get("grant_type");
    if (grantType == null || grantType.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "grant_type is required");
    }
    TokenOutcome outcome = switch (grantType) {
      case "authorization_code" -> redeemCode(form);
      case "refresh_token" -> refresh(form);
      default -> null;
    };
    if (outcome == null) {
      return new TokenOutcome.Failed("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    }
    changed.run(); // a failure may have used up a code or revoked a family
    return outcome;
  }

  private TokenOutcome redeemCode(Map<String, String> form) {
    String code = form.get("code");
    if (code == null || code.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "code is required");
    }
    String key = OpaqueTokens.key(code);
    String familyId = familyOf(code);
    long now = clock.getAsLong();
    Code grant;
    synchronized (this) {
      grant = codes.remove(key); // single use: gone whatever follows
      if (grant == null) {
        Family family = familyId == null ? null : families.live(familyId, now);
        if (family == null || !family.codeKey().equals(key)) {
          return new TokenOutcome.Failed("invalid_grant", "unknown or expired authorization code");
        }
        if (now - family.redeemedAt() <= settings.replayGrace().toMillis() || family.revoked()) {
          return new TokenOutcome.Failed("invalid_grant", "authorization code already used");
        }
        revokeFamily(familyId, family, now);
        return new TokenOutcome.Failed("invalid_grant", "authorization code already used; issued tokens revoked");
      }
      makeRoomForFamilyOf(grant.user(), now);
      // the family exists from the moment its code is used, so that a replay is known as one
      families.put(familyId, new Family(grant.user(), grant.clientId(), grant.scope(), grant.resource(), key, now, null, null, now,
          false, now + settings.refreshTokenTtl().toMillis()), now);
    }
    if (grant.expiresAt() <= now) {
      return new TokenOutcome.Failed("invalid_grant", "authorization code expired");
    }
    if (!grant.clientId().equals(form.get("client_id"))) {
      return new TokenOutcome.Failed("invalid_grant", "the code was issued to another client");
    }
    if (!grant.redirectUri().equals(form.get("redirect_uri"))) {
      return new TokenOutcome.Failed("invalid_grant", "redirect_uri differs from the authorization request's");
    }
    String verifier = form.get("code_verifier");
    if (verifier == null || !PKCE_VALUE.matcher(verifier).matches()) {
      return new TokenOutcome.Failed("invalid_request", "code_verifier must be 43 to 128 unreserved characters");
    }
    if (!MessageDigest.isEqual(Pkce.challengeOf(verifier).getBytes(StandardCharsets.US_ASCII),
        grant.challenge().getBytes(StandardCharsets.US_ASCII))) {
      return new TokenOutcome.Failed("invalid_grant", "code_verifier does not match the code_challenge");
    }
    synchronized (this) {
      Family family = families.live(familyId, now);
      if (family == null || family.revoked()) {
        return new TokenOutcome.Failed("invalid_grant", "authorization code already used");
      }
      return issue(familyId, family, grant.scope(), now);
    }
  }

  private TokenOutcome refresh(Map<String, String> form) {
    String presented = form.get("refresh_token");
    if (presented == null || presented.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "refresh_token is required");
    }
    String key = OpaqueTokens.key(presented);
    String familyId = familyOf(presented);
    long now = clock.getAsLong();
    synchronized (this) {
      Family family = familyId == null ? null : families.live(familyId, now);
      if (family == null) {
        return new TokenOutcome.Failed("invalid_grant", "unknown or expired refresh token");
      }
      if (family.revoked()) {
        return new TokenOutcome.Failed("invalid_grant", "the refresh token's family was revoked");
      }
      if (!key.equals(family.currentRefresh())) {
        if (key.equals(family.previousRefresh()) && now - family.rotatedAt() <= settings.replayGrace().toMillis()) {
          return new TokenOutcome.Failed("invalid_grant", "refresh token already rotated");
        }
        // an older token of the family, or one that never was: a copy is about
        revokeFamily(familyId, family, now);
        return new TokenOutcome.Failed("invalid_grant", "refresh token reuse detected; token family revoked");
      }
      // checked before the token is used up: a wrong client must not destroy a good token
      if (!family.clientId().equals(form.get("client_id"))) {
        return new TokenOutcome.Failed("invalid_grant", "the refresh token was issued to another client");
      }
      String scope = family.scope();
      String asked = blankToNull(form.get("scope"));
      if (asked != null) {
        if (!scopes(family.scope()).containsAll(scopes(asked))) {
          return new TokenOutcome.Failed("invalid_scope", "scope exceeds the grant's");
        }
        scope = asked;
      }
      return issue(familyId, family, scope, now);
    }
  }

  /** A new access token and refresh token of {@code family}, which becomes the current one; under the lock. */
  private TokenOutcome.Issued issue(String familyId, Family family, String scope, long now) {
    String access = OpaqueTokens.fresh();
    String refresh = familyId + "." + OpaqueTokens.fresh();
    long ttl = settings.accessTokenTtl().toMillis();
    families.put(familyId, family.rotated(OpaqueTokens.key(refresh), now), now);
    // a grant holds two access tokens at most, the new one and the one before (requests in flight
    // with it while the client refreshed still pass): a client refreshing in a loop cannot fill the store
    long[] newest = {Long.MIN_VALUE};
    accessTokens.forEachLive(now, t -> {
      if (t.family().equals(familyId)) {
        newest[0] = Math.max(newest[0], t.expiresAt());
      }
    });
    accessTokens.removeAll(t -> t.family().equals(familyId) && t.expiresAt() < newest[0]);
    accessTokens.put(OpaqueTokens.key(access), new Token(family.user(), family.clientId(), family.resource(), familyId,
        Math.min(now + ttl, family.expiresAt())), now);
    // one second less than the token lives, so that a client never holds a token it thinks is live
    return new TokenOutcome.Issued(access, refresh, settings.accessTokenTtl().toSeconds() - 1, scope);
  }

  /**
   * At {@link #MAX_FAMILIES_PER_USER} grants that were issued tokens, removes the user's oldest
   * outright (its record and its access tokens), so that its new one fits without adding to the
   * bounded store: a revoked record would stay for its 30 days, and enough of them would push
   * other users' grants out after all. Under the lock.
   */
  private void makeRoomForFamilyOf(String user, long now) {
    int[] live = {0};
    String[] oldest = {null};
    Family[] oldestFamily = {null};
    families.forEachLive(now, (id, f) -> {
      if (!f.revoked() && f.currentRefresh() != null && f.user().equals(user)) {
        live[0]++;
        if (oldestFamily[0] == null || f.redeemedAt() < oldestFamily[0].redeemedAt()) {
          oldest[0] = id;
          oldestFamily[0] = f;
        }
      }
    });
    if (live[0] >= MAX_FAMILIES_PER_USER) {
      String gone = oldest[0];
      families.remove(gone);
      accessTokens.removeAll(t -> t.family().equals(gone));
    }
  }

  /** Revokes a family: its record stays, marked, until it expires; its access tokens go now. Under the lock. */
  private void revokeFamily(String familyId, Family family, long now) {
    families.put(familyId, family.asRevoked(), now);
    accessTokens.removeAll(t -> t.family().equals(familyId));
  }

  /** The family id a code or refresh token carries before its dot; null when it has none. */
  private static String familyOf(String secret) {
    int dot = secret.indexOf('.');
    return dot <= 0 ? null : secret.substring(0, dot);
  }

  // revocation and the resource server -------------------------------------------------------

  /**
   * Revocation (RFC 7009): ends the token when it is one this server issued to {@code clientId};
   * a refresh token takes its whole family with it. Answers nothing: the endpoint says 200 either
   * way, so that it tells nobody which tokens exist.
   */
  public void revoke(String token, String clientId) {
    if (token == null || token.isEmpty()) {
      return;
    }
    String key = OpaqueTokens.key(token);
    String familyId = familyOf(token);
    long now = clock.getAsLong();
    boolean familyRevoked = false;
    synchronized (this) {
      Family family = familyId == null ? null : families.live(familyId, now);
      if (family != null && key.equals(family.currentRefresh()) && family.clientId().equals(clientId)) {
        revokeFamily(familyId, family, now);
        familyRevoked = true;
      }
      Token access = familyRevoked ? null : accessTokens.live(key, now);
      if (access != null && access.clientId().equals(clientId)) {
        accessTokens.remove(key);
      }
    }
    changed.run();
  }

  /**
   * The user an access token stands for, when it is live, its family is live and not revoked,
   * and it was issued for {@code thisResource} (its audience, RFC 8707; a trailing slash aside);
   * else null.
   */
  public String principal(String accessToken, String thisResource) {
    if (accessToken == null || accessToken.isEmpty()) {
      return null;
    }
    long now = clock.getAsLong();
    synchronized (this) {
      Token t = accessTokens.live(OpaqueTokens.key(accessToken), now);
      if (t == null || !t.resource().equals(withoutTrailingSlash(thisResource))) {
        return null;
      }
      Family family = families.live(t.family(), now);
      return family == null || family.revoked() ? null : t.user();
    }
  }

  // persistence (--token-store) -------------------------------------------------------------

  /** Calls {@code listener} after every change worth persisting (registration, code, token, revocation). */
  public void onChange(Runnable listener) {
    this.changed = Objects.requireNonNull(listener);
  }

  /** Everything a restart must keep, live entries only: secrets appear only as their store keys. */
  synchronized GrantState state() {
    long now = clock.getAsLong();
    List<GrantState.Keyed<Code>> c = new java.util.ArrayList<>();
    codes.forEachLive(now, (key, v) -> c.add(new GrantState.Keyed<>(key, v)));
    List<GrantState.Keyed<Family>> f = new java.util.ArrayList<>();
    families.forEachLive(now, (key, v) -> f.add(new GrantState.Keyed<>(key, v)));
    List<GrantState.Keyed<Token>> t = new java.util.ArrayList<>();
    accessTokens.forEachLive(now, (key, v) -> t.add(new GrantState.Keyed<>(key, v)));
    return new GrantState(List.copyOf(clients.values()), c, f, t);
  }

  /** Takes over {@code state} (a token store's, read at start-up), within this server's bounds. */
  synchronized void restore(GrantState state) {
    long now = clock.getAsLong();
    for (RegisteredClient client : state.clients()) {
      if (clients.size() >= settings.maxClients()) {
        break;
      }
      clients.put(client.clientId(), client);
    }
    state.codes().forEach(e -> codes.put(e.key(), e.value(), now));
    state.families().forEach(e -> families.put(e.key(), e.value(), now));
    state.accessTokens().forEach(e -> accessTokens.put(e.key(), e.value(), now));
  }

  /** The operator's exact redirect URIs (a restored client must still fit them). */
  Set<String> allowedRedirects() {
    return allowedRedirects;
  }

  // --------------------------------------------------------------------------------------------

  private static Set<String> scopes(String scope) {
    return scope == null ? Set.of() : Set.copyOf(Arrays.asList(scope.trim().split(" +")));
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  private static String withoutTrailingSlash(String s) {
    Objects.requireNonNull(s, "resource");
    return s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /** A URI as the error may repeat it: escaped, at most 200 characters. */
  private static String shown(String uri) {
    if (uri == null) {
      return "null";
    }
    String cut = uri.length() > 200 ? uri.substring(0, 200) + "..." : uri;
    return dev.mcpstdio.stdio.Log.visible(cut);
  }
}
