package dev.mcpstdio.serve.auth;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The token store's file format, version {@value #VERSION}: one JSON object with the clients and
 * the keyed codes, grant families and access tokens of a {@link GrantState}. Reading trusts
 * nothing: every record must have each member with its type and shape (store keys and family ids
 * as the server makes them, user names as the gate accepts them, integral timestamps); a record
 * that does not, or that has expired, or whose client (or, for a token, grant) is gone, is dropped
 * and counted (a client ID metadata document's client is never registered, and its grants are
 * kept); a client
 * whose redirect URIs the server would no longer register (an {@code --allow-redirect-uri} taken
 * away) is dropped with everything issued to it, and named.
 */
final class GrantStateCodec {

  static final int VERSION = 1;

  /** A store key: base64url of a SHA-256, no padding. */
  private static final Pattern KEY = Pattern.compile("[A-Za-z0-9_-]{43}");
  /** A family id, or a registered client's id: base64url of 16 or 32 random bytes. */
  private static final Pattern ID = Pattern.compile("[A-Za-z0-9_-]{22,43}");
  /** Any client's id: a registered one, or a client ID metadata document's https URL (printable ASCII, no space). */
  private static final Pattern CLIENT = Pattern.compile("[A-Za-z0-9_-]{22,43}|https://[\\x21-\\x7e]{1,2040}");
  private static final Pattern CHALLENGE = Pattern.compile("[A-Za-z0-9._~-]{43,128}");
  private static final int MAX_TEXT = 2048;

  /** The file is not a token store this version can read; {@link #unknownVersion} tells which. */
  static final class Unreadable extends Exception {
    final boolean unknownVersion;

    Unreadable(String message, boolean unknownVersion) {
      super(message, null, false, false);
      this.unknownVersion = unknownVersion;
    }
  }

  /** What was read: the state, and what was dropped from it and why. */
  record Decoded(GrantState state, int expired, int malformed, int orphaned, List<String> droppedClients) {}

  private GrantStateCodec() {}

  // writing ----------------------------------------------------------------------------------

  static byte[] encode(GrantState state) {
    StringBuilder out = new StringBuilder(256 + state.size() * 256).append("{\"version\":").append(VERSION).append(",\n\"clients\":[");
    join(out, state.clients(), c -> "{\"client_id\":" + q(c.clientId()) + ",\"redirect_uris\":["
        + String.join(",", c.redirectUris().stream().map(GrantStateCodec::q).toList()) + "],\"issued_at\":" + c.issuedAt() + "}");
    out.append("],\n\"codes\":[");
    join(out, state.codes(), e -> {
      Grants.Code c = e.value();
      return "{\"key\":" + q(e.key()) + ",\"client_id\":" + q(c.clientId()) + ",\"redirect_uri\":" + q(c.redirectUri())
          + ",\"challenge\":" + q(c.challenge()) + ",\"user\":" + q(c.user()) + ",\"scope\":" + q(c.scope())
          + ",\"resource\":" + q(c.resource()) + ",\"expires_at\":" + c.expiresAt() + "}";
    });
    out.append("],\n\"families\":[");
    join(out, state.families(), e -> {
      Grants.Family f = e.value();
      return "{\"id\":" + q(e.key()) + ",\"user\":" + q(f.user()) + ",\"client_id\":" + q(f.clientId()) + ",\"scope\":" + q(f.scope())
          + ",\"resource\":" + q(f.resource()) + ",\"code_key\":" + q(f.codeKey()) + ",\"redeemed_at\":" + f.redeemedAt()
          + ",\"current_refresh\":" + q(f.currentRefresh()) + ",\"previous_refresh\":" + q(f.previousRefresh())
          + ",\"rotated_at\":" + f.rotatedAt() + ",\"revoked\":" + f.revoked() + ",\"expires_at\":" + f.expiresAt() + "}";
    });
    out.append("],\n\"access_tokens\":[");
    join(out, state.accessTokens(), e -> {
      Grants.Token t = e.value();
      return "{\"key\":" + q(e.key()) + ",\"user\":" + q(t.user()) + ",\"client_id\":" + q(t.clientId()) + ",\"resource\":"
          + q(t.resource()) + ",\"family\":" + q(t.family()) + ",\"expires_at\":" + t.expiresAt() + "}";
    });
    return out.append("]}\n").toString().getBytes(StandardCharsets.UTF_8);
  }

