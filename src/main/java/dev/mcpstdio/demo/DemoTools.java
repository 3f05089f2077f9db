package dev.mcpstdio.demo;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.math.BigDecimal;

/** The demo's tools. Each returns a {@code CallToolResult} as JSON. */
final class DemoTools {

  private final DemoServer server;

  DemoTools(DemoServer server) {
    this.server = server;
  }

  String call(JsonRpcMessage.Request request) throws InterruptedException {
    byte[] b = request.bytes();
    String name = Json.string(b, DemoServer.param(request, "name"));
    JsonSpan args = DemoServer.param(request, "arguments");
    if (name == null) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "tools/call needs a tool name");
    }
    return switch (name) {
      case "echo" -> text(requireString(b, args, "text"));
      case "add" -> add(b, args);
      case "slow" -> slow(request, b, args);
      case "ask" -> ask(b, args);
      case "summarize" -> summarize(b, args);
      default -> throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "unknown tool: " + name);
    };
  }

  private static String add(byte[] b, JsonSpan args) {
    BigDecimal sum = number(b, args, "a").add(number(b, args, "b"));
    return "{\"content\":[{\"type\":\"text\",\"text\":" + Json.quote(sum.toPlainString()) + "}],"
        + "\"structuredContent\":{\"sum\":" + sum.toPlainString() + "}}";
  }

  private String slow(JsonRpcMessage.Request request, byte[] b, JsonSpan args) throws InterruptedException {
    int steps = integer(b, args, "steps", 5, 1, 100);
    int delayMs = integer(b, args, "delayMs", 200, 0, 10_000);
    JsonSpan meta = DemoServer.param(request, "_meta");
    JsonSpan token = Json.field(b, meta, "progressToken");
    for (int step = 1; step <= steps; step++) {
      Thread.sleep(delayMs); // the tool's whole purpose is to take its time
      if (token != null) {
        server.notify("notifications/progress", "{\"progressToken\":" + token.text(b) + ",\"progress\":" + step
            + ",\"total\":" + steps + ",\"message\":\"step " + step + " of " + steps + "\"}");
      }
    }
    return text("done after " + steps + " steps");
  }

  private String ask(byte[] b, JsonSpan args) throws InterruptedException {
    String question = Json.string(b, Json.field(b, args, "question"));
    String params = "{\"message\":" + Json.quote(question == null ? "What is your name?" : question)
        + ",\"requestedSchema\":{\"type\":\"object\",\"properties\":{\"answer\":{\"type\":\"string\","
        + "\"title\":\"Answer\"}},\"required\":[\"answer\"]}}";
    JsonRpcMessage.Response response = server.ask("elicitation/create", params);
    if (response.isError()) {
      return error("the client refused the elicitation: " + response.error().text(response.bytes()));
    }
    byte[] r = response.bytes();
    String action = Json.string(r, Json.field(r, response.result(), "action"));
    if (!"accept".equals(action)) {
      return text("the user chose to " + action);
    }
    String answer = Json.string(r, Json.field(r, Json.field(r, response.result(), "content"), "answer"));
    return text("the user answered: " + answer);
  }

  private String summarize(byte[] b, JsonSpan args) throws InterruptedException {
    String input = requireString(b, args, "text");
    String params = "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
        + Json.quote("Summarise in one sentence: " + input) + "}}],\"maxTokens\":200}";
    JsonRpcMessage.Response response = server.ask("sampling/createMessage", params);
    if (response.isError()) {
      return error("the client refused the sampling request: " + response.error().text(response.bytes()));
    }
    byte[] r = response.bytes();
    String summary = Json.string(r, Json.field(r, Json.field(r, response.result(), "content"), "text"));
    return text("summary: " + summary);
  }

  private static String requireString(byte[] b, JsonSpan args, String name) {
    String value = Json.string(b, Json.field(b, args, name));
    if (value == null) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "argument '" + name + "' must be a string");
    }
    return value;
  }

  private static BigDecimal number(byte[] b, JsonSpan args, String name) {
    JsonSpan span = Json.field(b, args, name);
    JsonToken kind = Json.kind(b, span);
    if (kind != JsonToken.VALUE_NUMBER_INT && kind != JsonToken.VALUE_NUMBER_FLOAT) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "argument '" + name + "' must be a number");
    }
    BigDecimal value = new BigDecimal(span.text(b));
    if (Math.abs(value.scale()) > 1000) { // 1e999999999 would print as a gigabyte of zeros
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "argument '" + name + "' is out of range");
    }
    return value;
  }

  private static int integer(byte[] b, JsonSpan args, String name, int fallback, int min, int max) {
    JsonSpan span = Json.field(b, args, name);
    if (span == null) {
      return fallback;
    }
    if (Json.kind(b, span) != JsonToken.VALUE_NUMBER_INT) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "argument '" + name + "' must be an integer");
    }
    long value = new BigDecimal(span.text(b)).longValue();
    if (value < min || value > max) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS,
          "argument '" + name + "' must be between " + min + " and " + max);
    }
    return (int) value;
  }

  private static String text(String text) {
    return "{\"content\":[{\"type\":\"text\",\"text\":" + Json.quote(text) + "}]}";
  }

  private static String error(String text) {
    return "{\"content\":[{\"type\":\"text\",\"text\":" + Json.quote(text) + "}],\"isError\":true}";
  }
}
