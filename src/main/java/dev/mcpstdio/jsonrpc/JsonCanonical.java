package dev.mcpstdio.jsonrpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.List;

/**
 * Structural equality of two JSON values: member order, insignificant whitespace, string escapes
 * and number spelling ({@code 1}, {@code 1.0}, {@code 1e0}) do not matter.
 *
 * <p>Each value is rewritten into one canonical text (members sorted by name, strings re-quoted,
 * numbers in the canonical form {@link JsonRpcId} uses) without recursion, so nesting as deep as
 * {@link Json#MAX_NESTING} cannot exhaust a thread's stack.
 */
public final class JsonCanonical {

  private JsonCanonical() {}

  /** True when {@code a} and {@code b} hold the same JSON value; false also when either is not JSON. */
  public static boolean same(byte[] a, byte[] b) {
    String left = of(a);
    if (left == null) {
      return false;
    }
    return java.util.Arrays.equals(a, b) || left.equals(of(b));
  }

  /** The canonical text of the JSON value in {@code bytes}, or null when it is not well-formed. */
  static String of(byte[] bytes) {
    try (JsonParser p = Json.parser(bytes, 0, bytes.length)) {
      Deque<Container> open = new ArrayDeque<>();
      String done = null;
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        if (done != null) {
          return null; // a second value after the first: not one JSON document
        }
        String value = switch (t) {
          case START_OBJECT, START_ARRAY -> {
            open.push(new Container(t == JsonToken.START_OBJECT));
            yield null;
          }
          case FIELD_NAME -> {
            open.peek().pendingName = Json.quote(p.currentName());
            yield null;
          }
          case END_OBJECT, END_ARRAY -> open.pop().close();
          case VALUE_STRING -> Json.quote(p.getText());
          case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> JsonRpcId.ofNumber(p.getText()).value();
          case VALUE_TRUE -> "true";
          case VALUE_FALSE -> "false";
          case VALUE_NULL -> "null";
          default -> throw new IOException("unexpected " + t);
        };
        if (value != null) {
          if (open.isEmpty()) {
            done = value;
          } else {
            open.peek().add(value);
          }
        }
      }
      return done;
    } catch (IOException e) {
      return null;
    }
  }

  /** An object or array whose members are being collected. */
  private static final class Container {
    final boolean object;
    final List<String> members = new ArrayList<>();
    String pendingName;

    Container(boolean object) {
      this.object = object;
    }

    void add(String value) {
      members.add(object ? pendingName + ":" + value : value);
    }

    String close() {
      if (object) {
        Collections.sort(members);
        return "{" + String.join(",", members) + "}";
      }
      return "[" + String.join(",", members) + "]";
    }
  }
}
