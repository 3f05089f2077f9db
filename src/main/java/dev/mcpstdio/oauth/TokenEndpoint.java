package dev.mcpstdio.oauth;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Requests to an authorization server's token endpoint (RFC 6749 §4.1.3, §4.4, §6; RFC 8707): the
 * authorization-code exchange with the PKCE verifier, refresh, and client credentials, each with
 * the {@code resource} indicator unless it is null, and the client authenticated the way it
 * registered: {@code client_id} alone ({@code none}), with {@code client_secret} in the form
 * ({@code client_secret_post}), or in HTTP Basic with both parts form-encoded first
 * ({@code client_secret_basic}, RFC 6749 §2.3.1).
 */
public final class TokenEndpoint {

  private final OAuthHttp http;

  public TokenEndpoint(OAuthHttp http) {
    this.http = http;
  }

  public TokenResponse exchangeCode(URI endpoint, ClientIdentity client, String code, String redirectUri, String verifier,
      String resource) throws InterruptedException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "authorization_code");
    form.put("code", code);
    form.put("redirect_uri", redirectUri);
    form.put("code_verifier", verifier);
    form.put("resource", resource);
    return post(endpoint, form, client);
  }

  /** A refresh; {@code scope} null keeps the grant's scope. */
  public TokenResponse refresh(URI endpoint, ClientIdentity client, String refreshToken, String scope, String resource)
      throws InterruptedException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "refresh_token");
    form.put("refresh_token", refreshToken);
    form.put("scope", scope);
    form.put("resource", resource);
    return post(endpoint, form, client);
  }

  public TokenResponse clientCredentials(URI endpoint, ClientIdentity client, String scope, String resource)
      throws InterruptedException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "client_credentials");
    form.put("scope", scope);
    form.put("resource", resource);
    return post(endpoint, form, client);
  }

  /**
   * Revokes {@code token} (RFC 7009) at the server's revocation endpoint; true when the server
   * confirmed (200; an unknown token counts as revoked, as the RFC says).
   */
  public boolean revoke(URI endpoint, ClientIdentity client, String token, String typeHint) throws InterruptedException {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("token", token);
    form.put("token_type_hint", typeHint);
    return switch (post(endpoint, form, client)) {
      case TokenResponse.Unusable u -> u.status() == 200; // 200 with an empty body is the RFC's answer
      default -> false;
    };
  }

  /** Adds the client's authentication to a request's form or headers, the way it registered. */
  static void authenticate(ClientIdentity client, Map<String, String> form, Map<String, String> headers) {
    if (client.authMethod().equals(ClientIdentity.BASIC)) {
      String pair = URLEncoder.encode(client.clientId(), StandardCharsets.UTF_8) + ":"
          + URLEncoder.encode(client.clientSecret(), StandardCharsets.UTF_8); // RFC 6749 §2.3.1: each part form-encoded
      headers.put("Authorization", "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8)));
    } else {
      form.put("client_id", client.clientId());
      if (client.authMethod().equals(ClientIdentity.POST)) {
        form.put("client_secret", client.clientSecret());
      }
    }
  }

  /** A grant at the endpoint with the client's authentication added. */
  TokenResponse post(URI endpoint, Map<String, String> form, ClientIdentity client) throws InterruptedException {
    Map<String, String> headers = new LinkedHashMap<>();
    authenticate(client, form, headers);
    try {
      OAuthHttp.Answer a = http.postForm(endpoint, form, headers);
      if (a.status() / 100 == 3) {
        return new TokenResponse.Unusable(a.status(), "the token endpoint answered with a redirect, which is not followed");
      }
      return TokenResponse.parse(a.status(), a.contentType(), a.body());
    } catch (HttpTimeoutException e) {
      return new TokenResponse.Unreachable("the token endpoint did not answer in time");
    } catch (IOException e) {
      return new TokenResponse.Unreachable("cannot reach the token endpoint (" + e.getClass().getSimpleName() + ")");
    }
  }
}
