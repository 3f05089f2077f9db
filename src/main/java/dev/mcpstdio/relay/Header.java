package dev.mcpstdio.relay;

import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Locale;

/** One HTTP header the user pinned on the command line, validated at parse time. */
public record Header(String name, String value) {

  public Header {
    if (!isToken(name)) {
      throw new IllegalArgumentException("invalid header name: " + name);
    }
    if (!isSafeValue(value)) {
      throw new IllegalArgumentException(
          "header " + name + " has a value with a control character or a character above U+00FF");
    }
  }

  public String lowerName() {
    return name.toLowerCase(Locale.ROOT);
  }

  /**
   * The first value of a response header, or null. Reads the client's case-insensitive header map
   * directly: {@link HttpHeaders#firstValue} builds a stream per call, and this runs on every
   * response.
   */
  static String first(HttpHeaders headers, String name) {
    List<String> values = headers.map().get(name);
    return values == null || values.isEmpty() ? null : values.get(0);
  }

  /** Parses {@code Name: value} as given to {@code -H}. */
  public static Header parse(String spec) {
    int colon = spec.indexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("expected 'Name: value', got '" + spec + "'");
    }
    return new Header(spec.substring(0, colon).trim(), spec.substring(colon + 1).trim());
  }

  /** RFC 9110 token: the characters allowed in a header field name. */
  public static boolean isToken(String s) {
    if (s == null || s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      boolean ok =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * A value HTTP can carry: tabs, spaces and visible characters up to U+00FF (RFC 9110
   * field-value, as the JDK client enforces). CR, LF, NUL and other controls could split or end
   * the header block; refusing them here gives a clear error at start-up instead of a failure on
   * every request.
   */
  public static boolean isSafeValue(String s) {
    if (s == null) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c > 0xFF || c == 0x7F || (c < 0x20 && c != '\t')) {
        return false;
      }
    }
    return true;
  }

  /** Visible ASCII only (0x21-0x7E), as MCP requires of session ids and protocol versions. */
  public static boolean isVisibleAscii(String s) {
    if (s == null || s.isEmpty()) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x21 || c > 0x7E) {
        return false;
      }
    }
    return true;
  }
}
