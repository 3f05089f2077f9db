package dev.mcpstdio.stdio;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Removes secrets from text before it is logged.
 *
 * <p>Three kinds of secret are found by shape: URL userinfo ({@code https://user:pw@host} becomes
 * {@code https://host}), URL query strings (replaced by {@code ?<redacted>}, since they carry API
 * keys and OAuth codes) and bearer credentials ({@code Bearer abc} becomes {@code Bearer
 * <redacted>}). Values registered with {@link #addSecret} (tokens and header values from the
 * configuration) are replaced wherever they occur.
 *
 * <p>Every scan is a single left-to-right pass without backtracking, so hostile input cannot make
 * logging slow.
 */
public final class Redactor {

  public static final String REDACTED = "<redacted>";
  private static final int MIN_SECRET_LENGTH = 4;

  private final List<String> secrets = new CopyOnWriteArrayList<>();
  private final java.util.Map<String, Integer> holders = new java.util.HashMap<>(); // guarded by this

  /**
   * Registers a literal value that must never appear in logs. Very short values are ignored. Each
   * registration counts: a value registered twice (two sessions handed the same credential, or a
   * session handed the gateway's own token) stays until it has been removed twice.
   */
  public synchronized void addSecret(String secret) {
    if (secret != null && secret.length() >= MIN_SECRET_LENGTH && holders.merge(secret, 1, Integer::sum) == 1) {
      secrets.add(secret);
    }
  }

  /** Gives up one registration of a secret that can no longer appear (a session's, once it is gone). */
  public synchronized void removeSecret(String secret) {
    Integer left = secret == null ? null : holders.computeIfPresent(secret, (k, n) -> n == 1 ? null : n - 1);
    if (left == null) {
      secrets.remove(secret);
    }
  }

  /**
   * As {@link #scrub}, but URL query strings are kept: for a line whose URL the user must open,
   * after its caller removed what in it is secret (an OAuth {@code state}).
   */
  public String scrubKeepingUrls(String text) {
    if (text == null) {
      return "null";
    }
    String out = text;
    for (String secret : secrets) {
      if (out.contains(secret)) {
        out = out.replace(secret, REDACTED);
      }
    }
    return scrubBearer(out);
  }

  public String scrub(String text) {
    return text == null ? "null" : scrubUrls(scrubKeepingUrls(text));
  }

  /** Drops userinfo and query from every {@code scheme://...} URL in the text. */
  static String scrubUrls(String text) {
    int schemeSep = text.indexOf("://");
    if (schemeSep < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int copied = 0;
    while (schemeSep >= 0) {
      int authorityStart = schemeSep + 3;
      int authorityEnd = authorityStart;
      int lastAt = -1;
      while (authorityEnd < text.length() && !endsAuthority(text.charAt(authorityEnd))) {
        if (text.charAt(authorityEnd) == '@') {
          lastAt = authorityEnd;
        }
        authorityEnd++;
      }
      out.append(text, copied, authorityStart);
      int hostStart = lastAt >= 0 ? lastAt + 1 : authorityStart;
      int pathEnd = authorityEnd;
      while (pathEnd < text.length() && !endsUrl(text.charAt(pathEnd)) && text.charAt(pathEnd) != '?') {
        pathEnd++;
      }
      out.append(text, hostStart, pathEnd);
      int next = pathEnd;
      if (next < text.length() && text.charAt(next) == '?') {
        out.append('?').append(REDACTED);
        next++;
        while (next < text.length() && !endsUrl(text.charAt(next)) && text.charAt(next) != '#') {
          next++;
        }
      }
      copied = next;
      schemeSep = text.indexOf("://", next);
    }
    out.append(text, copied, text.length());
    return out.toString();
  }

  private static boolean endsAuthority(char c) {
    return c == '/' || c == '?' || c == '#' || endsUrl(c);
  }

  private static boolean endsUrl(char c) {
    return Character.isWhitespace(c) || c == '"' || c == '\'' || c == '<' || c == '>' || c == '`';
  }

  /** Replaces the credential after every case-insensitive {@code Bearer } with a marker. */
  static String scrubBearer(String text) {
    int from = indexOfBearer(text, 0);
    if (from < 0) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    int copied = 0;
    while (from >= 0) {
      int tokenStart = from + "bearer".length();
      while (tokenStart < text.length() && (text.charAt(tokenStart) == ' ' || text.charAt(tokenStart) == '\t')) {
        tokenStart++;
      }
      int tokenEnd = tokenStart;
      while (tokenEnd < text.length() && isTokenChar(text.charAt(tokenEnd))) {
        tokenEnd++;
      }
      out.append(text, copied, tokenStart);
      if (tokenEnd > tokenStart) {
        out.append(REDACTED);
      }
      copied = tokenEnd;
      from = indexOfBearer(text, Math.max(tokenEnd, from + 1));
    }
    out.append(text, copied, text.length());
    return out.toString();
  }

  /** RFC 6750 b64token characters, plus the quote-free rest that tokens use in practice. */
  private static boolean isTokenChar(char c) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~' || c == '+' || c == '/' || c == '='
        || c == ':' || c == '%';
  }

  /** The next case-insensitive "bearer" followed by a space or a tab. */
  private static int indexOfBearer(String text, int from) {
    int at = indexOfIgnoreCase(text, "bearer", from);
    while (at >= 0) {
      int next = at + "bearer".length();
      if (next < text.length() && (text.charAt(next) == ' ' || text.charAt(next) == '\t')) {
        return at;
      }
      at = indexOfIgnoreCase(text, "bearer", at + 1);
    }
    return -1;
  }

  private static int indexOfIgnoreCase(String text, String needle, int from) {
    int last = text.length() - needle.length();
    for (int i = from; i <= last; i++) {
      if (text.regionMatches(true, i, needle, 0, needle.length())) {
        return i;
      }
    }
    return -1;
  }
}
