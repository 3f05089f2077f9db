package dev.mcpstdio.testing;

import dev.mcpstdio.testing.Fake2026Reply.Step;
import dev.mcpstdio.testing.Fake2026Server.CacheHints;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.IntFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The fake server's default tools, resources and prompts, and its paged lists.
 *
 * <p>Tools, in order: {@code echo} (answers the arguments it got as text), {@code météo} (a name
 * that needs the base64 sentinel in {@code Mcp-Name}), {@code headers} (valid {@code x-mcp-header}
 * annotations: Region string, Count integer, Verbose boolean, Zone nested under {@code
 * properties.where.properties}), {@code progress} (three progress notifications on the request's
 * stream, plus a log message when the request names a logLevel, then the result), {@code hang}
 * (opens an event stream and holds it until the client closes it), then tools whose annotations
 * are invalid and must be dropped by a client: {@code bad_number} (on a number), {@code bad_items}
 * (under items), {@code bad_anyof} (under anyOf), {@code bad_ref} (behind $ref), {@code
 * bad_duplicate} (Region twice, case-insensitively), {@code bad_empty} (""), {@code bad_token}
 * (not an RFC 9110 token). Lists are paged ({@value #DEFAULT_PAGE_SIZE} per page by default);
 * cursors are opaque strings, and an unknown one is answered -32602.
 */
final class Fake2026Catalog {

  static final int DEFAULT_PAGE_SIZE = 4;

  /** Names of the default tools with invalid annotations. */
  static final List<String> INVALID_TOOLS =
      List.of("bad_number", "bad_items", "bad_anyof", "bad_ref", "bad_duplicate", "bad_empty", "bad_token");

  private record Tool(ObjectNode descriptor, Function<Fake2026Exchange, Fake2026Reply> handler) {}

  private final Fake2026Server server;
  private final Map<String, Tool> tools = new LinkedHashMap<>();
  private volatile int pageSize = DEFAULT_PAGE_SIZE;
  private volatile IntFunction<CacheHints> hints = page -> new CacheHints(30_000, "public");

  Fake2026Catalog(Fake2026Server server) {
    this.server = server;
    Function<Fake2026Exchange, Fake2026Reply> echo = this::echo;
    tool("echo", "{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}", echo);
    tool("météo", "{\"type\":\"object\",\"properties\":{\"city\":{\"type\":\"string\"}}}", echo);
    tool("headers", "{\"type\":\"object\",\"properties\":{"
        + "\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
        + "\"count\":{\"type\":\"integer\",\"x-mcp-header\":\"Count\"},"
        + "\"verbose\":{\"type\":\"boolean\",\"x-mcp-header\":\"Verbose\"},"
        + "\"where\":{\"type\":\"object\",\"properties\":{\"zone\":{\"type\":\"string\",\"x-mcp-header\":\"Zone\"}}},"
        + "\"note\":{\"type\":\"string\"}}}", echo);
    tool("progress", "{\"type\":\"object\"}", this::progress);
    tool("hang", "{\"type\":\"object\"}", call -> Fake2026Reply.sse(Step.hang()));
    tool("bad_number", "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"x-mcp-header\":\"N\"}}}", echo);
    tool("bad_items", "{\"type\":\"object\",\"properties\":{\"list\":{\"type\":\"array\",\"items\":"
        + "{\"type\":\"string\",\"x-mcp-header\":\"Item\"}}}}", echo);
    tool("bad_anyof", "{\"type\":\"object\",\"properties\":{\"v\":{\"anyOf\":["
        + "{\"type\":\"string\",\"x-mcp-header\":\"V\"},{\"type\":\"integer\"}]}}}", echo);
    tool("bad_ref", "{\"type\":\"object\",\"properties\":{\"a\":{\"$ref\":\"#/$defs/A\"}},"
        + "\"$defs\":{\"A\":{\"type\":\"string\",\"x-mcp-header\":\"A\"}}}", echo);
    tool("bad_duplicate", "{\"type\":\"object\",\"properties\":{"
        + "\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},\"b\":{\"type\":\"string\",\"x-mcp-header\":\"region\"}}}", echo);
    tool("bad_empty", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"\"}}}", echo);
    tool("bad_token", "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"x-mcp-header\":\"Bad Name\"}}}", echo);
  }

  private void tool(String name, String schema, Function<Fake2026Exchange, Fake2026Reply> handler) {
    ObjectNode t = Fake2026Json.object();
    t.put("name", name);
    t.put("description", "fake tool " + name);
    t.set("inputSchema", Fake2026Json.object(schema));
    tool(t, handler);
  }

  synchronized void tool(ObjectNode descriptor, Function<Fake2026Exchange, Fake2026Reply> handler) {
    tools.put(descriptor.path("name").asString(), new Tool(descriptor, handler));
  }

  synchronized void removeTool(String name) {
    tools.remove(name);
  }

  /** The inputSchema of a served tool, or null. */
  synchronized JsonNode inputSchema(String name) {
    Tool t = tools.get(name);
    return t == null ? null : t.descriptor().path("inputSchema");
  }

  void pageSize(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("page size " + size);
    }
    this.pageSize = size;
  }

  void hints(IntFunction<CacheHints> perPage) {
    this.hints = perPage;
  }

  void install(Map<String, Function<Fake2026Exchange, Fake2026Reply>> handlers) {
    handlers.put("tools/list", call -> {
      List<JsonNode> all;
      synchronized (this) {
        all = tools.values().stream().map(t -> (JsonNode) t.descriptor().deepCopy()).toList();
      }
      return page(call, "tools", all);
    });
    handlers.put("tools/call", this::call);
    handlers.put("resources/list", call -> page(call, "resources", List.of(
        Fake2026Json.parse("{\"uri\":\"db://orders/42\",\"name\":\"order-42\",\"mimeType\":\"text/plain\"}"),
        Fake2026Json.parse("{\"uri\":\"file:///tmp/météo.txt\",\"name\":\"météo\",\"mimeType\":\"text/plain\"}"))));
    handlers.put("resources/templates/list", call -> page(call, "resourceTemplates", List.of(
        Fake2026Json.parse("{\"uriTemplate\":\"db://orders/{id}\",\"name\":\"order\"}"))));
    handlers.put("resources/read", this::read);
    handlers.put("prompts/list", call -> page(call, "prompts", List.of(
        Fake2026Json.parse("{\"name\":\"greet\",\"arguments\":[{\"name\":\"who\",\"required\":false}]}"))));
    handlers.put("prompts/get", this::prompt);
  }

  private Fake2026Reply page(Fake2026Exchange call, String key, List<JsonNode> all) {
    JsonNode cursor = call.params().path("cursor");
    int index = 0;
    if (!cursor.isMissingNode() && !cursor.isNull()) {
      String c = cursor.asString("");
      if (!c.matches("page-[1-9][0-9]{0,5}") || Integer.parseInt(c.substring(5)) * pageSize >= all.size()) {
        return server.error(call, Fake2026Json.INVALID_PARAMS, "Invalid cursor: " + cursor, null);
      }
      index = Integer.parseInt(c.substring(5));
    }
    int size = pageSize;
    ObjectNode result = Fake2026Json.object();
    var items = result.putArray(key);
    all.subList(Math.min(index * size, all.size()), Math.min((index + 1) * size, all.size())).forEach(items::add);
    if ((index + 1) * size < all.size()) {
      result.put("nextCursor", "page-" + (index + 1));
    }
    cache(result, index);
    return server.complete(call, result.toString());
  }

  private void cache(ObjectNode result, int page) {
    CacheHints h = hints.apply(page);
    result.put("ttlMs", h.ttlMs());
    result.put("cacheScope", h.cacheScope());
  }

  private Fake2026Reply call(Fake2026Exchange call) {
    String name = call.params().path("name").asString("");
    Tool t;
    synchronized (this) {
      t = tools.get(name);
    }
    if (t == null) {
      return server.error(call, Fake2026Json.INVALID_PARAMS, "Unknown tool: " + name, null);
    }
    return t.handler().apply(call);
  }

  private Fake2026Reply echo(Fake2026Exchange call) {
    return server.complete(call, text(call.arguments().isMissingNode() ? "{}" : call.arguments().toString()));
  }

  private Fake2026Reply progress(Fake2026Exchange call) {
    List<Step> steps = new ArrayList<>();
    JsonNode token = call.meta("progressToken");
    if (!call.meta(Fake2026Json.LOG_LEVEL).isMissingNode()) {
      steps.add(Step.event(Fake2026Json.log("info", "working")));
    }
    if (!token.isMissingNode()) {
      for (int i = 1; i <= 3; i++) {
        steps.add(Step.event(Fake2026Json.progress(token.toString(), i, 3.0)));
      }
    }
    steps.add(Step.event(server.completeJson(call, text("progressed"))));
    return Fake2026Reply.sse(steps);
  }

  private Fake2026Reply read(Fake2026Exchange call) {
    String uri = call.params().path("uri").asString("");
    if (!uri.equals("db://orders/42") && !uri.equals("file:///tmp/météo.txt")) {
      ObjectNode data = Fake2026Json.object();
      data.put("uri", uri);
      return server.error(call, Fake2026Json.INVALID_PARAMS, "Resource not found", data.toString());
    }
    ObjectNode result = Fake2026Json.object();
    ObjectNode content = result.putArray("contents").addObject();
    content.put("uri", uri);
    content.put("mimeType", "text/plain");
    content.put("text", "contents of " + uri);
    cache(result, 0);
    return server.complete(call, result.toString());
  }

  private Fake2026Reply prompt(Fake2026Exchange call) {
    if (!call.params().path("name").asString("").equals("greet")) {
      return server.error(call, Fake2026Json.INVALID_PARAMS, "Unknown prompt: " + call.params().path("name"), null);
    }
    String who = call.params().path("arguments").path("who").asString("world");
    return server.complete(call, "{\"messages\":[{\"role\":\"user\",\"content\":{\"type\":\"text\",\"text\":"
        + Fake2026Json.quote("hello " + who) + "}}]}");
  }

  private static String text(String text) {
    return "{\"content\":[{\"type\":\"text\",\"text\":" + Fake2026Json.quote(text) + "}],\"isError\":false}";
  }
}
