package dev.mcpstdio.oauth;

import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;

/**
 * {@code application/x-www-form-urlencoded}, as OAuth uses it for request bodies, query strings
 * and token answers (GitHub's). Decoding keeps the first of repeated keys and skips a pair with a
 * broken escape; it never throws.
 */
public final class FormEncoding {

  private FormEncoding() {}

  /** {@code k=v&...}, both sides encoded; null values are left out. */
  public static String encode(Map<String, String> fields) {
    StringJoiner out = new StringJoiner("&");
    fields.forEach((k, v) -> {
      if (v != null) {
        out.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    });
    return out.toString();
  }

  public static Map<String, String> decode(String raw) {
    Map<String, String> out = new LinkedHashMap<>();
    pairs(raw, (key, value) -> out.putIfAbsent(key, value));
    return out;
  }

  /**
   * The first key that appears twice in {@code raw} (RFC 6749 section 3.1 refuses a repeated
   * parameter), with the same decoding as {@link #decode}; null when none does.
   */
  public static String firstRepeated(String raw) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    String[] repeated = new String[1];
    pairs(raw, (key, value) -> {
      if (!seen.add(key) && repeated[0] == null) {
        repeated[0] = key;
      }
    });
    return repeated[0];
  }

  /** Every decodable {@code key=value} pair of {@code raw}, in order; a pair with a broken escape is skipped. */
  private static void pairs(String raw, java.util.function.BiConsumer<String, String> each) {
    if (raw == null || raw.isEmpty()) {
      return;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String key;
      String value;
      try {
        key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
      } catch (IllegalArgumentException e) {
        continue; // a broken escape: that pair is skipped
      }
      each.accept(key, value);
    }
  }
}
