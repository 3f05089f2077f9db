package dev.mcpstdio.serve;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The static bearer check and what a client needs to find out how to authenticate (RFC 6750 and
 * RFC 9728).
 *
 * <p>Tokens are compared as SHA-256 digests with {@link MessageDigest#isEqual}: constant time, and
 * the length of the secret does not show either.
 */
final class BearerGate {

  private final byte[] expected; // digest of the token, or null when authentication is off
  private final URI publicUrl;
  private final String path;

  BearerGate(String token, URI publicUrl, String path) {
    this.expected = token == null || token.isEmpty() ? null : digest(token);
    this.publicUrl = publicUrl;
    this.path = path;
  }

  boolean enabled() {
    return expected != null;
  }

  /** The outcome of checking one request's {@code Authorization} header. */
  enum Verdict {
    ALLOWED,
    MISSING,
    INVALID
  }

  Verdict check(String authorization) {
    if (expected == null) {
      return Verdict.ALLOWED;
    }
    if (authorization == null) {
      return Verdict.MISSING;
    }
    String token = token(authorization);
    if (token == null) {
      return Verdict.MISSING;
    }
    return MessageDigest.isEqual(digest(token), expected) ? Verdict.ALLOWED : Verdict.INVALID;
  }

  /** The token of an {@code Authorization: Bearer} header (RFC 6750 section 2.1); null without one. */
  static String token(String authorization) {
    if (authorization == null) {
      return null;
    }
    String value = authorization.trim();
    if (value.length() < 7 || !value.substring(0, 7).toLowerCase(Locale.ROOT).equals("bearer ")) {
      return null;
    }
    String token = value.substring(7).trim();
    return token.isEmpty() ? null : token;
  }

  /**
   * The {@code WWW-Authenticate} value for a 401 (error attributes only when a token was sent), with
   * the scopes a token needs when there are any (MCP authorization: the client asks for them).
   */
  String challenge(Verdict verdict, String origin, java.util.List<String> scopes) {
    String metadata = "resource_metadata=\"" + metadataUrl(origin) + "\"";
    String scope = scopes.isEmpty() ? "" : "scope=\"" + String.join(" ", scopes) + "\", ";
    return verdict == Verdict.INVALID
        ? "Bearer error=\"invalid_token\", error_description=\"the access token is not valid\", " + scope + metadata
        : "Bearer " + scope + metadata;
  }

  /** The {@code WWW-Authenticate} value for a 403: a good token that lacks {@code scope} (RFC 6750 section 3.1). */
  String insufficientScope(String scope, String origin) {
    return "Bearer error=\"insufficient_scope\", error_description=\"the access token lacks a required scope\", scope=\""
        + scope + "\", resource_metadata=\"" + metadataUrl(origin) + "\"";
  }

  /** Where the protected-resource document lives: the well-known path inserted before the path. */
  String metadataUrl(String origin) {
    return base(origin) + "/.well-known/oauth-protected-resource" + ServeConfig.pathPrefix(publicUrl) + path;
  }

  /**
   * The RFC 9728 protected-resource document for this endpoint; {@code authorizationServer} (the
   * embedded one's issuer, or the external provider's) is named when there is one, and the
   * {@code scopes} a token needs when there are any.
   */
  String metadataDocument(String origin, String authorizationServer, java.util.List<String> scopes) {
    return "{\"resource\":\"" + base(origin) + ServeConfig.pathPrefix(publicUrl) + path + "\","
        + (authorizationServer == null ? "" : "\"authorization_servers\":[" + dev.mcpstdio.jsonrpc.Json.quote(authorizationServer) + "],")
        + (scopes.isEmpty() ? "" : "\"scopes_supported\":[" + String.join(",", scopes.stream().map(dev.mcpstdio.jsonrpc.Json::quote).toList()) + "],")
        + "\"bearer_methods_supported\":[\"header\"],\"resource_name\":\"mcp-stdio serve\"}";
  }

  private String base(String origin) {
    return publicUrl != null ? HostGuard.origin(publicUrl) : origin;
  }

  private static byte[] digest(String token) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