  private static <T> void join(StringBuilder out, List<T> items, Function<T, String> each) {
    for (int i = 0; i < items.size(); i++) {
      out.append(i == 0 ? "\n" : ",\n").append(each.apply(items.get(i)));
    }
  }

  private static String q(String s) {
    return s == null ? "null" : Json.quote(s);
  }

  // reading ----------------------------------------------------------------------------------

  /** A record that is not as written; dropped and counted. */
  private static final class Malformed extends Exception {
    Malformed() {
      super(null, null, false, false);
    }
  }

  static Decoded decode(byte[] bytes, long now, Set<String> allowedRedirects) throws Unreadable {
    if (!Json.isOneObject(bytes)) {
      throw new Unreadable("not one JSON object", false);
    }
    Map<String, JsonSpan> top = Json.fields(bytes, new JsonSpan(0, bytes.length));
    JsonSpan version = top.get("version");
    if (version == null || Json.kind(bytes, version) != JsonToken.VALUE_NUMBER_INT) {
      throw new Unreadable("no version", false);
    }
    if (!version.text(bytes).equals(String.valueOf(VERSION))) {
      throw new Unreadable("version " + dev.mcpstdio.stdio.Log.visible(version.text(bytes).substring(0, Math.min(20, version.text(bytes).length()))) + ", not " + VERSION, true);
    }
    int[] expired = {0};
    int[] malformed = {0};
    int[] orphaned = {0};
    List<String> droppedClients = new ArrayList<>();
    Set<String> clientIds = new LinkedHashSet<>();
    List<RegisteredClient> clients = new ArrayList<>();
    for (Map<String, JsonSpan> r : records(bytes, top.get("clients"), malformed)) {
      try {
        String id = text(bytes, r, "client_id", ID);
        List<String> uris = new ArrayList<>();
        List<JsonSpan> spans = Json.elements(bytes, need(r, "redirect_uris"));
        if (spans == null || spans.isEmpty() || spans.size() > Grants.MAX_REDIRECT_URIS) {
          throw new Malformed();
        }
        for (JsonSpan u : spans) {
          uris.add(bounded(Json.string(bytes, u)));
        }
        long issuedAt = number(bytes, r, "issued_at");
        if (!uris.stream().allMatch(u -> RedirectUris.registrable(u, allowedRedirects))) {
          droppedClients.add(id);
          continue;
        }
        if (clientIds.add(id)) {
          clients.add(new RegisteredClient(id, uris, issuedAt));
        }
      } catch (Malformed e) {
        malformed[0]++;
      }
    }
    List<GrantState.Keyed<Grants.Code>> codes = new ArrayList<>();
    for (Map<String, JsonSpan> r : records(bytes, top.get("codes"), malformed)) {
      keep(codes, expired, malformed, orphaned, now, clientIds, () -> new GrantState.Keyed<>(text(bytes, r, "key", KEY), new Grants.Code(
          text(bytes, r, "client_id", CLIENT), text(bytes, r, "redirect_uri", null), text(bytes, r, "challenge", CHALLENGE),
          user(bytes, r), optional(bytes, r, "scope"), text(bytes, r, "resource", null), number(bytes, r, "expires_at"))),
          k -> k.value().clientId(), k -> k.value().expiresAt());
    }
    List<GrantState.Keyed<Grants.Family>> families = new ArrayList<>();
    for (Map<String, JsonSpan> r : records(bytes, top.get("families"), malformed)) {
      keep(families, expired, malformed, orphaned, now, clientIds, () -> new GrantState.Keyed<>(text(bytes, r, "id", ID), new Grants.Family(
          user(bytes, r), text(bytes, r, "client_id", CLIENT), optional(bytes, r, "scope"), text(bytes, r, "resource", null),
          text(bytes, r, "code_key", KEY), number(bytes, r, "redeemed_at"), optionalKey(bytes, r, "current_refresh"),
          optionalKey(bytes, r, "previous_refresh"), number(bytes, r, "rotated_at"), bool(bytes, r, "revoked"),
          number(bytes, r, "expires_at"))), k -> k.value().clientId(), k -> k.value().expiresAt());
    }
    Set<String> familyIds = new java.util.HashSet<>();
    families.forEach(f -> familyIds.add(f.key()));
    List<GrantState.Keyed<Grants.Token>> tokens = new ArrayList<>();
    for (Map<String, JsonSpan> r : records(bytes, top.get("access_tokens"), malformed)) {
      keep(tokens, expired, malformed, orphaned, now, clientIds, () -> new GrantState.Keyed<>(text(bytes, r, "key", KEY), new Grants.Token(
          user(bytes, r), text(bytes, r, "client_id", CLIENT), text(bytes, r, "resource", null), text(bytes, r, "family", ID),
          number(bytes, r, "expires_at"))), k -> k.value().clientId(), k -> k.value().expiresAt());
    }
    int before = tokens.size();
    tokens.removeIf(t -> !familyIds.contains(t.value().family())); // a token outlives no family
    orphaned[0] += before - tokens.size();
    return new Decoded(new GrantState(clients, codes, families, tokens), expired[0], malformed[0], orphaned[0], droppedClients);
  }

