package dev.mcpstdio.jsonrpc;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Batch;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Invalid;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import java.io.IOException;
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

  public static JsonRpcMessage parse(byte[] bytes) throws MalformedMessageException {
    try (JsonParser p = Json.parser(bytes, 0, bytes.length)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new MalformedMessageException("empty message");
      }
      JsonRpcMessage message;
      if (first == JsonToken.START_OBJECT) {
        message = object(p, bytes);
      } else if (first == JsonToken.START_ARRAY) {
        message = batch(p, bytes);
      } else {
        Json.finishValue(p);
        message = new Invalid(bytes, null, "a JSON-RPC message must be a JSON object");
      }
      if (p.nextToken() != null) {
        throw new MalformedMessageException("unexpected content after the JSON value");
      }
      return message;
    } catch (IOException e) {
      throw new MalformedMessageException(describe(e));
    }
  }

  private static String describe(IOException e) {
    String message = e.getMessage();
    if (message == null) {
      return "malformed JSON";
    }
    // Jackson appends a source excerpt that may echo message content; keep only the reason.
    int cut = message.indexOf("\n at [Source");
    return cut >= 0 ? message.substring(0, cut) : message;
  }

  private static Batch batch(JsonParser p, byte[] bytes) throws IOException {
    List<JsonRpcMessage> members = new ArrayList<>();
    while (p.nextToken() != JsonToken.END_ARRAY) {
      boolean isObject = p.currentToken() == JsonToken.START_OBJECT;
      int start = Json.tokenStart(p, 0);
      Json.finishValue(p);
      byte[] own = new JsonSpan(start, Json.valueEnd(p, 0)).slice(bytes);
      members.add(isObject ? member(own) : new Invalid(own, null, "a batch member must be a JSON object"));
    }
    return new Batch(bytes, List.copyOf(members));
  }

  /** Classifies a batch member on its own bytes, so its spans are relative to itself. */
  private static JsonRpcMessage member(byte[] own) throws IOException {
    try (JsonParser p = Json.parser(own, 0, own.length)) {
      p.nextToken();
      return object(p, own);
    }
  }

  private static JsonRpcMessage object(JsonParser p, byte[] bytes) throws IOException {
    String method = null;
    boolean methodPresent = false;
    JsonRpcId id = null;
    JsonSpan idSpan = null;
    boolean idPresent = false;
    JsonSpan params = null;
    JsonSpan result = null;
    JsonSpan error = null;
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String name = p.currentName();
      JsonToken value = p.nextToken();
      int start = Json.tokenStart(p, 0);
      switch (name) {
        case "id" -> {
          idPresent = true;
          id = Json.readId(p, bytes, 0);
          Json.finishValue(p);
          idSpan = new JsonSpan(start, Json.valueEnd(p, 0));
        }
        case "method" -> {
          methodPresent = true;
          method = value == JsonToken.VALUE_STRING ? p.getText() : null;
          Json.finishValue(p);
        }
        case "params" -> {
          Json.finishValue(p);
          params = new JsonSpan(start, Json.valueEnd(p, 0));
        }
        case "result" -> {
          Json.finishValue(p);
          result = new JsonSpan(start, Json.valueEnd(p, 0));
        }
        case "error" -> {
          Json.finishValue(p);
          error = new JsonSpan(start, Json.valueEnd(p, 0));
        }
        default -> Json.finishValue(p);
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
}
