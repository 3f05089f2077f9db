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
 * <p>Every code and token belongs to a grant family (one per authorization). A used code
 * presented again, or a rotated refresh token presented again, means one of two parties holds a
 * copy: within {@link GrantSettings#replayGrace} it is refused plainly (the client retrying an
 * answer it lost), later the whole family is revoked, each of its refresh tokens kept as used so
 * that it cannot come back (RFC 9700 section 4.14.2).
 *
 * <p>Secrets are stored only as their SHA-256 ({@link OpaqueTokens#key}). Every store is bounded
 * ({@link GrantSettings}). Thread-safe: one lock over all stores; nothing slow runs under it.
 */
public final class Grants {

  /** RFC 7636 section 4.1: 43 to 128 unreserved characters (also the shape of an S256 challenge). */
  private static final Pattern PKCE_VALUE = Pattern.compile("[A-Za-z0-9._~-]{43,128}");

  private final GrantSettings settings;
  private final Set<String> allowedRedirects;
  private final LongSupplier clock;

  // guarded by this
  private final Map<String, RegisteredClient> clients = new LinkedHashMap<>();
  private final BoundedStore<Code> codes;
  private final BoundedStore<Used> usedCodes;
  private final BoundedStore<Token> accessTokens;
  private final BoundedStore<Token> refreshTokens;
  private final BoundedStore<Used> usedRefreshTokens;

  /**
   * @param allowedRedirects the operator's exact redirect URIs beside the loopback ones
   * @param clock epoch milliseconds
   */
  public Grants(GrantSettings settings, Set<String> allowedRedirects, LongSupplier clock) {
    this.settings = settings;
    this.allowedRedirects = Set.copyOf(allowedRedirects);
    this.clock = clock;
    this.codes = new BoundedStore<>(settings.maxEntries());
    this.usedCodes = new BoundedStore<>(settings.maxEntries());
    this.accessTokens = new BoundedStore<>(settings.maxEntries());
    this.refreshTokens = new BoundedStore<>(settings.maxEntries());
    this.usedRefreshTokens = new BoundedStore<>(settings.maxEntries());
  }

  /** A code waiting to be redeemed. */
  private record Code(String clientId, String redirectUri, String challenge, String user, String scope, String resource,
      String family, long expiresAt) implements BoundedStore.Expiring {}

  /** An access or refresh token. */
  private record Token(String user, String clientId, String scope, String resource, String family, long expiresAt)
      implements BoundedStore.Expiring {}

  /** A code or refresh token used once: presented again, it reveals a copy. */
  private record Used(String family, long usedAt, long expiresAt) implements BoundedStore.Expiring {}

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
   * Registers a public client with these redirect URIs, each a loopback URI or one of the
   * operator's. At the client bound, the oldest registration makes room.
   */
  public RegisteredClient register(List<String> redirectUris) throws RegistrationRefused {
    if (redirectUris == null || redirectUris.isEmpty()) {
      throw new RegistrationRefused("invalid_client_metadata", "redirect_uris must be a non-empty array");
    }
    for (String uri : redirectUris) {
      if (!RedirectUris.registrable(uri, allowedRedirects)) {
        throw new RegistrationRefused("invalid_redirect_uri",
            "not a loopback redirect URI (RFC 8252) nor one this server allows: " + shown(uri));
      }
    }
    RegisteredClient client = new RegisteredClient(OpaqueTokens.fresh(), List.copyOf(new LinkedHashSet<>(redirectUris)),
        clock.getAsLong() / 1000);
    synchronized (this) {
      if (clients.size() >= settings.maxClients()) {
        clients.remove(clients.keySet().iterator().next());
      }
      clients.put(client.clientId(), client);
    }
    return client;
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
    RegisteredClient client = client(r.clientId());
    if (client == null) {
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
    String resource = withoutTrailingSlash(thisResource);
    if (r.resource() != null && !withoutTrailingSlash(r.resource()).equals(resource)) {
      return new AuthorizeOutcome.RedirectError("invalid_target", "resource is not this server's");
    }
    if (r.user() == null || r.user().isEmpty()) {
      return new AuthorizeOutcome.RedirectError("access_denied", "no signed-in user");
    }
    String code = OpaqueTokens.fresh();
    long now = clock.getAsLong();
    synchronized (this) {
      codes.put(OpaqueTokens.key(code), new Code(client.clientId(), r.redirectUri(), r.codeChallenge(), r.user(),
          blankToNull(r.scope()), resource, OpaqueTokens.fresh(), now + settings.codeTtl().toMillis()), now);
    }
    return new AuthorizeOutcome.Issued(code);
  }

  // the token endpoint ----------------------------------------------------------------------

  /** The token endpoint, on the request's form fields. */
  public TokenOutcome token(Map<String, String> form) {
    String grantType = form.get("grant_type");
    if (grantType == null || grantType.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "grant_type is required");
    }
    return switch (grantType) {
      case "authorization_code" -> redeemCode(form);
      case "refresh_token" -> refresh(form);
      default -> new TokenOutcome.Failed("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    };
  }

  private TokenOutcome redeemCode(Map<String, String> form) {
    String code = form.get("code");
    if (code == null || code.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "code is required");
    }
    String key = OpaqueTokens.key(code);
    long now = clock.getAsLong();
    Code grant;
    synchronized (this) {
      grant = codes.remove(key); // single use: gone whatever follows
      if (grant == null) {
        Used used = usedCodes.live(key, now);
        if (used == null) {
          return new TokenOutcome.Failed("invalid_grant", "unknown or expired authorization code");
        }
        if (now - used.usedAt() <= settings.replayGrace().toMillis()) {
          return new TokenOutcome.Failed("invalid_grant", "authorization code already used");
        }
        revokeFamily(used.family(), now);
        return new TokenOutcome.Failed("invalid_grant", "authorization code already used; issued tokens revoked");
      }
      usedCodes.put(key, new Used(grant.family(), now, now + settings.refreshTokenTtl().toMillis()), now);
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
      return issue(grant.user(), grant.clientId(), grant.scope(), grant.resource(), grant.family(), now);
    }
  }

  private TokenOutcome refresh(Map<String, String> form) {
    String presented = form.get("refresh_token");
    if (presented == null || presented.isEmpty()) {
      return new TokenOutcome.Failed("invalid_request", "refresh_token is required");
    }
    String key = OpaqueTokens.key(presented);
    long now = clock.getAsLong();
    synchronized (this) {
      Token token = refreshTokens.live(key, now);
      if (token == null) {
        Used used = usedRefreshTokens.live(key, now);
        if (used == null) {
          return new TokenOutcome.Failed("invalid_grant", "unknown, expired or revoked refresh token");
        }
        if (now - used.usedAt() <= settings.replayGrace().toMillis()) {
          return new TokenOutcome.Failed("invalid_grant", "refresh token already rotated");
        }
        revokeFamily(used.family(), now);
        return new TokenOutcome.Failed("invalid_grant", "refresh token reuse detected; token family revoked");
      }
      // checked before the token is used up: a wrong client must not destroy a good token
      if (!token.clientId().equals(form.get("client_id"))) {
        return new TokenOutcome.Failed("invalid_grant", "the refresh token was issued to another client");
      }
      String scope = token.scope();
      String asked = blankToNull(form.get("scope"));
      if (asked != null) {
        if (!scopes(token.scope()).containsAll(scopes(asked))) {
          return new TokenOutcome.Failed("invalid_scope", "scope exceeds the grant's");
        }
        scope = asked;
      }
      refreshTokens.remove(key);
      usedRefreshTokens.put(key, new Used(token.family(), now, token.expiresAt()), now);
      return issue(token.user(), token.clientId(), scope, token.resource(), token.family(), now);
    }
  }

  /** A new access and refresh token in {@code family}; under the lock. */
  private TokenOutcome.Issued issue(String user, String clientId, String scope, String resource, String family, long now) {
    String access = OpaqueTokens.fresh();
    String refresh = OpaqueTokens.fresh();
    long ttl = settings.accessTokenTtl().toMillis();
    accessTokens.put(OpaqueTokens.key(access), new Token(user, clientId, scope, resource, family, now + ttl), now);
    refreshTokens.put(OpaqueTokens.key(refresh), new Token(user, clientId, scope, resource, family,
        now + settings.refreshTokenTtl().toMillis()), now);
    // one second less than the token lives, so that a client never holds a token it thinks is live
    return new TokenOutcome.Issued(access, refresh, settings.accessTokenTtl().toSeconds() - 1, scope);
  }

  /** Ends every token of {@code family}, its refresh tokens kept as used; under the lock. */
  private void revokeFamily(String family, long now) {
    accessTokens.removeAll(t -> t.family().equals(family));
    refreshTokens.removeAll(t -> t.family().equals(family)).forEach((key, t) ->
        usedRefreshTokens.put(key, new Used(family, Long.MIN_VALUE / 2, t.expiresAt()), now));
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
    long now = clock.getAsLong();
    synchronized (this) {
      Token refresh = refreshTokens.live(key, now);
      if (refresh != null && refresh.clientId().equals(clientId)) {
        revokeFamily(refresh.family(), now);
        return;
      }
      Token access = accessTokens.live(key, now);
      if (access != null && access.clientId().equals(clientId)) {
        accessTokens.remove(key);
      }
    }
  }

  /**
   * The user an access token stands for, when it is live, was issued by this server, and for
   * {@code thisResource} (its audience, RFC 8707; a trailing slash aside); else null.
   */
  public String principal(String accessToken, String thisResource) {
    if (accessToken == null || accessToken.isEmpty()) {
      return null;
    }
    long now = clock.getAsLong();
    synchronized (this) {
      Token t = accessTokens.live(OpaqueTokens.key(accessToken), now);
      return t == null || !t.resource().equals(withoutTrailingSlash(thisResource)) ? null : t.user();
    }
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
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < uri.length() && b.length() < 200; i++) {
      char c = uri.charAt(i);
      b.append(c < 0x20 || c == 0x7F ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return b.length() < uri.length() ? b + "..." : b.toString();
  }
}
