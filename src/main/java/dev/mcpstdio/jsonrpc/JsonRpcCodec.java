package dev.mcpstdio.jsonrpc;

import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Invalid;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.wire.Bytes;
import dev.mcpstdio.wire.Utf8;
import java.util.ArrayList;
import java.util.List;

/**
 * Classifies one JSON value as a JSON-RPC message, keeping its bytes.
 *
 * <p>The whole value is scanned, so a message that classifies is known to be well-formed JSON;
 * trailing content after the value makes it malformed. Classification is deliberately tolerant of
 * what a relay need not judge (a missing or odd {@code "jsonrpc"} member is the peer's business)
 * and strict about what routing depends on: a request's id must be a string or a number.
 */
public final class JsonRpcCodec {

  private JsonRpcCodec() {}

  /** Classifies {@code bytes}, which the caller has checked to be valid UTF-8. */
  public static JsonRpcMessage parse(byte[] bytes) throws MalformedMessageException {
    JsonScanner s = new JsonScanner(bytes, 0, bytes.length);
    s.skipWhitespace();
    if (s.atEnd()) {
      throw new MalformedMessageException("empty message");
    }
    JsonRpcMessage message;
    if (s.peek() == '{') {
      message = object(s, bytes);
    } else if (s.peek() == '[') {
      message = batch(s, bytes);
    } else {
      s.skipValue();
      message = new Invalid(bytes, null, "a JSON-RPC message must be a JSON object");
    }
    s.skipWhitespace();
    if (!s.atEnd()) {
      throw new MalformedMessageException("unexpected content after the JSON value at byte " + s.position());
    }
    return message;
  }

  private static Batch batch(JsonScanner s, byte[] bytes) throws MalformedMessageException {
    List<JsonRpcMessage> members = new ArrayList<>();
    if (s.enterEmpty(']')) {
      return new Batch(bytes, List.of());
    }
    do {
      int start = s.position();
      boolean isObject = !s.atEnd() && s.peek() == '{';
      s.skipValue();
      byte[] own = new JsonSpan(start, s.position()).slice(bytes);
      members.add(isObject ? member(own) : new Invalid(own, null, "a batch member must be a JSON object"));
    } while (s.nextMember(']'));
    return new Batch(bytes, List.copyOf(members));
  }

  /** Classifies a batch member on its own bytes, so its spans are relative to itself. */
  private static JsonRpcMessage member(byte[] own) throws MalformedMessageException {
    return object(new JsonScanner(own, 0, own.length), own);
  }

  private static JsonRpcMessage object(JsonScanner s, byte[] bytes) throws MalformedMessageException {
    MessageLayout layout = new MessageLayout(8);
    boolean more = !s.enterEmpty('}');
    while (more) {
      int nameStart = s.position();
      int nameEnd = s.skipString();
      boolean escaped = s.lastStringEscaped();
      s.skipWhitespace();
      s.expect(':', "':'");
      s.skipWhitespace();
      int start = s.position();
      s.skipValue();
      layout.add(nameStart, nameEnd, escaped, start, s.position());
      more = s.nextMember('}');
    }
    return classify(bytes, layout);
  }

  /**
   * Classifies a message that is one JSON object, from where its members are: {@code bytes} must
   * be exactly that object (trimmed), and {@code layout} must come from a {@link StreamingScanner}
   * that read those bytes and found them well-formed JSON in valid UTF-8. Nothing is scanned again.
   */
  public static JsonRpcMessage parse(byte[] bytes, MessageLayout layout) {
    if (layout == null || layout.length() != bytes.length || bytes.length < 2 || bytes[0] != '{' || bytes[bytes.length - 1] != '}') {
      throw new IllegalArgumentException("the layout does not describe these bytes");
    }
    return classify(bytes, layout);
  }

