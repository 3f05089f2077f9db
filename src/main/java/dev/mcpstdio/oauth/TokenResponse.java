package dev.mcpstdio.oauth;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a token endpoint answered (RFC 6749 §5), read the way real servers send it: JSON, or
 * form-encoded (GitHub; the first of repeated keys wins); an {@code error} in a 200 is an error;
 * {@code expires_in} as a number or a numeric string. Everything the server wrote that may reach a
 * log (error codes and descriptions) is cut down to RFC 6749's safe characters and 200 of them; an
 * access token of anything but visible ASCII is refused (it could not be sent, or would break the
 * header it goes into). The
 * access token itself never appears in a message.
 */
public sealed interface TokenResponse {

  /** A token was issued. {@code expiresIn} is null when the server gave no usable lifetime. */
  record Granted(String accessToken, String tokenType, Long expiresIn, String refreshToken, String scope, String idToken,
      List<String> warnings) implements TokenResponse {
    @Override
    public String toString() {
      return "Granted[tokenType=" + tokenType + ", expiresIn=" + expiresIn + ", scope=" + scope
          + ", refreshable=" + (refreshToken != null) + "]";
    }
  }

  /** The server refused (RFC 6749 §5.2); the strings are sanitised. */
  record Refused(int status, String error, String description) implements TokenResponse {
    /** A refusal worth retrying: the server is busy or failing, not saying the grant is bad. */
    public boolean retryable() {
      return status >= 500 || status == 429 || "temporarily_unavailable".equals(error) || "server_error".equals(error);
    }

    /** The message for people, e.g. {@code invalid_grant: refresh token expired (HTTP 400)}. */
    public String describe() {
      return (error == null ? "error" : error) + (description == null ? "" : ": " + description) + " (HTTP " + status + ")";
    }
  }

  /** The answer cannot be used (not JSON or a form, no access token...). */
  record Unusable(int status, String reason) implements TokenResponse {}

  /** The token endpoint could not be reached (or answered too slowly): worth another try. */
  record Unreachable(String reason) implements TokenResponse {}

  /** A field value cut to this many characters before it may be shown. */
  int MAX_SHOWN = 200;

  static TokenResponse parse(int status, String contentType, byte[] body) {
    String type = contentType == null ? "" : contentType.toLowerCase(Locale.ROOT).split(";", 2)[0].strip();
    Map<String, Object> fields;
    if (type.equals("application/json") || type.endsWith("+json")) {
      fields = Parsing.json(body);
      if (fields == null) {
        return new Unusable(status, "the token endpoint's JSON is not one object (HTTP " + status + ")");
      }
    } else if (type.equals("application/x-www-form-urlencoded")) {
      fields = Parsing.form(body);
    } else if (status / 100 != 2) {
      return new Refused(status, null, null);
    } else {
      return new Unusable(status, "the token endpoint answered " + (type.isEmpty() ? "no content type"
          : Parsing.safe(type)) + ", not JSON");
    }
    Object error = fields.get("error");
    if (error != null) {
      return new Refused(status, Parsing.safe(error instanceof String e ? e : "invalid error field"),
          Parsing.safe(string(fields.get("error_description"))));
    }
    if (status / 100 != 2) {
      return new Refused(status, null, null);
    }
    String access = string(fields.get("access_token"));
    if (access == null || access.isEmpty()) {
      return new Unusable(status, "the token endpoint's answer has no access_token");
    }
    if (!access.chars().allMatch(c -> c >= 0x21 && c <= 0x7e)) { // what an HTTP header (RFC 6750 b64token) can carry
      return new Unusable(status, "the access token holds characters a header cannot carry; refused before it becomes one");
    }
    List<String> warnings = new ArrayList<>();
    String tokenType = string(fields.get("token_type"));
    if (tokenType == null || tokenType.isBlank()) {
      tokenType = "Bearer";
    } else if (!tokenType.equalsIgnoreCase("bearer")) {
      warnings.add("the token type is " + Parsing.safe(tokenType) + ", not Bearer; sending it as a bearer token");
      tokenType = "Bearer";
    }
    Long expiresIn = Parsing.seconds(fields.get("expires_in"));
    if (fields.get("expires_in") != null && expiresIn == null) {
      warnings.add("the token's expires_in is not a positive number; treating it as not expiring until a 401");
    }
    return new Granted(access, tokenType, expiresIn, blankToNull(string(fields.get("refresh_token"))),
        blankToNull(string(fields.get("scope"))), blankToNull(string(fields.get("id_token"))), List.copyOf(warnings));
  }

  /** A string field; any other kind (a number, an array) is as good as absent. */
  private static String string(Object v) {
    return v instanceof String s ? s : null;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  /** Reading helpers, kept off the interface's API. */
  final class Parsing {
    private Parsing() {}

    /** The top-level fields of one JSON object; null when it is not one. */
    static Map<String, Object> json(byte[] body) {
      return OAuthJson.object(body);
    }

    /** A form-encoded answer's fields (the first of repeated keys wins). */
    static Map<String, Object> form(byte[] body) {
      return new LinkedHashMap<>(FormEncoding.decode(new String(body, StandardCharsets.UTF_8)));
    }

    /** A positive whole number of seconds from a number or a numeric string; null otherwise. */
    static Long seconds(Object v) {
      double d;
      if (v instanceof Number n) {
        d = n.doubleValue();
      } else if (v instanceof String s) {
        try {
          d = Double.parseDouble(s.strip());
        } catch (NumberFormatException e) {
          return null;
        }
      } else {
        return null;
      }
      return Double.isFinite(d) && d >= 1 && d < 1e12 ? (long) d : null;
    }

    /** RFC 6749's error characters only (printable ASCII but {@code "} and {@code \}), at most {@link #MAX_SHOWN}. */
    static String safe(String text) {
      if (text == null) {
        return null;
      }
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < text.length() && out.length() < MAX_SHOWN; i++) {
        char c = text.charAt(i);
        out.append(c >= 0x20 && c <= 0x7e && c != '"' && c != '\\' ? c : '?');
      }
      return out.toString();
    }
  }
}
