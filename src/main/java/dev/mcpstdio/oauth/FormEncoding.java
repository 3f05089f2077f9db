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
    if (raw == null || raw.isEmpty()) {
      return out;
    }
    for (String pair : raw.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      try {
        String key = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        out.putIfAbsent(key, eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        // a broken escape: that pair is skipped
      }
    }
    return out;
  }
}
