package dev.mcpstdio.oauth;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One challenge of a {@code WWW-Authenticate} header (RFC 9110 §11.6.1): its scheme as sent, its
 * parameters keyed by lower-cased name (names are case-insensitive, values are not), and its token68
 * when it carries one instead of parameters. An MCP client reads the Bearer one for
 * {@code resource_metadata} (RFC 9728 §5.1) and, on a 403, {@code error="insufficient_scope"} with the
 * {@code scope} to step up to (RFC 6750 §3).
 *
 * <p>The header comes from a server we are only starting to trust, so parsing is:
 *
 * <ul>
 *   <li><b>total</b>: no input throws; a piece that does not fit the grammar is skipped and the rest
 *       is still read, because one malformed challenge must not hide the Bearer one beside it;
 *   <li><b>bounded</b>: a header value is read up to 16 KiB and a challenge keeps at most 64
 *       parameters, in one left-to-right pass without regular expressions, so a hostile header costs
 *       linear time and little memory;
 *   <li><b>quote-aware</b>: commas, equals signs and parameter names inside a quoted string are text,
 *       never structure, so a server echoing {@code error_description="… scope=\"admin\""} cannot plant
 *       a scope.
 * </ul>
 *
 * <p>A piece the grammar cannot tell apart is read the way the grammar reads it: after a comma,
 * {@code name =} is a parameter of the current challenge and any other token is a new scheme (a bare
 * {@code Negotiate,} included), and a lone {@code abc==} right after a scheme is a token68.
 *
 * @param scheme the authentication scheme, as sent
 * @param params the parameters by lower-cased name, first occurrence of a name kept; unmodifiable
 * @param token68 the token68 credential (as in {@code Negotiate YII=}), or null when absent; a
 *     challenge with one has no parameters
 */
public record AuthChallenge(String scheme, Map<String, String> params, String token68) {

  private static final int MAX_LENGTH = 16 * 1024;
  private static final int MAX_PARAMS = 64;

  public AuthChallenge {
    Objects.requireNonNull(scheme, "scheme");
    Map<String, String> lowerCased = new LinkedHashMap<>();
    params.forEach((name, value) ->
        lowerCased.putIfAbsent(name.toLowerCase(Locale.ROOT), Objects.requireNonNull(value, name)));
    params = Collections.unmodifiableMap(lowerCased);
  }

  public AuthChallenge(String scheme, Map<String, String> params) {
    this(scheme, params, null);
  }

  /** The parameter's value, its name matched case-insensitively; null when absent. */
  public String param(String name) {
    return name == null ? null : params.get(name.toLowerCase(Locale.ROOT));
  }

  /** Where the protected resource's metadata is (RFC 9728 §5.1). */
  public String resourceMetadata() {
    return param("resource_metadata");
  }

  public String scope() {
    return param("scope");
  }

  public String error() {
    return param("error");
  }

  public String errorDescription() {
    return param("error_description");
  }

  /** The challenges of one header value, in order; empty for null or unreadable input. */
  public static List<AuthChallenge> parse(String headerValue) {
    if (headerValue == null) {
      return List.of();
    }
    List<AuthChallenge> out = new ArrayList<>();
    new Parser(bounded(headerValue), out).run();
    return List.copyOf(out);
  }

  /** The challenges of several header lines, in order; null lines are skipped. */
  public static List<AuthChallenge> parseAll(List<String> headerValues) {
    if (headerValues == null) {
      return List.of();
    }
    List<AuthChallenge> out = new ArrayList<>();
    for (String value : headerValues) {
      out.addAll(parse(value));
    }
    return List.copyOf(out);
  }

  /** The first challenge whose scheme is Bearer, in any case. */
  public static Optional<AuthChallenge> bearer(List<String> headerValues) {
    return parseAll(headerValues).stream().filter(c -> c.scheme.equalsIgnoreCase("Bearer")).findFirst();
  }

  /**
   * Cuts a long value back to its last comma within the bound, so the piece the bound runs through is
   * dropped rather than read short: a cut unquoted value would pass for a whole one, and a cut quoted
   * one is left unterminated, which drops it too.
   */
  private static String bounded(String value) {
    if (value.length() <= MAX_LENGTH) {
      return value;
    }
    return value.substring(0, value.lastIndexOf(',', MAX_LENGTH - 1) + 1);
  }

  /**
   * One left-to-right pass over one header value. Only {@link #readToken68} backs up, and only over
   * what it just read, so no character is read more than twice.
   */
  private static final class Parser {
    private final String s;
    private final List<AuthChallenge> out;
    private int pos;

    // The challenge being read. A null scheme drops the parameters that follow, which must not
    // attach to the challenge before a malformed one.
    private String scheme;
    private Map<String, String> params;
    private String token68;

    Parser(String s, List<AuthChallenge> out) {
      this.s = s;
      this.out = out;
    }

