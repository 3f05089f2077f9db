package dev.mcpstdio.demo;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;

/** The demo's fixed surface: tool, resource and prompt listings, the resource and the prompt. */
final class DemoCatalog {

  static final String README_URI = "demo://readme";

  static final String README_TEXT =
      "This is mcp-stdio's demo server. Tools: echo, add, slow (reports progress), ask (elicitation), "
          + "summarize (sampling).";

  static final String TOOLS = "{\"tools\":["
      + tool("echo", "Echoes the text back.",
          "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}")
      + "," + tool("add", "Adds two numbers.",
          "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"number\"},\"b\":{\"type\":\"number\"}},"
              + "\"required\":[\"a\",\"b\"]}")
      + "," + tool("slow", "Works for a while, reporting progress; can be cancelled.",
          "{\"type\":\"object\",\"properties\":{\"steps\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":100},"
              + "\"delayMs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":10000}}}")
      + "," + tool("ask", "Asks the user a question (elicitation) and reports the answer.",
          "{\"type\":\"object\",\"properties\":{\"question\":{\"type\":\"string\"}}}")
      + "," + tool("summarize", "Asks the client's model to summarise the text (sampling).",
          "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}")
      + "]}";

  static final String RESOURCES = "{\"resources\":[{\"uri\":\"" + README_URI
      + "\",\"name\":\"readme\",\"title\":\"About the demo server\",\"mimeType\":\"text/plain\"}]}";

  static final String PROMPTS = "{\"prompts\":[{\"name\":\"greet\",\"description\":\"A greeting for someone.\","
      + "\"arguments\":[{\"name\":\"name\",\"description\":\"Who to greet\",\"required\":true}]}]}";

  private DemoCatalog() {}

  private static String tool(String name, String description, String schema) {
    return "{\"name\":\"" + name + "\",\"description\":" + Json.quote(description) + ",\"inputSchema\":" + schema + "}";
  }

  static String read(String uri) {
    if (!README_URI.equals(uri)) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "resource not found: " + uri);
    }
    return "{\"contents\":[{\"uri\":\"" + README_URI + "\",\"mimeType\":\"text/plain\",\"text\":"
        + Json.quote(README_TEXT) + "}]}";
  }

  static String prompt(byte[] bytes, JsonSpan params) {
    String name = Json.string(bytes, Json.field(bytes, params, "name"));
    if (!"greet".equals(name)) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "prompt not found: " + name);
    }
    String who = Json.string(bytes, Json.field(bytes, Json.field(bytes, params, "arguments"), "name"));
    if (who == null) {
      throw new DemoServer.DemoError(ErrorCodes.INVALID_PARAMS, "argument 'name' is required");
    }
    return "{\"description\":\"A greeting\",\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
        + Json.quote("Please greet " + who + " warmly.") + "}}]}";
  }
}
