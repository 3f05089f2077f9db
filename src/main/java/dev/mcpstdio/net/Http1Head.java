package dev.mcpstdio.net;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A response head as read: status, headers, and whether the server speaks HTTP/1.1 (an HTTP/1.0
 * answer closes its connection). Also the {@link HttpResponse.ResponseInfo} a body handler sees.
 */
record Http1Head(int statusCode, HttpHeaders headers, boolean http11) implements HttpResponse.ResponseInfo {

  /**
   * A response head may be at most this long, status line and headers together (the JDK's client
   * allows 384 KiB; MCP servers send a few hundred bytes, cookies included).
   */
  static final int MAX_BYTES = 128 * 1024;

  @Override
  public HttpClient.Version version() {
    return HttpClient.Version.HTTP_1_1;
  }

  /**
   * Reads the next head from {@code connection}.
   *
   * @return the head, or null when the connection ended before its first byte
   */
  static Http1Head read(Http1Connection connection) throws IOException {
    int[] used = {0};
    String status = connection.readLine(used, MAX_BYTES);
    if (status == null) {
      return null;
    }
    // status-line = HTTP-version SP status-code SP [ reason-phrase ]
    if (status.length() < 12 || !status.startsWith("HTTP/1.") || status.charAt(8) != ' '
        || (status.length() > 12 && status.charAt(12) != ' ')) {
      throw new IOException("malformed response status line: " + printable(status));
    }
    int code = 0;
    for (int i = 9; i < 12; i++) {
      char c = status.charAt(i);
      if (c < '0' || c > '9') {
        throw new IOException("malformed response status line: " + printable(status));
      }
      code = code * 10 + (c - '0');
    }
    boolean http11 = status.charAt(7) != '0';
    Map<String, List<String>> fields = new LinkedHashMap<>();
    Map<String, String> spelling = new LinkedHashMap<>(); // lower case → the first spelling seen
    while (true) {
      String line = connection.readLine(used, MAX_BYTES);
      if (line == null) {
        throw new IOException("the connection closed in the middle of a response head");
      }
      if (line.isEmpty()) {
        break;
      }
      int colon = line.indexOf(':');
      if (colon <= 0 || line.charAt(0) == ' ' || line.charAt(0) == '\t' || !token(line, colon)) {
        throw new IOException("malformed response header line: " + printable(line));
      }
      String name = line.substring(0, colon);
      String value = line.substring(colon + 1).strip();
      String key = spelling.computeIfAbsent(name.toLowerCase(Locale.ROOT), k -> name);
      fields.computeIfAbsent(key, k -> new ArrayList<>(1)).add(value);
    }
    return new Http1Head(code, HttpHeaders.of(fields, (n, v) -> true), http11);
  }

  /** Whether the field name before {@code end} is an RFC 9110 token. */
  private static boolean token(String line, int end) {
    for (int i = 0; i < end; i++) {
      char c = line.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /** At most 80 characters of a line from the peer, control characters escaped, for a message. */
  static String printable(String line) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < line.length() && out.length() < 80; i++) {
      char c = line.charAt(i);
      out.append(c < 0x20 || c >= 0x7f ? String.format("\\x%02x", (int) c) : String.valueOf(c));
    }
    return out.toString();
  }

  /** Whether the connection may carry another exchange after this response's body. */
  boolean keepsConnection() {
    if (headers.firstValue("transfer-encoding").isPresent() && headers.firstValue("content-length").isPresent()) {
      return false; // RFC 9112 6.3: framing in doubt, the connection is not reused
    }
    for (String value : headers.allValues("connection")) {
      for (String option : value.split(",")) {
        String o = option.strip();
        if (o.equalsIgnoreCase("close")) {
          return false;
        }
        if (!http11 && o.equalsIgnoreCase("keep-alive")) {
          return true;
        }
      }
    }
    return http11;
  }

  /** The idle time the server announced ({@code Keep-Alive: timeout=N}), in seconds, or -1. */
  long keepAliveTimeoutSeconds() {
    for (String value : headers.allValues("keep-alive")) {
      for (String parameter : value.split(",")) {
        String p = parameter.strip();
        if (p.regionMatches(true, 0, "timeout=", 0, 8)) {
          try {
            return Long.parseLong(p.substring(8).strip());
          } catch (NumberFormatException e) {
            return -1;
          }
        }
      }
    }
    return -1;
  }
}
