package dev.mcpstdio.jsonrpc;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;

/** Random JSON text for the property tests of the scanners and span helpers. */
final class JsonValueArbitraries {

  private JsonValueArbitraries() {}

  /** JSON values of every kind, nested up to three deep, strings with any characters. */
  static Arbitrary<String> values() {
    return Arbitraries.recursive(
        () -> Arbitraries.oneOf(
            Arbitraries.of("1", "-0.5", "3e7", "0", "-12.25E+2", "true", "false", "null", "\"\"", "\"a b\"",
                "\"\\\"q\\\"\"", "\"\\u2028 é 😀 漢\"", "\"x\\/y\\\\z\""),
            Arbitraries.strings().ofMaxLength(40).map(JsonValueArbitraries::quote)),
        inner -> Arbitraries.oneOf(
            inner.list().ofMaxSize(4).map(l -> "[" + String.join(" , ", l) + "]"),
            Arbitraries.strings().alpha().ofMaxLength(6).list().ofMaxSize(4).flatMap(names -> inner.list()
                .ofSize(names.size())
                .map(values -> {
                  StringBuilder b = new StringBuilder("{");
                  for (int k = 0; k < names.size(); k++) {
                    b.append(k == 0 ? "" : ",").append(quote(names.get(k))).append(":").append(values.get(k));
                  }
                  return b.append("}").toString();
                }))),
        3);
  }

  /** {@code s} as a JSON string literal, written independently of the code under test. */
  static String quote(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') {
        b.append('\\').append(c);
      } else if (c < 0x20) {
        b.append(String.format("\\u%04x", (int) c));
      } else if (Character.isSurrogate(c)) {
        b.append(String.format("\\u%04X", (int) c)); // lone halves cannot be UTF-8
      } else {
        b.append(c);
      }
    }
    return b.append('"').toString();
  }
}
