package dev.mcpstdio.relay;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Merges the pages of a paginated list result into one result.
 *
 * <p>The first page's members are the base, in order, without {@code nextCursor}. Later pages
 * extend the list member and overwrite other members (last write wins, e.g. a late {@code _meta}).
 * Cache hints follow the most cautious page: {@code ttlMs} takes the minimum and {@code
 * cacheScope} the more private scope; when one page has a hint and another lacks it or has an
 * invalid one, the merged hint degrades to {@code ttlMs: 0} / {@code cacheScope: "private"}; when
 * no page has it, it stays absent. A partial merge carries {@code nextCursor} set to the first
 * cursor not fetched, so the host can resume.
 *
 * <p>Values are copied as raw JSON: list items and other members keep their exact bytes.
 */
final class ListMerge {

  /** One page: the response bytes and the span of its {@code result}. */
  record Page(byte[] bytes, JsonSpan result) {}

  private ListMerge() {}

  static byte[] merge(List<Page> pages, String listField, String resumeCursor) {
    Map<String, String> members = new LinkedHashMap<>();
    List<String> items = new ArrayList<>();
    List<String> ttls = new ArrayList<>();
    List<String> scopes = new ArrayList<>();
    for (Page page : pages) {
      Map<String, JsonSpan> fields = Json.fields(page.bytes(), page.result());
      if (fields == null) {
        continue;
      }
      ttls.add(null);
      scopes.add(null);
      for (Map.Entry<String, JsonSpan> field : fields.entrySet()) {
        String name = field.getKey();
        JsonSpan value = field.getValue();
        switch (name) {
          case "nextCursor" -> {}
          case "ttlMs" -> ttls.set(ttls.size() - 1, value.text(page.bytes()));
          case "cacheScope" -> scopes.set(scopes.size() - 1, value.text(page.bytes()));
          default -> {
            if (name.equals(listField)) {
              members.putIfAbsent(name, null);
              List<JsonSpan> elements = Json.elements(page.bytes(), value);
              if (elements != null) {
                for (JsonSpan e : elements) {
                  items.add(e.text(page.bytes()));
                }
              }
            } else {
              members.put(name, value.text(page.bytes()));
            }
          }
        }
      }
    }
    members.putIfAbsent(listField, null);
    String ttl = mergeTtl(ttls);
    String scope = mergeScope(scopes);
    StringBuilder out = new StringBuilder(256 + items.size() * 64);
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, String> member : members.entrySet()) {
      first = comma(out, first);
      out.append(Json.quote(member.getKey())).append(':');
      if (member.getKey().equals(listField)) {
        out.append('[').append(String.join(",", items)).append(']');
      } else {
        out.append(member.getValue());
      }
    }
    if (ttl != null) {
      first = comma(out, first);
      out.append("\"ttlMs\":").append(ttl);
    }
    if (scope != null) {
      first = comma(out, first);
      out.append("\"cacheScope\":").append(scope);
    }
    if (resumeCursor != null) {
      comma(out, first);
      out.append("\"nextCursor\":").append(Json.quote(resumeCursor));
    }
    out.append('}');
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static boolean comma(StringBuilder out, boolean first) {
    if (!first) {
      out.append(',');
    }
    return false;
  }

  /** Minimum of valid values; "0" when some page lacks a valid one; null when none has any. */
  static String mergeTtl(List<String> values) {
    if (values.stream().allMatch(v -> v == null)) {
      return null;
    }
    BigDecimal min = null;
    String minText = null;
    for (String v : values) {
      BigDecimal parsed = validTtl(v);
      if (parsed == null) {
        return "0";
      }
      if (min == null || parsed.compareTo(min) < 0) {
        min = parsed;
        minText = v;
      }
    }
    return minText;
  }

  private static BigDecimal validTtl(String json) {
    if (json == null) {
      return null;
    }
    byte[] bytes = json.getBytes(StandardCharsets.UTF_8);
    JsonToken kind = Json.kind(bytes, new JsonSpan(0, bytes.length));
    if (kind != JsonToken.VALUE_NUMBER_INT && kind != JsonToken.VALUE_NUMBER_FLOAT) {
      return null;
    }
    try {
      BigDecimal value = new BigDecimal(json.trim());
      return value.signum() < 0 ? null : value;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** "private" wins over "public"; missing or invalid next to a valid one means "private". */
  static String mergeScope(List<String> values) {
    if (values.stream().allMatch(v -> v == null)) {
      return null;
    }
    boolean anyPrivate = false;
    for (String v : values) {
      if ("\"private\"".equals(v)) {
        anyPrivate = true;
      } else if (!"\"public\"".equals(v)) {
        return "\"private\"";
      }
    }
    return anyPrivate ? "\"private\"" : "\"public\"";
  }
}
