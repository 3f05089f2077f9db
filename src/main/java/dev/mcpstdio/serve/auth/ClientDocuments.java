package dev.mcpstdio.serve.auth;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.oauth.EndpointGuard;
import dev.mcpstdio.oauth.OAuthHttp;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Client ID metadata documents (draft-ietf-oauth-client-id-metadata-document; MCP's preferred
 * registration): a {@code client_id} that is an https URL with a path names a JSON document
 * there, which this server fetches instead of a registration. The URL must pass the relay's
 * {@link EndpointGuard} (https, no userinfo, a host, and here also no fragment, no query and no
 * dot segments), and the host must not resolve to a loopback, private-network (RFC 1918, CGNAT,
 * unique-local IPv6), link-local (a cloud's metadata service), wildcard or multicast address: an
 * anonymous caller picks the URL. The check is of the addresses the name resolves to when it is
 * made; the fetch resolves the name again (the JVM's DNS cache, 30 s by default, makes a rebinding
 * in between unlikely, not impossible). The fetch follows no redirect; its answer must start
 * within 10 s and is refused over 64 KiB (read up to the OAuth client's 1 MiB bound). The
 * document must be one object whose {@code client_id} is exactly the URL and whose
 * {@code redirect_uris} (1 to 10) are each one this server would let a client register (loopback,
 * or the operator's {@code --allow-redirect-uri}): the server signs users in without a consent
 * screen, so a document cannot bring a redirect target of its own choosing.
 *
 * <p>Documents are cached by URL: a good one for its {@code Cache-Control: max-age} within 1 minute
 * and 1 day (5 minutes without one), a refusal for 1 minute; at most {@link #MAX_CACHED} URLs (the
 * soonest to expire make room); at most {@link #CONCURRENT} fetches at once (a request waits up to
 * 5 s, then is refused).
 */
final class ClientDocuments {

  static final int MAX_CACHED = 1000;
  static final int CONCURRENT = 8;
  static final int MAX_BYTES = 64 * 1024;
  static final long DEFAULT_TTL_MILLIS = 5 * 60_000;
  static final long MIN_TTL_MILLIS = 60_000;
  static final long MAX_TTL_MILLIS = 24 * 3600_000L;
  static final long REFUSED_TTL_MILLIS = 60_000;

  private static final Pattern MAX_AGE = Pattern.compile("(?i)(?:^|[,\\s])max-age\\s*=\\s*(\\d{1,10})");

  /** A document's verdict: the client it describes, or why there is none. */
  sealed interface Resolved {
    record Client(RegisteredClient client) implements Resolved {}

    record Refused(String reason) implements Resolved {}
  }

  private record Cached(Resolved resolved, long expiresAt) implements BoundedStore.Expiring {}

  /** Looks a host's addresses up (DNS in production; a test's own answer). */
  interface Resolver {
    InetAddress[] addresses(String host) throws UnknownHostException;
  }

  private final OAuthHttp http;
  private final Set<String> allowedRedirects;
  private final LongSupplier clock;
  private final Log log;
  private final Resolver resolver;
  private final BoundedStore<Cached> cache = new BoundedStore<>(MAX_CACHED); // guarded by itself
  private final Semaphore fetches = new Semaphore(CONCURRENT);
  private final boolean privateHostsAllowed;

  ClientDocuments(OAuthHttp http, Set<String> allowedRedirects, LongSupplier clock, Log log, Resolver resolver) {
    this(http, allowedRedirects, clock, log, resolver, false);
  }

  /** The same; {@code privateHostsAllowed} lets documents on loopback and private networks be fetched (tests only). */
  ClientDocuments(OAuthHttp http, Set<String> allowedRedirects, LongSupplier clock, Log log, Resolver resolver,
      boolean privateHostsAllowed) {
    this.privateHostsAllowed = privateHostsAllowed;
    this.http = http;
    this.allowedRedirects = Set.copyOf(allowedRedirects);
    this.clock = clock;
    this.log = log;
    this.resolver = resolver;
  }

  /** Whether {@code clientId} names a metadata document (an https URL) rather than a registration. */
  static boolean isDocumentUrl(String clientId) {
    return clientId != null && clientId.startsWith("https://");
  }

  Resolved resolve(String url) throws InterruptedException {
    long now = clock.getAsLong();
    synchronized (cache) {
      Cached hit = cache.live(url, now);
      if (hit != null) {
        return hit.resolved();
      }
    }
    String refusal = urlRefusal(url);
    if (refusal != null) {
      return remember(url, new Resolved.Refused(refusal), now + REFUSED_TTL_MILLIS);
    }
    if (!fetches.tryAcquire(5, TimeUnit.SECONDS)) {
      return new Resolved.Refused("too many client metadata documents are being fetched at once");
    }
    try {
      OAuthHttp.Answer answer = http.get(URI.create(url), Map.of());
      now = clock.getAsLong();
      if (answer.status() != 200) {
        return remember(url, new Resolved.Refused("the client metadata document answered HTTP " + answer.status()),
            now + REFUSED_TTL_MILLIS);
      }
      if (answer.body().length > MAX_BYTES) {
        return remember(url, new Resolved.Refused("the client metadata document is over " + MAX_BYTES / 1024 + " KiB"),
            now + REFUSED_TTL_MILLIS);
      }
      Resolved resolved = parse(url, answer.body(), now);
      long ttl = resolved instanceof Resolved.Client ? ttl(answer) : REFUSED_TTL_MILLIS;
      if (resolved instanceof Resolved.Refused r) {
        log.warn("client metadata document " + Log.visible(url) + " refused: " + r.reason());
      }
      return remember(url, resolved, now + ttl);
    } catch (IOException | IllegalArgumentException e) {
      return remember(url, new Resolved.Refused("the client metadata document cannot be fetched: " + e.getMessage()),
          clock.getAsLong() + REFUSED_TTL_MILLIS);
    } finally {
      fetches.release();
    }
  }

  private Resolved remember(String url, Resolved resolved, long until) {
    long now = clock.getAsLong();
    synchronized (cache) {
      cache.put(url, new Cached(resolved, until), now);
    }
    return resolved;
  }

  /** Why {@code url} may not be fetched as a client's document; null when it may. */
  String urlRefusal(String url) {
    if (url.length() > RedirectUris.MAX_LENGTH) {
      return "the client_id URL is too long";
    }
    String guard = EndpointGuard.refusal(url);
    if (guard != null) {
      return "the client_id URL " + guard;
    }
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return "the client_id is not a URL";
    }
    if (!"https".equals(uri.getScheme())) {
      return "the client_id URL is not https";
    }
    String path = uri.getRawPath();
    if (path == null || path.isEmpty() || path.equals("/") || uri.getRawQuery() != null || uri.getRawFragment() != null) {
      return "the client_id URL needs a path, and no query or fragment";
    }
    for (String segment : path.split("/", -1)) {
      if (segment.equals(".") || segment.equals("..") || segment.equalsIgnoreCase("%2e") || segment.equalsIgnoreCase("%2e%2e")) {
        return "the client_id URL has a dot segment";
      }
    }
    try {
      for (InetAddress a : resolver.addresses(uri.getHost())) {
        if (a.isLinkLocalAddress() || a.isAnyLocalAddress() || a.isMulticastAddress()) {
          return "the client_id URL's host is a link-local, wildcard or multicast address";
        }
        if (!privateHostsAllowed && isInternal(a)) {
          return "the client_id URL's host is a loopback or private-network address";
        }
      }
    } catch (UnknownHostException e) {
      return "the client_id URL's host is unknown";
    }
    return null;
  }

  /**
   * Loopback, RFC 1918, shared (CGNAT, 100.64/10) and unique-local IPv6 (fc00::/7) addresses: an
   * anonymous caller picks the URL, so nothing inside the gateway's network may be fetched for it.
   */
  static boolean isInternal(InetAddress a) {
    if (a.isLoopbackAddress() || a.isSiteLocalAddress()) {
      return true;
    }
    byte[] b = a.getAddress();
    if (b.length == 4) {
      return (b[0] & 0xff) == 100 && (b[1] & 0xc0) == 64;
    }
    if ((b[0] & 0xfe) == 0xfc) {
      return true;
    }
    boolean mapped = true; // ::ffff:a.b.c.d
    for (int i = 0; i < 10; i++) {
      mapped &= b[i] == 0;
    }
    if (mapped && (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff) {
      try {
        return isInternal(InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)))
            || InetAddress.getByAddress(java.util.Arrays.copyOfRange(b, 12, 16)).isLinkLocalAddress();
      } catch (UnknownHostException e) {
        return true;
      }
    }
    return false;
  }

  private Resolved parse(String url, byte[] body, long now) {
    if (!Json.isOneObject(body)) {
      return new Resolved.Refused("not one JSON object");
    }
    Map<String, JsonSpan> doc = Json.fields(body, new JsonSpan(0, body.length));
    JsonSpan id = doc.get("client_id");
    if (id == null || !url.equals(Json.string(body, id))) {
      return new Resolved.Refused("its client_id is not its own URL");
    }
    JsonSpan uris = doc.get("redirect_uris");
    List<JsonSpan> elements = uris == null ? null : Json.elements(body, uris);
    if (elements == null || elements.isEmpty() || elements.size() > Grants.MAX_REDIRECT_URIS) {
      return new Resolved.Refused("redirect_uris must be an array of 1 to " + Grants.MAX_REDIRECT_URIS + " URIs");
    }
    List<String> redirects = new ArrayList<>();
    for (JsonSpan e : elements) {
      String uri = Json.string(body, e);
      if (!RedirectUris.registrable(uri, allowedRedirects)) {
        return new Resolved.Refused("redirect URI " + (uri == null ? "(not a string)" : Log.visible(cut(uri)))
            + " is neither loopback (RFC 8252) nor one this server allows (--allow-redirect-uri)");
      }
      redirects.add(uri);
    }
    return new Resolved.Client(new RegisteredClient(url, redirects, now / 1000));
  }

  /** How long a good document is kept: its max-age within bounds, else the default. */
  private static long ttl(OAuthHttp.Answer answer) {
    String cacheControl = answer.cacheControl();
    Matcher m = cacheControl == null ? null : MAX_AGE.matcher(cacheControl);
    if (m == null || !m.find()) {
      return DEFAULT_TTL_MILLIS;
    }
    return Math.max(MIN_TTL_MILLIS, Math.min(MAX_TTL_MILLIS, Long.parseLong(m.group(1)) * 1000));
  }

  private static String cut(String s) {
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