    void run() {
      while (skipWhitespaceAndCommas()) {
        int start = pos;
        String name = readToken();
        if (name == null) {
          skipPiece();
          continue;
        }
        skipWhitespace();
        if (take('=')) {
          readParam(name);
          continue;
        }
        flush();
        if (atPieceEnd()) {
          begin(name);
          continue;
        }
        if (pos == start + name.length()) {
          skipPiece(); // a scheme glued to something else, like Bearer"x": no challenge at all
          continue;
        }
        begin(name);
        String credential = readToken68();
        if (credential != null) {
          token68 = credential;
          continue;
        }
        String first = readToken();
        skipWhitespace();
        if (first != null && take('=')) {
          readParam(first);
        } else {
          skipPiece();
        }
      }
      flush();
    }

    private void begin(String name) {
      scheme = name;
      params = new LinkedHashMap<>();
      token68 = null;
    }

    private void flush() {
      if (scheme != null) {
        out.add(new AuthChallenge(scheme, params, token68));
      }
      scheme = null;
      params = null;
      token68 = null;
    }

    /** Reads a value after {@code name =}; it counts only when a comma or the end follows it. */
    private void readParam(String name) {
      skipWhitespace();
      String value = pos < s.length() && s.charAt(pos) == '"' ? readQuoted() : readBare();
      skipWhitespace();
      if (value == null || !atPieceEnd()) {
        skipPiece();
        return;
      }
      if (scheme != null && token68 == null && params.size() < MAX_PARAMS) {
        params.putIfAbsent(name.toLowerCase(Locale.ROOT), value);
      }
    }

    /** A token68 only when nothing but a comma or the end follows it; otherwise reads nothing. */
    private String readToken68() {
      int start = pos;
      while (pos < s.length() && isToken68Char(s.charAt(pos))) {
        pos++;
      }
      if (pos > start) {
        while (pos < s.length() && s.charAt(pos) == '=') {
          pos++;
        }
        int end = pos;
        skipWhitespace();
        if (atPieceEnd()) {
          return s.substring(start, end);
        }
      }
      pos = start;
      return null;
    }

    /**
     * Reads a quoted string at {@code pos}, unescaping {@code \x} to {@code x}. Always moves past the
     * closing quote (or to the end), so a rejected string is skipped whole and its insides are never
     * read as structure. Null when unterminated or holding a control character.
     */
    private String readQuoted() {
      StringBuilder value = new StringBuilder();
      boolean clean = true;
      pos++;
      while (pos < s.length()) {
        char c = s.charAt(pos++);
        if (c == '"') {
          return clean ? value.toString() : null;
        }
        if (c == '\\') {
          if (pos == s.length()) {
            break;
          }
          c = s.charAt(pos++);
        }
        if ((c < ' ' && c != '\t') || c == 0x7f) {
          clean = false;
        }
        value.append(c);
      }
      return null;
    }

    /**
     * An unquoted value. The grammar allows only a token, but servers send unquoted scopes and URLs
     * ({@code scope=orders:read}); anything visible but a comma or quote is safe to take, since
     * neither can then hide in it.
     */
    private String readBare() {
      int start = pos;
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c <= ' ' || c == 0x7f || c == ',' || c == '"') {
          break;
        }
        pos++;
      }
      return pos > start ? s.substring(start, pos) : null;
    }

    private String readToken() {
      int start = pos;
      while (pos < s.length() && isTokenChar(s.charAt(pos))) {
        pos++;
      }
      return pos > start ? s.substring(start, pos) : null;
    }

    /** Skips to the next comma outside quotes: a comma inside a quoted string never ends a piece. */
    private void skipPiece() {
      while (pos < s.length() && s.charAt(pos) != ',') {
        if (s.charAt(pos) == '"') {
          readQuoted();
        } else {
          pos++;
        }
      }
    }

    /** Empty list elements are allowed (RFC 9110 §5.6.1); false at the end. */
    private boolean skipWhitespaceAndCommas() {
      while (pos < s.length() && (s.charAt(pos) == ',' || isWhitespace(s.charAt(pos)))) {
        pos++;
      }
      return pos < s.length();
    }

    private void skipWhitespace() {
      while (pos < s.length() && isWhitespace(s.charAt(pos))) {
        pos++;
      }
    }

    private boolean take(char c) {
      if (pos < s.length() && s.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    private boolean atPieceEnd() {
      return pos == s.length() || s.charAt(pos) == ',';
    }
  }

  private static boolean isWhitespace(char c) {
    return c == ' ' || c == '\t';
  }

  private static boolean isTokenChar(char c) {
    return isAlphaOrDigit(c) || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  private static boolean isToken68Char(char c) {
    return isAlphaOrDigit(c) || "-._~+/".indexOf(c) >= 0;
  }

  private static boolean isAlphaOrDigit(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  }
}