  private interface Reader<T> {
    T read() throws Malformed;
  }

  /** Adds the record {@code reader} reads unless it is malformed, expired, or its client is gone. */
  private static <T> void keep(List<T> into, int[] expired, int[] malformed, int[] orphaned, long now, Set<String> clientIds, Reader<T> reader,
      Function<T, String> client, java.util.function.ToLongFunction<T> expiresAt) {
    try {
      T value = reader.read();
      if (expiresAt.applyAsLong(value) <= now) {
        expired[0]++;
      } else if (clientIds.contains(client.apply(value)) || ClientDocuments.isDocumentUrl(client.apply(value))) {
        into.add(value); // a document's client is never registered: its document is fetched again when it next authorizes
      } else {
        orphaned[0]++;
      }
    } catch (Malformed e) {
      malformed[0]++;
    }
  }

  /** The objects of the array in {@code span} (absent: none); a non-object element is counted malformed. */
  private static List<Map<String, JsonSpan>> records(byte[] bytes, JsonSpan span, int[] malformed) throws Unreadable {
    if (span == null) {
      return List.of();
    }
    List<JsonSpan> elements = Json.elements(bytes, span);
    if (elements == null) {
      throw new Unreadable("a store that is not an array", false);
    }
    List<Map<String, JsonSpan>> out = new ArrayList<>();
    for (JsonSpan e : elements) {
      Map<String, JsonSpan> fields = Json.fields(bytes, e);
      if (fields == null) {
        malformed[0]++;
      } else {
        out.add(fields);
      }
    }
    return out;
  }

  private static JsonSpan need(Map<String, JsonSpan> r, String name) throws Malformed {
    JsonSpan span = r.get(name);
    if (span == null) {
      throw new Malformed();
    }
    return span;
  }

  private static String bounded(String s) throws Malformed {
    if (s == null || s.isEmpty() || s.length() > MAX_TEXT) {
      throw new Malformed();
    }
    return s;
  }

  private static String text(byte[] bytes, Map<String, JsonSpan> r, String name, Pattern shape) throws Malformed {
    String s = bounded(Json.string(bytes, need(r, name)));
    if (shape != null && !shape.matcher(s).matches()) {
      throw new Malformed();
    }
    return s;
  }

  private static String user(byte[] bytes, Map<String, JsonSpan> r) throws Malformed {
    String s = Json.string(bytes, need(r, "user"));
    if (!dev.mcpstdio.serve.http.Principals.isUserName(s)) {
      throw new Malformed();
    }
    return s;
  }

  /** A member that may be null (or absent); when present, a bounded string. */
  private static String optional(byte[] bytes, Map<String, JsonSpan> r, String name) throws Malformed {
    JsonSpan span = r.get(name);
    if (span == null || Json.kind(bytes, span) == JsonToken.VALUE_NULL) {
      return null;
    }
    return bounded(Json.string(bytes, span));
  }

  private static String optionalKey(byte[] bytes, Map<String, JsonSpan> r, String name) throws Malformed {
    String s = optional(bytes, r, name);
    if (s != null && !KEY.matcher(s).matches()) {
      throw new Malformed();
    }
    return s;
  }

  private static long number(byte[] bytes, Map<String, JsonSpan> r, String name) throws Malformed {
    JsonSpan span = need(r, name);
    if (Json.kind(bytes, span) != JsonToken.VALUE_NUMBER_INT) {
      throw new Malformed();
    }
    try {
      long n = Long.parseLong(span.text(bytes));
      if (n < 0) {
        throw new Malformed();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new Malformed();
    }
  }

  private static boolean bool(byte[] bytes, Map<String, JsonSpan> r, String name) throws Malformed {
    JsonToken kind = Json.kind(bytes, need(r, name));
    if (kind != JsonToken.VALUE_TRUE && kind != JsonToken.VALUE_FALSE) {
      throw new Malformed();
    }
    return kind == JsonToken.VALUE_TRUE;
  }
}
