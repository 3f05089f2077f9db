package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.oauth.Pkce;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A client of the embedded authorization server, for tests: registration, authorization with
 * PKCE (with a header of the test's own, e.g. a proxy's user header) and the code's redemption.
 */
final class EmbeddedSignIn {

  static final String REDIRECT = "http://127.0.0.1:53682/callback";

  private static final HttpClient HTTP = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();

  private EmbeddedSignIn() {}

  /** The members of a JSON object, strings unquoted and everything else as written. */
  static Map<String, String> object(String json) {
    byte[] b = json.getBytes(StandardCharsets.UTF_8);
    Map<String, String> out = new LinkedHashMap<>();
    Json.fields(b, new JsonSpan(0, b.length)).forEach((k, v) -> {
      String s = Json.string(b, v);
      out.put(k, s != null ? s : v.text(b));
    });
    return out;
  }

  static HttpResponse<String> get(String url, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url)).GET();
    if (headers.length > 0) {
      b.headers(headers);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> post(String url, String contentType, String body) throws Exception {
    return HTTP.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> form(String url, Map<String, String> fields) throws Exception {
    return post(url, "application/x-www-form-urlencoded", FormEncoding.encode(fields));
  }

  static String register(String base) throws Exception {
    HttpResponse<String> r = post(base + "/register", "application/json", "{\"redirect_uris\":[\"" + REDIRECT + "\"],\"client_name\":\"t\"}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(201);
    assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
    return object(r.body()).get("client_id");
  }

  static String codeFrom(HttpResponse<String> redirect) {
    return FormEncoding.decode(URI.create(redirect.headers().firstValue("Location").orElseThrow()).getRawQuery()).get("code");
  }

  static String authorizeUrl(String base, String clientId, Pkce pkce, String redirect) {
    return base + "/authorize?" + FormEncoding.encode(new LinkedHashMap<>(Map.of("response_type", "code", "client_id", clientId,
        "redirect_uri", redirect, "code_challenge", pkce.challenge(), "code_challenge_method", "S256", "state", "st-1",
        "resource", base + "/mcp")));
  }

  /** Registers a client, signs in (sending {@code headers} to the authorization endpoint), redeems the code: the token answer's members. */
  static Map<String, String> signIn(String base, String... headers) throws Exception {
    String clientId = register(base);
    Pkce pkce = Pkce.create();
    HttpResponse<String> redirect = get(authorizeUrl(base, clientId, pkce, REDIRECT), headers);
    assertThat(redirect.statusCode()).as(redirect.body()).isEqualTo(302);
    String code = codeFrom(redirect);
    assertThat(code).as("a code in %s", redirect.headers().firstValue("Location")).isNotNull();
    return object(form(base + "/token", Map.of("grant_type", "authorization_code", "code", code, "client_id", clientId,
        "redirect_uri", REDIRECT, "code_verifier", pkce.verifier())).body());
  }

  /** {@link #signIn} as {@code user}, named by a proxy's {@code header}: the access token. */
  static String accessTokenOf(String base, String header, String user) throws Exception {
    return signIn(base, header, user).get("access_token");
  }
}
