package dev.mcpstdio.oauth;

import dev.mcpstdio.jsonrpc.Json;
import java.io.IOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Dynamic client registration (RFC 7591) as a native application: {@code application_type:
 * native} (RFC 8252 §8.4), the loopback redirect URI of the flow (none for the device flow), and
 * the token endpoint authentication the server supports, preferring {@code none}, then
 * {@code client_secret_post}, then {@code client_secret_basic}. The server's answer decides: the
 * method it assigned wins over the one asked for. The identity is bound to the server's issuer.
 */
public final class Registration {

  /** Registration failed; the message is safe to show (the server's words are sanitised). */
  public static final class Failed extends Exception {
    Failed(String message) {
      super(message);
    }
  }

  private final OAuthHttp http;
  private final Consumer<String> warn;

  public Registration(OAuthHttp http, Consumer<String> warn) {
    this.http = http;
    this.warn = warn;
  }

  /**
   * @param redirectUri the flow's loopback redirect URI, or null for the device flow
   * @param scope the scope the login will ask for, or null
   */
  public ClientIdentity register(Discovery.ServerMetadata server, String redirectUri, String scope)
      throws Failed, InterruptedException {
    if (server.registrationEndpoint() == null) {
      throw new Failed("the authorization server does not support dynamic client registration; "
          + "give a --client-id or a --client-metadata-url instead");
    }
    String method = authMethod(server.tokenEndpointAuthMethods());
    boolean device = redirectUri == null;
    String body = "{\"client_name\":\"mcp-stdio\",\"application_type\":\"native\""
        + (device ? ",\"grant_types\":[\"urn:ietf:params:oauth:grant-type:device_code\",\"refresh_token\"]"
            : ",\"redirect_uris\":[" + Json.quote(redirectUri) + "],\"grant_types\":[\"authorization_code\",\"refresh_token\"],"
                + "\"response_types\":[\"code\"]")
        + ",\"token_endpoint_auth_method\":" + Json.quote(method) + (scope == null ? "" : ",\"scope\":" + Json.quote(scope)) + "}";
    OAuthHttp.Answer a;
    try {
      a = http.postJson(server.registrationEndpoint(), body, Map.of());
    } catch (IOException e) {
      throw new Failed("cannot reach the registration endpoint (" + e.getClass().getSimpleName() + ")");
    }
    Map<String, Object> doc = OAuthJson.object(a.body());
    if (a.status() / 100 != 2) {
      String error = doc == null ? null : TokenResponse.Parsing.safe(OAuthJson.string(doc, "error"));
      String description = doc == null ? null : TokenResponse.Parsing.safe(OAuthJson.string(doc, "error_description"));
      throw new Failed("client registration refused (HTTP " + a.status() + (error == null ? "" : ", " + error)
          + (description == null ? "" : ": " + description) + ")");
    }
    String clientId = doc == null ? null : OAuthJson.string(doc, "client_id");
    if (clientId == null || clientId.isEmpty()) {
      throw new Failed("the registration answer has no client_id");
    }
    String secret = OAuthJson.string(doc, "client_secret");
    String assigned = OAuthJson.string(doc, "token_endpoint_auth_method");
    return new ClientIdentity(clientId, secret, secretExpiry(doc.get("client_secret_expires_at")),
        assigned != null ? assigned : method, server.issuer());
  }

  /** The first of none, post, basic the server supports; none when it lists nothing (or nothing known). */
  String authMethod(List<String> supported) {
    if (supported.isEmpty()) {
      return ClientIdentity.NONE;
    }
    for (String preferred : List.of(ClientIdentity.NONE, ClientIdentity.POST, ClientIdentity.BASIC)) {
      if (supported.contains(preferred)) {
        return preferred;
      }
    }
    warn.accept("the authorization server supports none of none, client_secret_post and client_secret_basic "
        + "(it lists " + TokenResponse.Parsing.safe(String.join(" ", supported)) + "); registering with none");
    return ClientIdentity.NONE;
  }

  /** RFC 7591: 0 (or absent) means the secret never expires; a number or a numeric string. */
  private static Instant secretExpiry(Object v) {
    Long seconds = TokenResponse.Parsing.seconds(v);
    return seconds == null ? null : Instant.ofEpochSecond(seconds);
  }
}
