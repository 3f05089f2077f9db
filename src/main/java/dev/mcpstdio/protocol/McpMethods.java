package dev.mcpstdio.protocol;

import java.util.Set;

/**
 * MCP method names the 2026 era's rules single out, and the sets those rules name (spec.md 5.5,
 * 5.8, 5.9, 5.10, 5.12). Method names are compared exactly (case-sensitive), as on the wire.
 */
public final class McpMethods {

  /** 2026 era: what the server is, answered without a handshake (5.5). */
  public static final String SERVER_DISCOVER = "server/discover";

  /** 2026 era: the long-lived stream of change notifications (5.10). */
  public static final String SUBSCRIPTIONS_LISTEN = "subscriptions/listen";

  /** The first notification on a listen stream: the filter the server honours (5.10). */
  public static final String SUBSCRIPTIONS_ACKNOWLEDGED = "notifications/subscriptions/acknowledged";

  public static final String TOOLS_CALL = "tools/call";
  public static final String TOOLS_LIST = "tools/list";
  public static final String PROMPTS_GET = "prompts/get";
  public static final String PROMPTS_LIST = "prompts/list";
  public static final String RESOURCES_READ = "resources/read";
  public static final String RESOURCES_LIST = "resources/list";
  public static final String RESOURCES_TEMPLATES_LIST = "resources/templates/list";

  public static final String TOOLS_LIST_CHANGED = "notifications/tools/list_changed";
  public static final String PROMPTS_LIST_CHANGED = "notifications/prompts/list_changed";
  public static final String RESOURCES_LIST_CHANGED = "notifications/resources/list_changed";
  public static final String RESOURCES_UPDATED = "notifications/resources/updated";
  public static final String PROGRESS = "notifications/progress";

  /**
   * The methods whose complete results carry {@code ttlMs} and {@code cacheScope} (5.12). Never
   * {@code tools/call}.
   */
  public static final Set<String> CACHEABLE =
      Set.of(SERVER_DISCOVER, TOOLS_LIST, PROMPTS_LIST, RESOURCES_LIST, RESOURCES_TEMPLATES_LIST, RESOURCES_READ);

  /** The only methods a server may answer with {@code resultType: "input_required"} (MRTR, 5.9). */
  public static final Set<String> MAY_REQUIRE_INPUT = Set.of(TOOLS_CALL, RESOURCES_READ, PROMPTS_GET);

  private McpMethods() {}

  /**
   * The member of {@code params} that the {@code Mcp-Name} header mirrors for {@code method}:
   * {@code name} for {@code tools/call} and {@code prompts/get}, {@code uri} for {@code
   * resources/read}; null for every other method, which carries no {@code Mcp-Name} (5.8).
   */
  public static String nameMember(String method) {
    if (method == null) {
      return null;
    }
    return switch (method) {
      case TOOLS_CALL, PROMPTS_GET -> "name";
      case RESOURCES_READ -> "uri";
      default -> null;
    };
  }
}
