package dev.mcpstdio.oauth;

import java.io.IOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The device authorization grant (RFC 8628) for machines without a browser: the user opens a URL
 * on another device and enters (or checks) a code while the relay polls the token endpoint. The
 * code is always shown, even with a complete URL (RFC 8628 §3.3.1: the user should check it).
 * Polling starts at once and keeps the server's pace ({@code slow_down} adds five seconds, up to a
 * minute), never sleeps past the deadline, polls on through network trouble and a busy server
 * (5xx, 429, {@code temporarily_unavailable}), and ends at the first final answer.
 */
public final class DeviceFlow {

  private final OAuthHttp http;
  private final TokenEndpoint tokens;
  private final Consumer<String> prompt;
  private final Consumer<String> log;
  private final OAuthClient.Sleeper sleeper;
  private final Duration timeout;

  public DeviceFlow(OAuthHttp http, Consumer<String> prompt, Consumer<String> log, OAuthClient.Sleeper sleeper, Duration timeout) {
    this.http = http;
    this.tokens = new TokenEndpoint(http);
    this.prompt = prompt;
    this.log = log;
    this.sleeper = sleeper;
    this.timeout = timeout;
  }

  public TokenResponse.Granted run(Discovery.ServerMetadata server, ClientIdentity client, String scope, String resource)
      throws AuthorizationCodeFlow.Failed, InterruptedException {
    if (server.deviceAuthorizationEndpoint() == null) {
      throw new AuthorizationCodeFlow.Failed("the authorization server does not support the device authorization grant; "
          + "sign in with a browser (--oauth without --oauth-device)");
    }
    Map<String, String> form = new LinkedHashMap<>();
    form.put("scope", scope);
    form.put("resource", resource);
    OAuthHttp.Answer a;
    try {
      Map<String, String> headers = new LinkedHashMap<>();
      TokenEndpoint.authenticate(client, form, headers);
      a = http.postForm(server.deviceAuthorizationEndpoint(), form, headers);
    } catch (IOException e) {
      throw new AuthorizationCodeFlow.Failed("cannot reach the device authorization endpoint (" + e.getClass().getSimpleName() + ")");
    }
    Map<String, Object> doc = OAuthJson.object(a.body());
    if (a.status() / 100 != 2 || doc == null) {
      String error = doc == null ? null : TokenResponse.Parsing.safe(OAuthJson.string(doc, "error"));
      throw new AuthorizationCodeFlow.Failed("the device authorization request was refused (HTTP " + a.status()
          + (error == null ? "" : ", " + error) + ")");
    }
    String deviceCode = OAuthJson.string(doc, "device_code");
    String userCode = OAuthJson.string(doc, "user_code");
    String plain = first(doc, "verification_uri", "verification_url"); // Google says url
    String complete = first(doc, "verification_uri_complete", "verification_url_complete");
    if (deviceCode == null || userCode == null || plain == null) {
      throw new AuthorizationCodeFlow.Failed("the device authorization answer lacks device_code, user_code or verification_uri");
    }
    String refusal = EndpointGuard.refusal(plain);
    if (refusal != null) {
      throw new AuthorizationCodeFlow.Failed("the verification URI is unusable (" + refusal + ")");
    }
    if (complete != null && EndpointGuard.refusal(complete) != null) {
      complete = null;
    }
    long expires = clamp(TokenResponse.Parsing.seconds(doc.get("expires_in")), 1800, 1, Math.min(3600, timeout.toSeconds()));
    long interval = clamp(TokenResponse.Parsing.seconds(doc.get("interval")), 5, 1, 60);
    prompt.accept("Device authorization required:");
    prompt.accept("  Open: " + (complete != null ? complete : plain));
    prompt.accept("  Code (verify it matches): " + TokenResponse.Parsing.safe(userCode));
    prompt.accept("  Waiting for authorization...");
    long deadline = System.nanoTime() + Duration.ofSeconds(expires).toNanos();
    while (true) {
      Map<String, String> poll = new LinkedHashMap<>();
      poll.put("grant_type", "urn:ietf:params:oauth:grant-type:device_code");
      poll.put("device_code", deviceCode);
      poll.put("resource", resource);
      TokenResponse r = tokens.post(server.tokenEndpoint(), poll, client);
      switch (r) {
        case TokenResponse.Granted g -> {
          return g;
        }
        case TokenResponse.Refused refused when "authorization_pending".equals(refused.error()) -> { }
        case TokenResponse.Refused refused when "slow_down".equals(refused.error()) -> interval = Math.min(60, interval + 5);
        case TokenResponse.Refused refused when "expired_token".equals(refused.error()) || "access_denied".equals(refused.error()) ->
            throw new AuthorizationCodeFlow.Failed("the device sign-in failed: " + refused.error());
        case TokenResponse.Refused refused when refused.retryable() ->
            log.accept("OAuth: the token endpoint is busy (" + refused.describe() + "); polling on");
        case TokenResponse.Refused refused -> throw new AuthorizationCodeFlow.Failed("the device sign-in failed: " + refused.describe());
        case TokenResponse.Unusable u -> throw new AuthorizationCodeFlow.Failed(u.reason());
        case TokenResponse.Unreachable u -> { // RFC 8628 §3.5: back off while the network is in trouble
          interval = Math.min(60, interval * 2);
          log.accept("OAuth: polling the token endpoint failed for now (" + u.reason() + ")");
        }
      }
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AuthorizationCodeFlow.Failed("the device sign-in timed out; start again to get a new code");
      }
      sleeper.sleep(Duration.ofNanos(Math.min(Duration.ofSeconds(interval).toNanos(), left)));
    }
  }

  private static String first(Map<String, Object> doc, String a, String b) {
    String v = OAuthJson.string(doc, a);
    return v != null ? v : OAuthJson.string(doc, b);
  }

  private static long clamp(Long value, long fallback, long min, long max) {
    long v = value == null ? fallback : value;
    return Math.max(min, Math.min(Math.max(min, max), v));
  }
}
