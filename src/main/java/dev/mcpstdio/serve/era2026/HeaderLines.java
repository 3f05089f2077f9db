package dev.mcpstdio.serve.era2026;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A request's header field lines as received: every line of a header, in order, looked up by name
 * ignoring case (RFC 9110 5.1). Repeated lines stay separate (never joined with commas), so a
 * rule can tell a repeated {@code Mcp-Name} from one whose value holds a comma.
 *
 * <p>The HTTP layer adapts its own headers to this (Jetty: {@code getValuesList(name)}); tests
 * build it from a map.
 */
@FunctionalInterface
public interface HeaderLines {

  /** Every value of header {@code name}, in order; empty when absent. Never null. */
  List<String> values(String name);

  /** No headers at all. */
  HeaderLines NONE = name -> List.of();

  /** The lines of {@code headers} (name → values), names compared ignoring case. */
  static HeaderLines of(Map<String, List<String>> headers) {
    TreeMap<String, List<String>> folded = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    headers.forEach((name, values) -> folded.computeIfAbsent(name, n -> new ArrayList<>()).addAll(values));
    return name -> Collections.unmodifiableList(folded.getOrDefault(name, List.of()));
  }

  /** The one value of {@code name}, or null when it is absent or repeated. */
  default String single(String name) {
    List<String> values = values(name);
    return values.size() == 1 ? values.getFirst() : null;
  }

  /**
   * {@code value} without the optional whitespace (space, tab) around it: RFC 9110 5.5 has a field
   * parser exclude it before the value is evaluated. Null stays null.
   */
  static String trimOws(String value) {
    if (value == null) {
      return null;
    }
    int start = 0;
    int end = value.length();
    while (start < end && isOws(value.charAt(start))) {
      start++;
    }
    while (end > start && isOws(value.charAt(end - 1))) {
      end--;
    }
    return value.substring(start, end);
  }

  private static boolean isOws(char c) {
    return c == ' ' || c == '\t';
  }
}
