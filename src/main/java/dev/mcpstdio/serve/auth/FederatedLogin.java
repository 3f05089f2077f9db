package dev.mcpstdio.serve.auth;

import com.nimbusds.jwt.JWTClaimsSet;
import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.OAuthJson;
import dev.mcpstdio.oauth.Pkce;
import dev.mcpstdio.serve.http.Principals;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Sign-in at an OpenID Connect provider the organisation runs ({@code --login-oidc}): when an
 * authorization request comes with nobody signed in, the browser is sent to the provider (the
 * authorization code flow with PKCE, a {@code state} and a {@code nonce} of the gateway's own), and
 * comes back to {@link #CALLBACK}; the code is redeemed at the provider's token endpoint with the
 * gateway's client credentials, and the ID token checked: its signature by the provider's JWKS,
 * {@code iss}, {@code aud} this client, {@code exp}, and the {@code nonce} sent. Only then is the
 * user, the ID token's {@code sub}, signed in for the client's request. Fail closed: anything else
 * and the client is told {@code access_denied}.
 *
 * <p>Each login is bound to the browser that began it: a cookie named after its state, holding a
 * random value whose digest the login keeps ({@code HttpOnly}, {@code SameSite=Lax}, the callback's
 * path, {@code Secure} for an https issuer), must come back with the provider's answer.
 *
 * <p>Waiting logins are bounded ({@link #MAX_PENDING}, each at most {@link #PENDING_MILLIS}; the
 * soonest to expire make room) and single use: a callback takes its login out first.
 */
final class FederatedLogin {

  /** Where the provider sends the browser back, below the issuer's path. */
  static final String CALLBACK = "/oidc/callback";

  static final int MAX_PENDING = 1000;
  static final long PENDING_MILLIS = 10 * 60_000;

  /** A login sent to the provider: the client's request, and what the provider must send back. */
  private record Pending(AuthorizationRequest request, RegisteredClient client, String clientState, String iss, String resource, String nonce,
      String verifier, String browserKey, long expiresAt) implements BoundedStore.Expiring {}

  /** Where the browser goes next. */
  sealed interface Step {
    /**
     * To the provider, or back to the client; {@code setCookie} is a {@code Set-Cookie} value to
     * send with it, or null.
     */
    record Redirect(String location, String setCookie) implements Step {
      Redirect(String location) {
        this(location, null);
      }
    }

    /** Answered here: the callback matches no login (or the provider is unusable before any redirect). */
    record Refused(int status, String error, String description) implements Step {}
  }

  private final FederationSettings settings;
  private final ProviderLink link;
  private final Grants grants;
  private final LongSupplier clock;
  private final Log log;
  private final String basic;
  private final BoundedStore<Pending> pending = new BoundedStore<>(MAX_PENDING); // guarded by itself

  FederatedLogin(FederationSettings settings, OAuthHttp http, Grants grants, LongSupplier clock, Log log) {
    this.settings = settings;
    this.link = new ProviderLink(settings.issuer(), http, clock, log);
    this.grants = grants;
    this.clock = clock;
    this.log = log;
    this.basic = "Basic " + Base64.getEncoder().encodeToString((URLEncoder.encode(settings.clientId(), StandardCharsets.UTF_8) + ":"
        + URLEncoder.encode(settings.clientSecret(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Sends the browser to the provider for {@code r} of {@code client} (a request {@link Grants#check} found good),
   * to come back to {@code iss + CALLBACK}.
   */
  Step begin(AuthorizationRequest r, RegisteredClient client, String clientState, String iss, String resource)
      throws InterruptedException {
    ProviderLink.Linked linked = link.get();
    if (linked == null || linked.metadata().authorizationEndpoint() == null || linked.metadata().tokenEndpoint() == null
        || linked.jwts() == null) {
      return back(r, clientState, iss, "temporarily_unavailable", "the identity provider cannot be reached or used");
    }
    String state = OpaqueTokens.fresh();
    String nonce = OpaqueTokens.fresh();
    Pkce pkce = Pkce.create();
    long now = clock.getAsLong();
    String browser = OpaqueTokens.fresh(); // binds the login to the browser that began it
    synchronized (pending) {
      pending.put(OpaqueTokens.key(state), new Pending(r, client, clientState, iss, resource, nonce, pkce.verifier(),
          OpaqueTokens.key(browser), now + PENDING_MILLIS), now);
    }
    Map<String, String> q = new LinkedHashMap<>();
    q.put("response_type", "code");
    q.put("client_id", settings.clientId());
    q.put("redirect_uri", iss + CALLBACK);
    q.put("scope", "openid");
    q.put("state", state);
    q.put("nonce", nonce);
    q.put("code_challenge", pkce.challenge());
    q.put("code_challenge_method", "S256");
    URI endpoint = linked.metadata().authorizationEndpoint();
    String cookie = cookieName(state) + "=" + browser + "; Path=" + URI.create(iss).getRawPath() + CALLBACK + "; Max-Age="
        + PENDING_MILLIS / 1000 + "; HttpOnly; SameSite=Lax" + (iss.startsWith("https://") ? "; Secure" : "");
    return new Step.Redirect(endpoint + (endpoint.getRawQuery() == null ? "?" : "&") + FormEncoding.encode(q), cookie);
  }

  /** The cookie of one login: named after its state, so that logins begun side by side in one browser keep theirs. */
  static String cookieName(String state) {
    return "mcp_stdio_login_" + OpaqueTokens.key(state).substring(0, 16);
  }

  /**
   * The provider's answer at {@link #CALLBACK}: the client's request granted, or refused, by
   * redirect. {@code cookies} are the request's; the login's own must be among them: an answer
   * brought by another browser than the one that began the login (login CSRF: a provider URL sent
   * to a victim whose single sign-on completes it) is refused here.
   */
  Step callback(Map<String, String> query, Map<String, String> cookies) throws InterruptedException {
    String state = query.get("state");
    Pending p;
    long now = clock.getAsLong();
    synchronized (pending) {
      p = state == null ? null : pending.live(OpaqueTokens.key(state), now);
      if (p != null) {
        pending.remove(OpaqueTokens.key(state)); // single use, whatever follows
      }
    }
    if (p == null) {
      return new Step.Refused(400, "invalid_request", "no sign-in is waiting for this answer (expired, used, or never begun)");
    }
    String browser = cookies.get(cookieName(state));
    if (browser == null || !MessageDigest.isEqual(OpaqueTokens.key(browser).getBytes(StandardCharsets.US_ASCII),
        p.browserKey().getBytes(StandardCharsets.US_ASCII))) {
      log.warn("sign-in at " + settings.issuer() + " refused: its answer came to a browser that did not begin it");
      return new Step.Refused(400, "invalid_request", "this sign-in was begun in another browser");
    }
    if (query.get("error") != null || query.get("code") == null) {
      log.info("sign-in at " + settings.issuer() + " not completed: " + Log.visible(cut(query.getOrDefault("error", "no code"))));
      return back(p.request(), p.clientState(), p.iss(), "access_denied", "the sign-in at the identity provider was not completed");
    }
    String user;
    try {
      user = userOf(query.get("code"), p);
    } catch (Refusal e) {
      log.warn("sign-in at " + settings.issuer() + " refused: " + e.getMessage());
      return back(p.request(), p.clientState(), p.iss(), "access_denied", "the identity provider's answer could not be verified");
    }
    AuthorizationRequest r = p.request();
    AuthorizeOutcome outcome = grants.authorize(new AuthorizationRequest(r.clientId(), r.redirectUri(), r.responseType(),
        r.codeChallenge(), r.codeChallengeMethod(), r.scope(), r.resource(), user), p.resource(), p.client());
    return switch (outcome) {
      case AuthorizeOutcome.Issued issued -> new Step.Redirect(AuthorizationEndpoints.redirectUrl(r.redirectUri(), p.clientState(), p.iss(),
          Map.of("code", issued.code())));
      case AuthorizeOutcome.RedirectError error -> back(r, p.clientState(), p.iss(), error.error(), error.description());
      case AuthorizeOutcome.Refused refused -> new Step.Refused(400, "invalid_request", refused.description());
    };
  }

  private static final class Refusal extends Exception {
    Refusal(String message) {
      super(message, null, false, false);
    }
  }

  /** Redeems the provider's code and checks its ID token: the user it names. */
  private String userOf(String code, Pending p) throws Refusal, InterruptedException {
    ProviderLink.Linked linked = link.get();
    if (linked == null) {
      throw new Refusal("the provider cannot be reached");
    }
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "authorization_code");
    form.put("code", code);
    form.put("redirect_uri", p.iss() + CALLBACK);
    form.put("code_verifier", p.verifier());
    OAuthHttp.Answer answer;
    try {
      answer = link.http().postForm(linked.metadata().tokenEndpoint(), form, Map.of("Authorization", basic));
    } catch (IOException e) {
      throw new Refusal("the token endpoint cannot be reached: " + e.getMessage());
    }
    Map<String, Object> tokens = answer.status() == 200 ? OAuthJson.object(answer.body()) : null;
    String idToken = tokens == null ? null : OAuthJson.string(tokens, "id_token");
    if (idToken == null) {
      throw new Refusal("the token endpoint answered HTTP " + answer.status() + (tokens == null ? "" : " without an id_token"));
    }
    JwtAccessTokens.Checked checked = linked.jwts().check(idToken, settings.clientId());
    if (checked.failure() != null) {
      throw new Refusal("ID token: " + switch (checked.failure()) {
        case TokenVerdict.Rejected r -> r.reason();
        case TokenVerdict.Unavailable u -> u.reason();
        default -> "refused";
      });
    }
    JWTClaimsSet claims = checked.claims();
    Object nonce = claims.getClaim("nonce");
    if (!(nonce instanceof String n) || !MessageDigest.isEqual(n.getBytes(StandardCharsets.UTF_8), p.nonce().getBytes(StandardCharsets.UTF_8))) {
      throw new Refusal("ID token: the nonce is not the one sent");
    }
    String user = claims.getSubject();
    if (!Principals.isUserName(user)) {
      throw new Refusal("ID token: no usable subject");
    }
    return user;
  }

  private static Step back(AuthorizationRequest r, String clientState, String iss, String error, String description) {
    return new Step.Redirect(AuthorizationEndpoints.redirectUrl(r.redirectUri(), clientState, iss,
        Map.of("error", error, "error_description", description)));
  }

  private static String cut(String s) {
    return s.length() > 100 ? s.substring(0, 100) + "..." : s;
  }
}
