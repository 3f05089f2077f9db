package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.wire.Bytes;
import java.nio.charset.StandardCharsets;

/**
 * Sends {@code tools/call} with {@code "arguments": null} as {@code "arguments": {}}: some hosts
 * write null for a tool without parameters and some servers reject it (typescript-sdk#2012). Only
 * that one value changes; every other byte of the message stays as the host wrote it.
 */
final class NormalizeArguments implements Interceptor {

  private static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.US_ASCII);

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    JsonRpcMessage rewritten = normalize(call.message());
    return chain.proceed(rewritten == call.message() ? call : call.withBody(rewritten));
  }

  /**
   * Params up to this size are judged whole: searched for the bytes {@code null} first (cheaper
   * than parsing), then parsed, a repeated {@code arguments} counting by its last value as JSON
   * readers take it. Larger params are read only up to their first {@code arguments} member, which
   * decides alone, so a megabyte of arguments is not searched twice over.
   */
  static final int WHOLE_MAX = 64 * 1024;

  static JsonRpcMessage normalize(JsonRpcMessage message) {
    if (!(message instanceof Request request) || !"tools/call".equals(request.method())) {
      return message;
    }
    byte[] bytes = request.bytes();
    JsonSpan params = request.params();
    JsonSpan arguments;
    if (params == null) {
      return message;
    } else if (params.length() <= WHOLE_MAX) {
      if (!Bytes.contains(bytes, "null", params.start(), params.end())) {
        return message; // the common small call: no null anywhere in params
      }
      arguments = Json.field(bytes, params, "arguments");
      if (arguments != null && !arguments.is(bytes, "null")) {
        return message;
      }
    } else {
      arguments = Json.nullMember(bytes, params, "arguments");
    }
    if (arguments == null) {
      return message;
    }
    try {
      return JsonRpcCodec.parse(arguments.replace(request.bytes(), EMPTY_OBJECT));
    } catch (MalformedMessageException e) {
      return message; // cannot happen: a value was swapped for another value
    }
  }
}
