package dev.mcpstdio.serve.auth;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.oauth.FormEncoding;
import dev.mcpstdio.serve.http.Replies;
import dev.mcpstdio.serve.http.RequestBodies;
import dev.mcpstdio.stdio.Log;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * The embedded authorization server over HTTP: its metadata (RFC 8414), dynamic client
 * registration (RFC 7591), the authorization endpoint (RFC 6749 section 4.1 with PKCE and the
 * {@code iss} of RFC 9207 on every redirect), the token endpoint and revocation (RFC 7009). The
 * rules are {@link Grants}'; this class reads requests and writes answers. Every answer that
 * carries a code, a token or a client id says {@code Cache-Control: no-store}.
 *
 * <p>The issuer is the endpoint's origin as the client reached it plus the public URL's path
 * ({@code --public-url https://host/team-a}: {@code https://host/team-a}), given per request by
 * the gateway, which owns the origin rules; the resource is the issuer plus the MCP path.
 */
public final class AuthorizationEndpoints implements AccessTokens {

  /** Request bodies of the registration, token and revocation endpoints: 64 KiB at most each. */
  public static final int MAX_BODY = 64 * 1024;

  private final Grants grants;
  private final RequestBodies bodies;
  private final Function<Request, String> issuer;
  private final Function<Request, String> user;
  private final String mcpPath;
  private final Log log;
  private final FederatedLogin federated; // null without --login-oidc
  private final ClientDocuments documents; // null without an HTTP client to fetch them with

  /**
   * @param issuer the issuer URL for a request (origin and the public URL's path, no trailing slash)
   * @param user who is signed in, for the authorization endpoint: null when nobody is
   * @param mcpPath the MCP endpoint's path ({@code /mcp}): the resource is issuer + this
   */
  public AuthorizationEndpoints(Grants grants, Duration bodyTimeout, Function<Request, String> issuer,
      Function<Request, String> user, String mcpPath, Log log) {
    this(grants, bodyTimeout, issuer, user, mcpPath, log, null, null);
  }

  /**
   * The same, fetching client ID metadata documents over {@code http} (null: no such clients),
   * and signing users in at an OpenID Connect provider ({@code federation}, or null) when
   * {@code user} names nobody.
   */
  public AuthorizationEndpoints(Grants grants, Duration bodyTimeout, Function<Request, String> issuer,
      Function<Request, String> user, String mcpPath, Log log, FederationSettings federation, dev.mcpstdio.oauth.OAuthHttp http) {
    this.federated = federation == null ? null : new FederatedLogin(federation, http, grants, System::currentTimeMillis, log);
    this.documents = http == null ? null : new ClientDocuments(http, grants.allowedRedirects(), System::currentTimeMillis, log,
        InetAddress::getAllByName);
    this.grants = grants;
    this.bodies = new RequestBodies(MAX_BODY, bodyTimeout);
    this.issuer = issuer;
    this.user = user;
    this.mcpPath = mcpPath;
    this.log = log;
  }

  /** The endpoints' paths below the issuer's path. */
  public static final String AUTHORIZE = "/authorize";
  public static final String TOKEN = "/token";
  public static final String REGISTER = "/register";
  public static final String REVOKE = "/revoke";
  /** Where an OpenID Connect provider sends the browser back ({@code --login-oidc}). */
  public static final String OIDC_CALLBACK = FederatedLogin.CALLBACK;

  /** The resource URL (RFC 8707) for a request: the issuer and the MCP path. */
  public String resource(Request request) {
    return issuer.apply(request) + mcpPath;
  }

  /** An access token this server issued for {@code resource}, live, stands for its user. */
  @Override
  public TokenVerdict verify(String accessToken, String resource) {
    String user = grants.principal(accessToken, resource);
    return user != null ? new TokenVerdict.Accepted(user) : new TokenVerdict.Rejected("not a live access token of this server for this resource");
  }

  @Override
  public java.util.List<String> requiredScopes() {
    return java.util.List.of();
  }

  /** The issuer, for the protected-resource document's {@code authorization_servers}. */
  public String issuer(Request request) {
    return issuer.apply(request);
  }

  // RFC 8414 -------------------------------------------------------------------------------------

  public void metadata(Request request, Response response, Callback callback) {
    String iss = issuer.apply(request);
    String body = "{\"issuer\":" + Json.quote(iss)
        + ",\"authorization_endpoint\":" + Json.quote(iss + AUTHORIZE)
        + ",\"token_endpoint\":" + Json.quote(iss + TOKEN)
        + ",\"registration_endpoint\":" + Json.quote(iss + REGISTER)
        + ",\"revocation_endpoint\":" + Json.quote(iss + REVOKE)
        + ",\"response_types_supported\":[\"code\"]"
        + ",\"grant_types_supported\":[\"authorization_code\",\"refresh_token\"]"
        + ",\"code_challenge_methods_supported\":[\"S256\"]"
        + ",\"token_endpoint_auth_methods_supported\":[\"none\"]"
        + ",\"revocation_endpoint_auth_methods_supported\":[\"none\"]"
        + ",\"authorization_response_iss_parameter_supported\":true"
        + (documents == null ? "" : ",\"client_id_metadata_document_supported\":true") + "}";
    response.getHeaders().put(HttpHeader.ACCESS_CONTROL_ALLOW_ORIGIN, "*");
    discoveryHeaders(response);
    Replies.text(response, callback, 200, "application/json", body);
  }

  /**
   * A discovery document names URLs built from the request's origin: no cache may keep one for
   * another origin's clients (RFC 9728 and RFC 8414 documents alike).
   */
  public static void discoveryHeaders(Response response) {
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
    response.getHeaders().put(HttpHeader.VARY, "Host, X-Forwarded-Host, X-Forwarded-Proto");
  }

  // RFC 7591 -------------------------------------------------------------------------------------

  public void register(Request request, Response response, Callback callback) throws InterruptedException {
    byte[] body = bodies.read(request, response, callback);
    if (body == null) {
      return; // answered
    }
    try {
      JsonSpan whole = new JsonSpan(0, body.length);
      if (!Json.isOneObject(body)) {
        oauthError(response, callback, 400, "invalid_client_metadata", "the body must be a JSON object");
        return;
      }
      JsonSpan uris = Json.field(body, whole, "redirect_uris");
      List<JsonSpan> elements = uris == null ? null : Json.elements(body, uris);
      List<String> redirectUris = new ArrayList<>();
      if (elements != null) {
        for (JsonSpan e : elements) {
          String uri = Json.string(body, e);
          if (uri == null) {
            oauthError(response, callback, 400, "invalid_client_metadata", "redirect_uris must hold strings");
            return;
          }
          redirectUris.add(uri);
        }
      }
      RegisteredClient client;
      try {
        client = grants.register(elements == null ? null : redirectUris);
      } catch (Grants.RegistrationRefused e) {
        if (e.error().equals("invalid_redirect_uri")) {
          log.warn("registration refused: " + e.getMessage());
        }
        oauthError(response, callback, 400, e.error(), e.getMessage());
        return;
      }
      StringJoiner registered = new StringJoiner(",", "[", "]");
      client.redirectUris().forEach(u -> registered.add(Json.quote(u)));
      noStore(response);
      Replies.text(response, callback, 201, "application/json", "{\"client_id\":" + Json.quote(client.clientId())
          + ",\"client_id_issued_at\":" + client.issuedAt() + ",\"redirect_uris\":" + registered
          + ",\"token_endpoint_auth_method\":\"none\",\"grant_types\":[\"authorization_code\",\"refresh_token\"]"
          + ",\"response_types\":[\"code\"]}");
    } finally {
      bodies.release(body);
    }
  }

  // RFC 6749 section 4.1.1 -----------------------------------------------------------------------

  public void authorize(Request request, Response response, Callback callback) throws InterruptedException {
    String query = request.getHttpURI().getQuery();
    String repeated = repeated(query);
    if (repeated != null) { // which client_id or redirect_uri counts is unclear: no redirect
      noStore(response);
      oauthError(response, callback, 400, "invalid_request", "parameter repeated: " + repeated);
      return;
    }
    Map<String, String> q = FormEncoding.decode(query);
    String iss = issuer.apply(request);
    AuthorizationRequest r = new AuthorizationRequest(q.get("client_id"), q.get("redirect_uri"), q.get("response_type"),
        q.get("code_challenge"), q.get("code_challenge_method"), q.get("scope"), q.get("resource"), user.apply(request));
    noStore(response);
    RegisteredClient client;
    if (documents != null && ClientDocuments.isDocumentUrl(r.clientId())) {
      switch (documents.resolve(r.clientId())) {
        case ClientDocuments.Resolved.Client c -> client = c.client();
        case ClientDocuments.Resolved.Refused refused -> {
          // the reason (what the fetch met) is the operator's: a caller must not learn what lies behind the gateway
          log.warn("authorization request refused without redirect: client metadata document " + Log.visible(cutUrl(r.clientId()))
              + ": " + refused.reason());
          oauthError(response, callback, 400, "invalid_client", "the client metadata document cannot be used");
          return;
        }
      }
    } else {
      client = grants.client(r.clientId());
    }
    if (r.user() == null && federated != null) {
      AuthorizeOutcome problem = grants.check(r, iss + mcpPath, client);
      if (problem == null) {
        follow(response, callback, federated.begin(r, client, q.get("state"), iss, iss + mcpPath));
        return;
      }
    }
    AuthorizeOutcome outcome = grants.authorize(r, iss + mcpPath, client);
    switch (outcome) {
      case AuthorizeOutcome.Refused refused -> {
        log.warn("authorization request refused without redirect: " + refused.description());
        oauthError(response, callback, 400, "invalid_request", refused.description());
      }
      case AuthorizeOutcome.Issued issued -> redirect(response, callback, r.redirectUri(), q.get("state"), iss,
          Map.of("code", issued.code()));
      case AuthorizeOutcome.RedirectError error -> redirect(response, callback, r.redirectUri(), q.get("state"), iss,
          Map.of("error", error.error(), "error_description", error.description()));
    }
  }

  /** {@code GET <issuer path>/oidc/callback}: the provider's answer to a sign-in {@link #authorize} began. */
  public void oidcCallback(Request request, Response response, Callback callback) throws InterruptedException {
    noStore(response);
    String query = request.getHttpURI().getQuery();
    String repeated = repeated(query);
    if (federated == null || repeated != null) {
      oauthError(response, callback, federated == null ? 404 : 400, "invalid_request",
          federated == null ? "not found" : "parameter repeated: " + repeated);
      return;
    }
    follow(response, callback, federated.callback(FormEncoding.decode(query), cookies(request)));
  }

  private static String cutUrl(String url) {
    return url.length() > 200 ? url.substring(0, 200) + "..." : url;
  }

  /** The request's cookies by name (RFC 6265 section 5.4); the first of a name wins. */
  private static Map<String, String> cookies(Request request) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String header : request.getHeaders().getValuesList(HttpHeader.COOKIE)) {
      for (String pair : header.split(";")) {
        int eq = pair.indexOf('=');
        if (eq > 0) {
          out.putIfAbsent(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
      }
    }
    return out;
  }

  private static void follow(Response response, Callback callback, FederatedLogin.Step step) {
    switch (step) {
      case FederatedLogin.Step.Redirect to -> {
        if (to.setCookie() != null) {
          response.getHeaders().add(HttpHeader.SET_COOKIE, to.setCookie());
        }
        redirect(response, callback, to.location());
      }
      case FederatedLogin.Step.Refused refused -> oauthError(response, callback, refused.status(), refused.error(), refused.description());
    }
  }

  private static void redirect(Response response, Callback callback, String to, String state, String iss, Map<String, String> params) {
    redirect(response, callback, redirectUrl(to, state, iss, params));
  }

  private static void redirect(Response response, Callback callback, String location) {
    response.getHeaders().put(HttpHeader.LOCATION, location);
    Replies.empty(response, callback, 302);
  }

  /** The client's redirect URI with {@code params}, its {@code state} and the {@code iss} of RFC 9207. */
  static String redirectUrl(String to, String state, String iss, Map<String, String> params) {
    Map<String, String> all = new LinkedHashMap<>(params);
    if (state != null) {
      all.put("state", state);
    }
    all.put("iss", iss);
    return to + (to.indexOf('?') < 0 ? "?" : "&") + FormEncoding.encode(all);
  }

  // RFC 6749 sections 4.1.3 and 6 ------------------------------------------------------------------

  public void token(Request request, Response response, Callback callback) throws InterruptedException {
    Map<String, String> form = form(request, response, callback);
    if (form == null) {
      return;
    }
    TokenOutcome outcome = grants.token(form);
    noStore(response);
    response.getHeaders().put(HttpHeader.PRAGMA, "no-cache");
    switch (outcome) {
      case TokenOutcome.Issued t -> Replies.text(response, callback, 200, "application/json",
          "{\"access_token\":" + Json.quote(t.accessToken()) + ",\"token_type\":\"Bearer\",\"expires_in\":" + t.expiresIn()
              + ",\"refresh_token\":" + Json.quote(t.refreshToken()) + (t.scope() == null ? "" : ",\"scope\":" + Json.quote(t.scope())) + "}");
      case TokenOutcome.Failed f -> oauthError(response, callback, 400, f.error(), f.description());
    }
  }

  // RFC 7009 -----------------------------------------------------------------------------------------

  public void revoke(Request request, Response response, Callback callback) throws InterruptedException {
    Map<String, String> form = form(request, response, callback);
    if (form == null) {
      return;
    }
    if (form.get("token") == null) {
      oauthError(response, callback, 400, "invalid_request", "token is required");
      return;
    }
    grants.revoke(form.get("token"), form.get("client_id"));
    noStore(response);
    Replies.empty(response, callback, 200);
  }

  /** The form body of a POST; null after answering (a body out of bounds, or not a form). */
  private Map<String, String> form(Request request, Response response, Callback callback) throws InterruptedException {
    String type = request.getHeaders().get(HttpHeader.CONTENT_TYPE);
    if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
      oauthError(response, callback, 400, "invalid_request", "the body must be application/x-www-form-urlencoded");
      return null;
    }
    byte[] body = bodies.read(request, response, callback);
    if (body == null) {
      return null;
    }
    try {
      String raw = new String(body, StandardCharsets.UTF_8);
      String repeated = repeated(raw);
      if (repeated != null) {
        oauthError(response, callback, 400, "invalid_request", "parameter repeated: " + repeated);
        return null;
      }
      return FormEncoding.decode(raw);
    } finally {
      bodies.release(body);
    }
  }

  /** The first parameter named twice in a form or query, fit for an error message; null when none is. */
  private static String repeated(String raw) {
    String name = FormEncoding.firstRepeated(raw);
    return name == null ? null : Log.visible(name.length() > 64 ? name.substring(0, 64) + "..." : name);
  }

  private static void noStore(Response response) {
    response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
  }

  /** An OAuth error answer (RFC 6749 section 5.2). */
  private static void oauthError(Response response, Callback callback, int status, String error, String description) {
    noStore(response);
    Replies.text(response, callback, status, "application/json",
        "{\"error\":" + Json.quote(error) + ",\"error_description\":" + Json.quote(description) + "}");
  }
}
