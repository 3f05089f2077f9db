package dev.mcpstdio.oauth;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The authorization-code flow with PKCE S256 for a native client (OAuth 2.1, RFC 8252): a
 * loopback redirect on a fresh port, {@code state} compared in constant time, RFC 9207 {@code iss}
 * checked before anything the answer says is acted on, the {@code resource} indicator on both
 * requests, no {@code prompt} parameter (some servers loop on it). The URL goes to the browser
 * and, with {@code state} redacted, to the log; the PKCE verifier never leaves memory.
 */
public final class AuthorizationCodeFlow {

  /** The flow did not produce a code; the message is safe to show. */
  public static final class Failed extends Exception {
    public Failed(String message) {
      super(message);
    }
  }

  /** Supplies the client to use with the flow's redirect URI (pre-registered, cached, or registered now). */
  @FunctionalInterface
  public interface Clients {
    ClientIdentity forRedirect(String redirectUri) throws Failed, InterruptedException;
  }

  private final TokenEndpoint tokens;
  private final Browser browser;
  private final Consumer<String> say;
  private final Duration timeout;

  /**
   * @param say where the user is told what to do (stderr)
   * @param timeout how long to wait for the browser to come back
   */
  public AuthorizationCodeFlow(TokenEndpoint tokens, Browser browser, Consumer<String> say, Duration timeout) {
    this.tokens = tokens;
    this.browser = browser;
    this.say = say;
    this.timeout = timeout;
  }

  /** A granted token and the client it was granted to. */
  public record Grant(TokenResponse.Granted tokens, ClientIdentity client) {}

  /**
   * Runs the flow.
   *
   * @param scope the scope to ask for, or null
   * @param resource the RFC 8707 resource, or null when disabled
   * @throws Failed when the user or the server said no, the answer failed a check, or nothing came in time
   */
  public Grant run(Discovery.ServerMetadata server, Clients clients, String scope, String resource)
      throws Failed, InterruptedException {
    if (server.fromMetadata() && !server.codeChallengeMethods().contains("S256")) {
      throw new Failed("the authorization server's metadata does not list PKCE S256 (code_challenge_methods_supported); "
          + "refusing to sign in without it");
    }
    String state = Pkce.newState();
    try (LoopbackCallback callback = LoopbackCallback.start()) {
      callback.expect(state); // before anything else: no moment in which a stranger's answer is taken
      ClientIdentity client = clients.forRedirect(callback.redirectUri());
      Pkce pkce = Pkce.create();
      Map<String, String> params = new LinkedHashMap<>();
      params.put("response_type", "code");
      params.put("client_id", client.clientId());
      params.put("redirect_uri", callback.redirectUri());
      params.put("state", state);
      params.put("code_challenge", pkce.challenge());
      params.put("code_challenge_method", "S256");
      params.put("resource", resource);
      params.put("scope", scope);
      String url = withQuery(server.authorizationEndpoint(), params);
      if (browser.open(url)) {
        say.accept("Sign in to continue (a browser was opened): " + url.replace("state=" + state, "state=<redacted>"));
      } else { // the user must open it: the whole URL, state included (single-use, this sign-in only)
        say.accept("Sign in to continue: open " + url);
      }
      LoopbackCallback.Answer answer;
      try {
        answer = callback.await(timeout);
      } catch (TimeoutException e) {
        throw new Failed("the sign-in did not come back within " + timeout.toSeconds() + " s (--oauth-timeout)");
      }
      check(answer, state, server);
      TokenResponse r = tokens.exchangeCode(server.tokenEndpoint(), client, answer.get("code"), callback.redirectUri(),
          pkce.verifier(), resource);
      return switch (r) {
        case TokenResponse.Granted g -> new Grant(g, client);
        case TokenResponse.Refused refused -> throw new Failed("the code exchange was refused: " + refused.describe());
        case TokenResponse.Unusable u -> throw new Failed(u.reason());
        case TokenResponse.Unreachable u -> throw new Failed(u.reason());
      };
    } catch (IOException e) {
      throw new Failed("cannot listen for the sign-in's redirect on the loopback interface: " + e.getMessage());
    }
  }

  /** RFC 9207 first (a mismatched answer is not even read for its error), then state, then the error. */
  static void check(LoopbackCallback.Answer answer, String state, Discovery.ServerMetadata server) throws Failed {
    String iss = answer.get("iss");
    if (iss != null && !iss.equals(server.issuer())) {
      throw new Failed("the sign-in answer came from another authorization server (iss mismatch); ignored");
    }
    if (iss == null && server.issParameterSupported()) {
      throw new Failed("the sign-in answer lacks the iss its authorization server promises; ignored");
    }
    if (!Pkce.sameState(state, answer.get("state"))) {
      throw new Failed("the sign-in answer's state does not match (a possible CSRF attempt); ignored");
    }
    String error = answer.get("error");
    if (error != null) {
      String description = answer.get("error_description");
      throw new Failed("the sign-in was refused: " + TokenResponse.Parsing.safe(error)
          + (description == null ? "" : ": " + TokenResponse.Parsing.safe(description)));
    }
    if (answer.get("code") == null || answer.get("code").isEmpty()) {
      throw new Failed("the sign-in answer has no code");
    }
  }

  static String withQuery(URI endpoint, Map<String, String> params) {
    return endpoint + (endpoint.getRawQuery() == null ? "?" : "&") + FormEncoding.encode(params);
  }
}
