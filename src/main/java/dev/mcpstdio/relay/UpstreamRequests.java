package dev.mcpstdio.relay;

import dev.mcpstdio.Version;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds every HTTP request the relay sends upstream: one place for the URL, the HTTP version, the
 * built-in headers, the user's {@code -H} pins, the per-call headers the links chose (session id,
 * protocol version, the attempt's login) and the relay's own login.
 *
 * <p>Headers go in rising precedence: built-ins, the user's pins, the call's own, and then the
 * login at hand unless the call carries one (the login an attempt was made with is the one a 401
 * must renew, so the link that chose it puts it on the call). Each kind of request keeps exactly
 * the headers it had on the wire before this class existed (the pinned tests in
 * {@code relay.pinned} compare them byte for byte): the 2025 era's requests carry
 * {@code Accept-Encoding: identity}, the HTTP+SSE (2024-11-05) transport's do not, and its POSTs
 * add {@code Content-Type} after the pins instead of under them.
 */
final class UpstreamRequests {

  /** The JDK client has no "no timeout" value for a request; a year is as good. */
  static final Duration FOREVER = Duration.ofDays(365);

  /** Built-in POST headers of the 2025 era; a user's {@code -H} pin of the same name replaces them. */
  private static final Map<String, String> POST_DEFAULTS =
      Map.of("Content-Type", "application/json", "Accept", "application/json, text/event-stream");

  private final URI url;
  private final HttpClient.Version version;
  private final Duration readTimeout;
  private final List<Header> pins;
  private final List<String[]> postHeaders; // {name, value}: built-ins, then the pins
  private final List<String[]> otherHeaders;
  private final List<String[]> post2026Headers; // the POST headers without pins of headers the 2026 era derives or forbids
  private volatile Authorization auth; // null unless the relay signs in itself

  UpstreamRequests(RelayConfig config) {
    this.url = config.url();
    this.readTimeout = config.readTimeout();
    this.pins = List.copyOf(config.headers());
    this.version = HttpClient.Version.HTTP_1_1; // what net.Http1Client speaks, http and https alike
    Map<String, String[]> base = new LinkedHashMap<>();
    put(base, "User-Agent", userAgent());
    put(base, "Accept-Encoding", "identity"); // bodies are size-bounded; a -H pin may opt in
    for (Header h : pins) {
      put(base, h.name(), h.value());
    }
    this.postHeaders = merged(POST_DEFAULTS, base);
    this.otherHeaders = merged(Map.of(), base);
    this.post2026Headers = postHeaders.stream().filter(h -> !derivedIn2026(h[0])).toList();
  }

  /**
   * Headers the 2026 era derives from each body (a pinned value would contradict it) or forbids
   * (there are no sessions and no resumption): a user's {@code -H} pin of one is not sent then.
   */
  static boolean derivedIn2026(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.equals("mcp-protocol-version") || lower.equals("mcp-session-id") || lower.equals("mcp-method")
        || lower.equals("mcp-name") || lower.startsWith("mcp-param-") || lower.equals("last-event-id");
  }

  /** From now on every request carries the relay's own login (OAuth): see the class comment. */
  void authorization(Authorization authorization) {
    this.auth = authorization;
  }

  /** The relay's own login, or null when it does not sign in itself. */
  Authorization authorization() {
    return auth;
  }

  /** The endpoint URL the relay was started with. */
  URI url() {
    return url;
  }

  /** 2025 era: one POST of a call's body. */
  HttpRequest.Builder post(Map<String, String> callHeaders, HttpRequest.BodyPublisher body) {
    return streamableHttp(postHeaders, callHeaders).POST(body);
  }

  /** 2026 era: one POST of a call's body; the call's headers carry the version and routing headers. */
  HttpRequest.Builder post2026(Map<String, String> callHeaders, HttpRequest.BodyPublisher body) {
    return streamableHttp(post2026Headers, callHeaders).POST(body);
  }

  /**
   * 2025 era: the GET stream, or the resumption of a POST's event stream. A stream may send
   * nothing, headers included, until it has an event (some servers commit the response only
   * then): {@code idleTimeout} applies, not {@code --timeout-read}; zero means none.
   *
   * @param lastEventId the event to resume after, or null
   */
  HttpRequest.Builder stream(Map<String, String> callHeaders, String lastEventId, Duration idleTimeout) {
    Map<String, String> headers = new LinkedHashMap<>(callHeaders);
    headers.put("accept", "text/event-stream"); // required on GET, whatever was pinned
    HttpRequest.Builder request = streamableHttp(otherHeaders, headers).GET();
    request.timeout(idleTimeout.isZero() ? FOREVER : idleTimeout);
    if (lastEventId != null) {
      request.header("Last-Event-ID", lastEventId);
    }
    return request;
  }

  /** 2025 era: ends the session. */
  HttpRequest.Builder delete(Map<String, String> callHeaders, Duration timeout) {
    return streamableHttp(otherHeaders, callHeaders).timeout(timeout).DELETE();
  }

  /** HTTP+SSE (2024-11-05): the event stream, which names the endpoint to POST to. */
  HttpRequest.Builder eventStream() {
    return httpSse(HttpRequest.newBuilder(url).GET().header("Accept", "text/event-stream")
        .header("Cache-Control", "no-cache"));
  }

  /**
   * HTTP+SSE (2024-11-05): one POST to the endpoint the event stream named.
   *
   * @param authorization the login the attempt was made with, or null for the login at hand
   */
  HttpRequest.Builder endpointPost(URI endpoint, byte[] body, String authorization) {
    HttpRequest.Builder builder = httpSse(HttpRequest.newBuilder(endpoint).timeout(readTimeout))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofByteArray(body));
    if (authorization != null) {
      builder.setHeader("Authorization", authorization);
    }
    return builder;
  }

  private HttpRequest.Builder streamableHttp(List<String[]> fixed, Map<String, String> callHeaders) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(url).version(version).timeout(readTimeout);
    for (String[] header : fixed) {
      builder.setHeader(header[0], header[1]);
    }
    callHeaders.forEach(builder::setHeader);
    if (!callHeaders.containsKey("authorization")) {
      setLoginAtHand(builder);
    }
    return builder;
  }

  private HttpRequest.Builder httpSse(HttpRequest.Builder builder) {
    builder.setHeader("User-Agent", userAgent());
    for (Header h : pins) {
      builder.setHeader(h.name(), h.value());
    }
    setLoginAtHand(builder);
    return builder;
  }

  private void setLoginAtHand(HttpRequest.Builder builder) {
    Authorization a = auth;
    String current = a == null ? null : a.current();
    if (current != null) {
      builder.setHeader("Authorization", current);
    }
  }

  private static String userAgent() {
    return "mcp-stdio/" + Version.get();
  }

  private static void put(Map<String, String[]> headers, String name, String value) {
    headers.put(name.toLowerCase(Locale.ROOT), new String[] {name, value});
  }

  private static List<String[]> merged(Map<String, String> builtIns, Map<String, String[]> base) {
    Map<String, String[]> merged = new LinkedHashMap<>();
    builtIns.forEach((name, value) -> put(merged, name, value));
    merged.putAll(base);
    return List.copyOf(merged.values());
  }
}
