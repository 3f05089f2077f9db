package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.EndpointGuard;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.oauth.OAuthJson;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What serve needs to know of an external identity provider, from its OpenID Connect discovery
 * document or its RFC 8414 metadata: where its signing keys are, where it introspects tokens, and
 * where it signs users in. The document must name exactly the configured issuer (RFC 8414 section
 * 3.3; OpenID Connect Discovery section 4.3), since every token's {@code iss} is compared with it;
 * every endpoint must pass the {@link EndpointGuard} (https, or http on loopback; no userinfo).
 *
 * @param jwksUri where the provider publishes its signing keys (JWKS), or null
 * @param introspectionEndpoint RFC 7662 introspection, or null
 */
public record ProviderMetadata(String issuer, URI jwksUri, URI introspectionEndpoint, URI authorizationEndpoint,
    URI tokenEndpoint) {

  /** The provider's document could not be had or cannot be used; the message is safe to log. */
  public static final class Unusable extends Exception {
    Unusable(String message) {
      super(message, null, false, false);
    }
  }

  /** Where the documents of {@code issuer} may be: OpenID Connect's place first, then RFC 8414's. */
  static List<URI> candidates(String issuer) {
    URI base = URI.create(issuer);
    String path = base.getRawPath() == null ? "" : base.getRawPath().replaceAll("/+$", "");
    String origin = base.getScheme() + "://" + base.getRawAuthority();
    return List.of(URI.create(origin + path + "/.well-known/openid-configuration"),
        URI.create(origin + "/.well-known/oauth-authorization-server" + path));
  }

  /** Fetches and checks the provider's metadata. */
  public static ProviderMetadata fetch(OAuthHttp http, String issuer) throws Unusable, InterruptedException {
    List<String> problems = new ArrayList<>();
    for (URI candidate : candidates(issuer)) {
      OAuthHttp.Answer answer;
      try {
        answer = http.get(candidate, Map.of());
      } catch (IOException e) {
        problems.add(candidate + ": " + e.getMessage());
        continue;
      }
      Map<String, Object> doc = answer.status() == 200 ? OAuthJson.object(answer.body()) : null;
      if (doc == null) {
        problems.add(candidate + ": " + (answer.status() == 200 ? "not a JSON object" : "HTTP " + answer.status()));
        continue;
      }
      String declared = OAuthJson.string(doc, "issuer");
      if (!issuer.equals(declared)) {
        throw new Unusable("the metadata at " + candidate + " names issuer " + (declared == null ? "none"
            : "'" + declared.replaceAll("[^\\x21-\\x7e]", "?") + "'") + ", not " + issuer);
      }
      return new ProviderMetadata(issuer, endpoint(doc, "jwks_uri"), endpoint(doc, "introspection_endpoint"),
          endpoint(doc, "authorization_endpoint"), endpoint(doc, "token_endpoint"));
    }
    throw new Unusable("no metadata for " + issuer + " (" + String.join("; ", problems) + ")");
  }

  private static URI endpoint(Map<String, Object> doc, String field) throws Unusable {
    String value = OAuthJson.string(doc, field);
    if (value == null) {
      return null;
    }
    String refusal = EndpointGuard.refusal(value);
    if (refusal != null) {
      throw new Unusable("the provider's " + field + " cannot be used: " + refusal);
    }
    return URI.create(value);
  }
}