  /**
   * Classifies a message as a peer sent it ({@code bytes} trimmed): from {@code layout} when a
   * {@link StreamingScanner} found one for exactly these bytes, else after checking that they are
   * UTF-8 and scanning them.
   */
  public static JsonRpcMessage parseReceived(byte[] bytes, MessageLayout layout) throws MalformedMessageException {
    if (layout != null && layout.length() == bytes.length) {
      return parse(bytes, layout); // checked while it arrived
    }
    if (!Utf8.isValid(bytes)) {
      throw new MalformedMessageException("not valid UTF-8");
    }
    return parse(bytes);
  }

  private static JsonRpcMessage classify(byte[] bytes, MessageLayout layout) {
    String method = null;
    boolean methodPresent = false;
    JsonRpcId id = null;
    JsonSpan idSpan = null;
    boolean idPresent = false;
    JsonSpan params = null;
    JsonSpan result = null;
    JsonSpan error = null;
    for (int m = 0; m < layout.members(); m++) {
      int nameStart = layout.nameStart(m);
      int nameEnd = layout.nameEnd(m);
      String name = layout.nameEscaped(m) ? JsonScanner.decode(bytes, nameStart, nameEnd, true) : null;
      JsonSpan value = new JsonSpan(layout.valueStart(m), layout.valueEnd(m));
      byte first = bytes[value.start()];
      if (is(bytes, nameStart, nameEnd, name, "id")) {
        idPresent = true;
        idSpan = value;
        id = id(bytes, value, first);
      } else if (is(bytes, nameStart, nameEnd, name, "method")) {
        methodPresent = true;
        method = first == '"' ? string(bytes, value) : null;
      } else if (is(bytes, nameStart, nameEnd, name, "params")) {
        params = value;
      } else if (is(bytes, nameStart, nameEnd, name, "result")) {
        result = value;
      } else if (is(bytes, nameStart, nameEnd, name, "error")) {
        error = value;
      }
    }
    boolean idIsNull = idPresent && idSpan.is(bytes, "null");
    // Some peers write the unused member as null ("error": null beside a result); read that as
    // absent. A lone "result": null stays a result: null is a valid result value.
    if (result != null && error != null) {
      if (error.is(bytes, "null")) {
        error = null;
      } else if (result.is(bytes, "null")) {
        result = null;
      }
    }
    if (methodPresent) {
      if (method == null) {
        return new Invalid(bytes, id, "\"method\" must be a string");
      }
      if (!idPresent) {
        return new Notification(bytes, method, params);
      }
      if (id == null) {
        return new Invalid(
            bytes, null, idIsNull ? "a request id must not be null" : "a request id must be a string or a number");
      }
      return new Request(bytes, id, idSpan, method, params);
    }
    if (result != null || error != null) {
      if (result != null && error != null) {
        return new Invalid(bytes, id, "a response must not carry both \"result\" and \"error\"");
      }
      if (id == null && !idIsNull) {
        return new Invalid(bytes, null, "a response needs an id");
      }
      return new Response(bytes, id, result, error);
    }
    return new Invalid(bytes, id, "not a request, notification or response");
  }

  /** True when the member name token is {@code wanted}; {@code decoded} is set when it had escapes. */
  private static boolean is(byte[] bytes, int start, int end, String decoded, String wanted) {
    return decoded != null ? decoded.equals(wanted) : JsonScanner.rawEquals(bytes, start, end, wanted);
  }

  /** The id in {@code span} when it is a string or a number; null otherwise. */
  private static JsonRpcId id(byte[] bytes, JsonSpan span, byte first) {
    if (first == '"') {
      return JsonRpcId.ofString(span.text(bytes), string(bytes, span));
    }
    if (first == '-' || (first >= '0' && first <= '9')) {
      return JsonRpcId.ofNumber(span.text(bytes));
    }
    return null;
  }

  /** The text of the already scanned string in {@code span}. */
  private static String string(byte[] bytes, JsonSpan span) {
    return JsonScanner.decode(bytes, span.start(), span.end(), Bytes.indexOf(bytes, (byte) '\\', span.start(), span.end()) >= 0);
  }
}
