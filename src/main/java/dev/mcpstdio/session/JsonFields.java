package dev.mcpstdio.session;

import dev.mcpstdio.jsonrpc.Json;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Collection;
import java.util.Map;

/**
 * Writes the plain Java values a callback's fields are made of as compact JSON: strings, numbers,
 * booleans, null, and maps (string keys) and collections of those, nested. Anything else, and
 * numbers JSON cannot hold (NaN, infinities), is refused rather than written as something else.
 */
final class JsonFields {

  private JsonFields() {}

  static void write(Object value, StringBuilder out) {
    switch (value) {
      case null -> out.append("null");
      case CharSequence text -> out.append(Json.quote(text.toString()));
      case Boolean b -> out.append(b);
      case Integer n -> out.append(n);
      case Long n -> out.append(n);
      case Short n -> out.append(n);
      case Byte n -> out.append(n);
      case BigInteger n -> out.append(n);
      case BigDecimal n -> out.append(n);
      case Double d when Double.isFinite(d) -> out.append(d);
      case Float f when Float.isFinite(f) -> out.append(f);
      case Map<?, ?> map -> {
        out.append('{');
        boolean first = true;
        for (Map.Entry<?, ?> e : map.entrySet()) {
          if (!(e.getKey() instanceof String key)) {
            throw new IllegalArgumentException("a JSON object's keys are strings, not " + e.getKey());
          }
          out.append(first ? "" : ",").append(Json.quote(key)).append(':');
          write(e.getValue(), out);
          first = false;
        }
        out.append('}');
      }
      case Collection<?> items -> {
        out.append('[');
        boolean first = true;
        for (Object item : items) {
          out.append(first ? "" : ",");
          write(item, out);
          first = false;
        }
        out.append(']');
      }
      default -> throw new IllegalArgumentException("not a JSON value: " + value.getClass().getName()
          + (value instanceof Number ? " " + value : ""));
    }
  }
}
