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

  /** Params up to this size are first searched for the bytes {@code null} (cheaper than parsing). */
  static final int PRECHECK_MAX = 64 * 1024;

  static JsonRpcMessage normalize(JsonRpcMessage message) {
    if (!(message instanceof Request request) || !"tools/call".equals(request.method())) {
      return message;
    }
    JsonSpan params = request.params();
    if (params == null || params.length() <= PRECHECK_MAX
        && !Bytes.contains(request.bytes(), "null", params.start(), params.end())) {
      return message; // the common small call: no null anywhere in params, nothing to parse
    }
    // Only params up to "arguments" is read (a repeated "arguments" counts by its first value),
    // so a megabyte of arguments is not searched.
    JsonSpan arguments = Json.nullMember(request.bytes(), request.params(), "arguments");
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
