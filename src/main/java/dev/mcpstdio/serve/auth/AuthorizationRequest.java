package dev.mcpstdio.serve.auth;

/**
 * What an authorization request asks for (RFC 6749 section 4.1.1 with PKCE, RFC 7636, and the
 * resource indicator of RFC 8707), and who the signed-in user is (null when nobody is).
 */
public record AuthorizationRequest(String clientId, String redirectUri, String responseType, String codeChallenge,
    String codeChallengeMethod, String scope, String resource, String user) {}
