package dev.mcpstdio.oauth;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Finds out where and how to log in to an MCP server (MCP authorization, 2025-11-25 and later;
 * reference inventory §3.2):
 *
 * <ol>
 *   <li>the protected-resource metadata (RFC 9728): the {@code resource_metadata} hint of a 401
 *       (the caller's, or one read from a probe: an {@code initialize} sent without credentials),
 *       then the path-aware well-known URL, then the host root's; the first document naming a
 *       usable authorization server wins;
 *   <li>that server's metadata (RFC 8414, path inserted; then OpenID Connect discovery, path
 *       inserted and appended), tried for the named server, then the MCP server's origin, then the
 *       MCP URL itself (issuers with paths: Keycloak realms, Cognito pools);
 *   <li>failing all metadata, the default endpoints {@code /authorize}, {@code /token} and
 *       {@code /register} on the authorization server's base (2025-03-26), with the issuer pinned to
 *       that base so the RFC 9207 check stays on.
 * </ol>
 *
 * <p>Every URL taken from a document passes {@link EndpointGuard} first; a metadata document whose
 * issuer is on another origin than the one asked is discarded (mix-up defence). Discovery sends
 * no credentials and follows no redirects. What it had to work around is in
 * {@link Result#warnings()}, for the log.
 */
public final class Discovery {

  /** The protected resource's metadata (RFC 9728), the parts the client uses. */
  public record ResourceMetadata(String resource, String authorizationServer, List<String> scopesSupported) {}

  /** The authorization server: where to send the user and the client, and what it supports. */
  public record ServerMetadata(
      String issuer,
      URI authorizationEndpoint,
      URI tokenEndpoint,
      URI registrationEndpoint,
      URI deviceAuthorizationEndpoint,
      URI revocationEndpoint,
      List<String> tokenEndpointAuthMethods,
      List<String> codeChallengeMethods,
      List<String> scopesSupported,
      boolean issParameterSupported,
      boolean clientIdMetadataDocumentSupported,
      boolean fromMetadata) {}

  /**
   * What discovery found. {@code resource} is null when the server publishes no resource metadata;
   * {@code challengeScope} is the {@code scope} of the server's own 401 when the probe saw one.
   */
  public record Result(ResourceMetadata resource, ServerMetadata server, String challengeScope, List<String> warnings) {}

  /** The server's metadata cannot be trusted for this server; the message is safe to show. */
  public static final class Refused extends Exception {
    Refused(String message) {
      super(message);
    }
  }

  private final OAuthHttp http;

  public Discovery(OAuthHttp http) {
    this.http = http;
  }

  /**
   * @param serverUrl the MCP server's URL (the trust anchor the operator chose)
   * @param hint the {@code resource_metadata} of a 401's challenge, or null
   */
  public Result discover(String serverUrl, String hint) throws InterruptedException, Refused {
    return discover(serverUrl, hint, null);
  }

  /**
   * @param expectedResource the resource the protected-resource metadata must name
   *     ({@code --oauth-resource}), or null for the server URL
   * @throws Refused when the metadata names another resource (RFC 9728 §3.3: it must not be used)
   */
  public Result discover(String serverUrl, String hint, String expectedResource) throws InterruptedException, Refused {
    List<String> warnings = new ArrayList<>();
    URI server = URI.create(serverUrl.strip());
    AuthChallenge probed = hint == null ? probe(server) : null;
    String resourceHint = hint != null ? hint : probed == null ? null : probed.resourceMetadata();
    String challengeScope = probed == null ? null : probed.scope();
    ResourceMetadata prm = resourceMetadata(server, resourceHint, expectedResource, warnings);
    Set<String> issuers = new LinkedHashSet<>();
    if (prm != null) {
      issuers.add(prm.authorizationServer());
    }
    issuers.add(ServerKey.origin(server));
    issuers.add(withoutQuery(server));
    for (String issuer : issuers) {
      ServerMetadata found = serverMetadata(issuer, warnings);
      if (found != null) {
        return new Result(prm, found, challengeScope, List.copyOf(warnings));
      }
    }
    String base = prm != null ? prm.authorizationServer() : ServerKey.origin(server);
    warnings.add("no authorization server metadata found; using the default endpoints of " + base);
    return new Result(prm, defaults(base), challengeScope, List.copyOf(warnings));
  }

  /**
   * The authorization server the resource's metadata names now (after a 401 that points at it),
   * or null when there is none to be had: a login from another one is of no use any more.
   */
  public String authorizationServerFor(String serverUrl, String hint) throws InterruptedException {
    try {
      ResourceMetadata prm = resourceMetadata(URI.create(serverUrl.strip()), hint, null, new ArrayList<>());
      return prm == null ? null : prm.authorizationServer();
    } catch (Refused e) {
      return null;
    }
  }

  /** The metadata of a known authorization server (a stored login's issuer), or null when it publishes none. */
  public ServerMetadata metadataOf(String issuer) throws InterruptedException {
    return EndpointGuard.refusal(issuer) == null ? serverMetadata(issuer, new ArrayList<>()) : null;
  }

  // ------------------------------------------------------------------ RFC 9728

  private ResourceMetadata resourceMetadata(URI server, String hint, String expectedResource, List<String> warnings)
      throws InterruptedException, Refused {
    List<String> candidates = new ArrayList<>();
    if (hint != null) {
      String refusal = EndpointGuard.refusal(hint);
      if (refusal == null) {
        candidates.add(hint);
      } else {
        warnings.add("ignoring the resource_metadata hint: " + refusal);
      }
    }
    String path = trimSlashes(server.getRawPath());
    String query = server.getRawQuery() == null ? "" : "?" + server.getRawQuery();
    if (!path.isEmpty()) {
      candidates.add(ServerKey.origin(server) + "/.well-known/oauth-protected-resource" + path + query);
    }
    candidates.add(ServerKey.origin(server) + "/.well-known/oauth-protected-resource");
    for (String candidate : new LinkedHashSet<>(candidates)) {
      Map<String, Object> doc = fetch(candidate);
      if (doc == null) {
        continue;
      }
      String resource = OAuthJson.string(doc, "resource");
      String expected = expectedResource != null ? ServerKey.of(expectedResource) : withoutQuery(server);
      boolean matches = resource == null // a document without one names no other resource
          || (expectedResource != null ? ServerKey.of(resource).equals(expected)
              : sameResource(resource, server));
      if (!matches) {
        throw new Refused("the server's protected-resource metadata is for " + TokenResponse.Parsing.safe(resource) + ", not "
            + expected + "; refusing to sign in with it (RFC 9728 §3.3; --oauth-resource names the resource to expect)");
      }
      for (String as : OAuthJson.strings(doc, "authorization_servers")) {
        String refusal = EndpointGuard.refusal(as);
        if (refusal != null) {
          warnings.add("skipping authorization server " + as + ": " + refusal);
          continue;
        }
        if (!ServerKey.origin(URI.create(as)).equals(ServerKey.origin(server))) {
          warnings.add("the authorization server " + as + " is on another origin than the MCP server; "
              + "abort if you did not expect federation");
        }
        return new ResourceMetadata(resource, trimTrailingSlash(as), OAuthJson.strings(doc, "scopes_supported"));
      }
      warnings.add("the resource metadata at " + candidate + " names no usable authorization server");
    }
    return null;
  }

  /**
   * The challenge of the server's 401 to a minimal {@code initialize} POSTed without credentials:
   * the one naming {@code resource_metadata} (any scheme: a server may offer Negotiate first), else
   * the Bearer one; null when the server does not answer 401.
   */
  private AuthChallenge probe(URI server) throws InterruptedException {
    try {
      List<String> challenges = http.challengesOf401(server, PROBE, Map.of("Accept", "application/json, text/event-stream"));
      return AuthChallenge.parseAll(challenges).stream().filter(c -> c.resourceMetadata() != null).findFirst()
          .orElse(AuthChallenge.bearer(challenges).orElse(null));
    } catch (IOException | IllegalArgumentException e) {
      return null; // unreachable: the well-known places are tried anyway
    }
  }

  private static final String PROBE = "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio-probe\",\"method\":\"initialize\","
      + "\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"mcp-stdio\","
      + "\"version\":\"probe\"}}}";

  // ------------------------------------------------------------------ RFC 8414 / OIDC

  private ServerMetadata serverMetadata(String issuer, List<String> warnings) throws InterruptedException {
    URI base = URI.create(issuer);
    String path = trimSlashes(base.getRawPath());
    String origin = ServerKey.origin(base);
    List<String> candidates = path.isEmpty()
        ? List.of(origin + "/.well-known/oauth-authorization-server", origin + "/.well-known/openid-configuration")
        : List.of(origin + "/.well-known/oauth-authorization-server" + path, origin + "/.well-known/openid-configuration" + path,
            origin + path + "/.well-known/openid-configuration");
    for (String candidate : candidates) {
      Map<String, Object> doc = fetch(candidate);
      if (doc == null) {
        continue;
      }
      String declared = OAuthJson.string(doc, "issuer");
      if (declared != null && EndpointGuard.refusal(declared) != null) {
        warnings.add("discarding the metadata at " + candidate + ": its issuer is unusable (" + EndpointGuard.refusal(declared) + ")");
        continue;
      }
      if (declared != null && !ServerKey.origin(URI.create(declared)).equals(origin)) {
        warnings.add("discarding the metadata at " + candidate + ": its issuer " + declared + " is on another origin");
        continue;
      }
      if (declared != null && !trimTrailingSlash(declared).equals(trimTrailingSlash(issuer))) {
        warnings.add("the metadata at " + candidate + " names issuer " + declared + ", not " + issuer + "; continuing");
      }
      String pinned = declared != null ? declared : issuer;
      return new ServerMetadata(pinned,
          required(doc, "authorization_endpoint", issuer, "/authorize", warnings),
          required(doc, "token_endpoint", issuer, "/token", warnings),
          optional(doc, "registration_endpoint", warnings),
          optional(doc, "device_authorization_endpoint", warnings),
          optional(doc, "revocation_endpoint", warnings),
          OAuthJson.strings(doc, "token_endpoint_auth_methods_supported"),
          OAuthJson.strings(doc, "code_challenge_methods_supported"),
          OAuthJson.strings(doc, "scopes_supported"),
          Boolean.TRUE.equals(doc.get("authorization_response_iss_parameter_supported")),
          Boolean.TRUE.equals(doc.get("client_id_metadata_document_supported")),
          true);
    }
    return null;
  }

  /** An endpoint the flows need: the declared one when it is safe, else the default path on the issuer. */
  private static URI required(Map<String, Object> doc, String field, String issuer, String defaultPath, List<String> warnings) {
    String declared = OAuthJson.string(doc, field);
    String refusal = declared == null ? "missing" : EndpointGuard.refusal(declared);
    if (refusal == null) {
      return URI.create(declared);
    }
    warnings.add("the " + field + " is unusable (" + refusal + "); using " + trimTrailingSlash(issuer) + defaultPath);
    return URI.create(trimTrailingSlash(issuer) + defaultPath);
  }

  private static URI optional(Map<String, Object> doc, String field, List<String> warnings) {
    String declared = OAuthJson.string(doc, field);
    if (declared == null) {
      return null;
    }
    String refusal = EndpointGuard.refusal(declared);
    if (refusal != null) {
      warnings.add("ignoring the " + field + " (" + refusal + ")");
      return null;
    }
    return URI.create(declared);
  }

  static ServerMetadata defaults(String base) {
    String b = trimTrailingSlash(base);
    return new ServerMetadata(b, URI.create(b + "/authorize"), URI.create(b + "/token"), URI.create(b + "/register"),
        null, null, List.of(), List.of(), List.of(), false, false, false);
  }

  /** The JSON object at {@code url}; null for anything else (an error, a redirect, not JSON, unreachable). */
  private Map<String, Object> fetch(String url) throws InterruptedException {
    if (EndpointGuard.refusal(url) != null) {
      return null;
    }
    try {
      OAuthHttp.Answer a = http.get(URI.create(url), Map.of("MCP-Protocol-Version", "2025-11-25"));
      return a.ok() ? OAuthJson.object(a.body()) : null;
    } catch (IOException | IllegalArgumentException e) {
      return null; // unreachable or malformed: the next candidate
    }
  }

  // ------------------------------------------------------------------ URLs

  private static String withoutQuery(URI uri) {
    return ServerKey.origin(uri) + trimSlashes(uri.getRawPath());
  }

  /**
   * Whether the metadata's {@code resource} is the MCP server, or a resource on its origin that
   * contains it (a document at the host's root names the origin): case, default port, userinfo and
   * trailing slashes aside. Another origin, or a path beside the server's, is not.
   */
  private static boolean sameResource(String declared, URI server) {
    try {
      URI d = new URI(declared);
      if (d.getHost() == null || d.getScheme() == null || !ServerKey.origin(d).equals(ServerKey.origin(server))) {
        return false;
      }
      String path = trimSlashes(d.getRawPath());
      String serverPath = trimSlashes(server.getRawPath());
      return path.equals(serverPath) || path.isEmpty() || serverPath.startsWith(path + "/");
    } catch (URISyntaxException e) {
      return false;
    }
  }

  /** A path without trailing slashes, with one leading slash when not empty. */
  private static String trimSlashes(String path) {
    String p = trimTrailingSlash(path == null ? "" : path);
    return p.isEmpty() || p.startsWith("/") ? p : "/" + p;
  }

  static String trimTrailingSlash(String url) {
    String u = url;
    while (u.endsWith("/")) {
      u = u.substring(0, u.length() - 1);
    }
    return u;
  }
}
