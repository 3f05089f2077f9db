package dev.mcpstdio.jsonrpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;

/**
 * Reads what can be read from the first bytes of a message that was too large to keep whole.
 *
 * <p>Only the top level of the object is scanned, up to where the bytes stop, so an {@code id}
 * written before the bulk of the message is found exactly (it is never guessed from nested
 * content). That lets the error for an oversized request carry the request's id, and an
 * oversized answer fail the request it answers.
 */
public final class PartialMessage {

  private PartialMessage() {}

  /** The top-level id of a request whose first bytes are {@code head}, or null if unseen. */
  public static JsonRpcId requestId(byte[] head) {
    return scan(head, true).id();
  }

  /**
   * The top-level id of a response whose first bytes are {@code head}: null if unseen, or when the
   * bytes show a {@code method} (a request's id is the sender's own, not one it answers).
   */
  public static JsonRpcId responseId(byte[] head) {
    Seen seen = scan(head, false);
    return seen.method() ? null : seen.id();
  }

  private record Seen(JsonRpcId id, boolean method) {}

  /** Scans the top level; with {@code untilBoth}, stops once both an id and a method are seen. */
  private static Seen scan(byte[] head, boolean untilBoth) {
    JsonRpcId id = null;
    boolean method = false;
    try (JsonParser p = Json.parser(head, 0, head.length)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        return new Seen(null, false);
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String name = p.currentName();
        p.nextToken();
        if (name.equals("id")) {
          id = readId(p, head);
          if (id != null && !id.isString() && Json.valueEnd(p, 0) >= head.length) {
            return new Seen(null, method); // the bytes stop at the end of the number: its digits may go on
          }
        } else if (name.equals("method")) {
          method = true;
        }
        Json.finishValue(p);
        if (untilBoth && id != null && method) {
          return new Seen(id, true);
        }
      }
    } catch (IOException e) {
      // the bytes ran out: report what was seen
    }
    return new Seen(id, method);
  }

  /** The id at the parser's current token: a string or a number, else null. */
  private static JsonRpcId readId(JsonParser p, byte[] head) throws IOException {
    int start = Json.tokenStart(p, 0);
    JsonToken t = p.currentToken();
    if (t == JsonToken.VALUE_STRING) {
      String value = p.getText();
      return JsonRpcId.ofString(new JsonSpan(start, Json.valueEnd(p, 0)).text(head), value);
    }
    if (t == JsonToken.VALUE_NUMBER_INT || t == JsonToken.VALUE_NUMBER_FLOAT) {
      return JsonRpcId.ofNumber(p.getText());
    }
    return null;
  }
}
