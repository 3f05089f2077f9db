package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.OAuthJson;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Opaque access tokens, checked by the provider's RFC 7662 introspection endpoint with this
 * gateway's client credentials ({@code client_secret_basic}). An active token must be for this
 * audience ({@code aud} present and holding it: a token another resource of the same provider
 * could use is not good here), from this issuer when {@code iss} is given, within {@code exp} and
 * {@code nbf} when given (with the JWT check's clock skew), and name its user ({@code sub}: the
 * same namespace as a JWT's subject).
 *
 * <p>Answers are cached by the token's SHA-256: a good token until its {@code exp}, at most
 * {@link #MAX_CACHE_MILLIS} (a revocation at the provider is seen within that), a refused one for
 * {@link #REFUSED_CACHE_MILLIS}; at most {@link #CACHE_ENTRIES} entries. At most
 * {@link #CONCURRENT} introspections run at once; past that a request waits up to 5 s, then is
 * answered 503 (a flood of made-up tokens cannot turn the gateway into a flood at the provider).
 */
final class Introspection {

  static final long MAX_CACHE_MILLIS = 5 * 60_000;
  static final long REFUSED_CACHE_MILLIS = 30_000;
  static final int CACHE_ENTRIES = 10_000;
  static final int CONCURRENT = 16;

  private record Cached(TokenVerdict verdict, List<String> scopes, long expiresAt)
      implements BoundedStore.Expiring {}

  /** An introspected token's verdict and, when good, its scopes. */
  record Result(TokenVerdict verdict, List<String> scopes) {}

  private final OAuthHttp http;
  private final URI endpoint;
  private final String issuer;
  private final String authorization;
  private final LongSupplier clock;
  private final BoundedStore<Cached> cache = new BoundedStore<>(CACHE_ENTRIES);
  private final Semaphore running = new Semaphore(CONCURRENT);

  Introspection(OAuthHttp http, URI endpoint, String issuer, String clientId, String clientSecret, LongSupplier clock) {
    this.http = http;
    this.endpoint = endpoint;
    this.issuer = issuer;
    this.authorization = "Basic " + Base64.getEncoder().encodeToString(
        (formEncode(clientId) + ":" + formEncode(clientSecret)).getBytes(StandardCharsets.UTF_8));
    this.clock = clock;
  }

  /** RFC 6749 section 2.3.1: the client id and secret are form-encoded before they are joined. */
  private static String formEncode(String s) {
    return java.net.URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

  Result check(String token, String audience) throws InterruptedException {
    String key = OpaqueTokens.key(token) + " " + audience;
    long now = clock.getAsLong();
    synchronized (cache) {
      Cached hit = cache.live(key, now);
      if (hit != null) {
        return new Result(hit.verdict(), hit.scopes());
      }
    }
    if (!running.tryAcquire(5, TimeUnit.SECONDS)) {
      return new Result(new TokenVerdict.Unavailable("too many token introspections at once"), List.of());
    }
    Map<String, Object> answer;
    try {
      OAuthHttp.Answer a = http.postForm(endpoint, Map.of("token", token, "token_type_hint", "access_token"),
          Map.of("Authorization", authorization));
      if (a.status() != 200) {
        return new Result(new TokenVerdict.Unavailable("the introspection endpoint answered HTTP " + a.status()), List.of());
      }
      answer = OAuthJson.object(a.body());
      if (answer == null) {
        return new Result(new TokenVerdict.Unavailable("the introspection endpoint's answer is not a JSON object"), List.of());
      }
    } catch (IOException e) {
      return new Result(new TokenVerdict.Unavailable("the introspection endpoint cannot be reached: " + e.getMessage()), List.of());
    } finally {
      running.release();
    }
    now = clock.getAsLong();
    Result result = judge(answer, audience, now);
    long exp = seconds(answer, "exp");
    long until = !(result.verdict() instanceof TokenVerdict.Accepted) ? now + REFUSED_CACHE_MILLIS
        : exp < 0 ? now + MAX_CACHE_MILLIS : Math.min(now + MAX_CACHE_MILLIS, exp * 1000);
    synchronized (cache) {
      cache.put(key, new Cached(result.verdict(), result.scopes(), until), now);
    }
    return result;
  }

  private Result judge(Map<String, Object> answer, String audience, long now) {
    if (!Boolean.TRUE.equals(answer.get("active"))) {
      return refused("the provider says the token is not active");
    }
    String iss = OAuthJson.string(answer, "iss");
    if (iss != null && !iss.equals(issuer)) {
      return refused("the token is from another issuer");
    }
    List<String> aud = answer.get("aud") instanceof String one ? List.of(one) : OAuthJson.strings(answer, "aud");
    if (!aud.contains(audience)) {
      return refused(aud.isEmpty() ? "the introspection answer names no audience" : "the token is for another audience");
    }
    long skew = JwtAccessTokens.CLOCK_SKEW_SECONDS * 1000L;
    long exp = seconds(answer, "exp");
    if (exp >= 0 && exp * 1000 + skew <= now) {
      return refused("the token has expired");
    }
    long nbf = seconds(answer, "nbf");
    if (nbf >= 0 && nbf * 1000 - skew > now) {
      return refused("the token is not valid yet");
    }
    // sub only: a username beside JWTs' subjects could name another user (one namespace of principals)
    String user = OAuthJson.string(answer, "sub");
    if (!dev.mcpstdio.serve.http.Principals.isUserName(user)) {
      return refused("the token names no usable user (sub)");
    }
    String scope = OAuthJson.string(answer, "scope");
    return new Result(new TokenVerdict.Accepted(user), scope == null || scope.isBlank() ? List.of()
        : List.of(scope.trim().split(" +")));
  }

  private static Result refused(String why) {
    return new Result(new TokenVerdict.Rejected(why), List.of());
  }

  /** A NumericDate member in seconds; -1 when absent or not a number. */
  private static long seconds(Map<String, Object> answer, String name) {
    return answer.get(name) instanceof Number n ? n.longValue() : -1;
  }
}
