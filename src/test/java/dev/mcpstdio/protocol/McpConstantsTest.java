package dev.mcpstdio.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The constants as the specification spells them; a typo here would go on the wire. */
class McpConstantsTest {

  @Test
  void versions() {
    assertThat(McpVersions.ERA_2025).containsExactly("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25");
    assertThat(McpVersions.ERA_2025).isSorted();
    assertThat(McpVersions.ERA_2026).isEqualTo("2026-07-28");
    assertThat(McpVersions.IMPLEMENTED_2026).containsExactly("2026-07-28");
    assertThat(McpVersions.ERA_2025).doesNotContain(McpVersions.ERA_2026);
  }

  @Test
  void headers() {
    assertThat(McpHeaders.PROTOCOL_VERSION).isEqualTo("MCP-Protocol-Version");
    assertThat(McpHeaders.SESSION_ID).isEqualTo("Mcp-Session-Id");
    assertThat(McpHeaders.METHOD).isEqualTo("Mcp-Method");
    assertThat(McpHeaders.NAME).isEqualTo("Mcp-Name");
    assertThat(McpHeaders.PARAM_PREFIX).isEqualTo("Mcp-Param-");
    assertThat(McpHeaders.LAST_EVENT_ID).isEqualTo("Last-Event-ID");
  }

  @Test
  void metaKeys() {
    assertThat(MetaKeys.PROTOCOL_VERSION).isEqualTo("io.modelcontextprotocol/protocolVersion");
    assertThat(MetaKeys.CLIENT_CAPABILITIES).isEqualTo("io.modelcontextprotocol/clientCapabilities");
    assertThat(MetaKeys.CLIENT_INFO).isEqualTo("io.modelcontextprotocol/clientInfo");
    assertThat(MetaKeys.LOG_LEVEL).isEqualTo("io.modelcontextprotocol/logLevel");
    assertThat(MetaKeys.SERVER_INFO).isEqualTo("io.modelcontextprotocol/serverInfo");
    assertThat(MetaKeys.SUBSCRIPTION_ID).isEqualTo("io.modelcontextprotocol/subscriptionId");
    assertThat(MetaKeys.PROGRESS_TOKEN).isEqualTo("progressToken");
  }

  @Test
  void errorCodes() {
    assertThat(McpErrorCodes.HEADER_MISMATCH).isEqualTo(-32020);
    assertThat(McpErrorCodes.MISSING_REQUIRED_CLIENT_CAPABILITY).isEqualTo(-32021);
    assertThat(McpErrorCodes.UNSUPPORTED_PROTOCOL_VERSION).isEqualTo(-32022);
    assertThat(McpErrorCodes.RESOURCE_NOT_FOUND_2025).isEqualTo(-32002);
    assertThat(McpErrorCodes.URL_ELICITATION_REQUIRED_2025).isEqualTo(-32042);
  }

  @Test
  void theReservedRangeIsExactlyMinus32099ToMinus32020() {
    assertThat(McpErrorCodes.isSpecReserved(-32020)).isTrue();
    assertThat(McpErrorCodes.isSpecReserved(-32021)).isTrue();
    assertThat(McpErrorCodes.isSpecReserved(-32022)).isTrue();
    assertThat(McpErrorCodes.isSpecReserved(-32050)).isTrue();
    assertThat(McpErrorCodes.isSpecReserved(-32099)).isTrue();
    assertThat(McpErrorCodes.isSpecReserved(-32019)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(-32100)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(-32002)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(-32000)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(-32601)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(-32602)).isFalse();
    assertThat(McpErrorCodes.isSpecReserved(0)).isFalse();
  }

  @Test
  void methodsAndResults() {
    assertThat(McpMethods.SERVER_DISCOVER).isEqualTo("server/discover");
    assertThat(McpMethods.SUBSCRIPTIONS_LISTEN).isEqualTo("subscriptions/listen");
    assertThat(McpMethods.SUBSCRIPTIONS_ACKNOWLEDGED).isEqualTo("notifications/subscriptions/acknowledged");
    assertThat(McpMethods.CACHEABLE).containsExactlyInAnyOrder("server/discover", "tools/list", "prompts/list", "resources/list",
        "resources/templates/list", "resources/read");
    assertThat(McpMethods.CACHEABLE).doesNotContain("tools/call");
    assertThat(McpMethods.MAY_REQUIRE_INPUT).containsExactlyInAnyOrder("tools/call", "resources/read", "prompts/get");
    assertThat(McpMethods.nameMember("tools/call")).isEqualTo("name");
    assertThat(McpMethods.nameMember("prompts/get")).isEqualTo("name");
    assertThat(McpMethods.nameMember("resources/read")).isEqualTo("uri");
    assertThat(McpMethods.nameMember("resources/subscribe")).isNull(); // removed in 2026: no Mcp-Name
    assertThat(McpMethods.nameMember("Tools/Call")).isNull();
    assertThat(McpMethods.nameMember(null)).isNull();
    assertThat(McpMethods.RESOURCES_UPDATED).isEqualTo("notifications/resources/updated");
    assertThat(McpMethods.TOOLS_LIST_CHANGED).isEqualTo("notifications/tools/list_changed");
    assertThat(McpResults.RESULT_TYPE).isEqualTo("resultType");
    assertThat(McpResults.TTL_MS).isEqualTo("ttlMs");
    assertThat(McpResults.CACHE_SCOPE).isEqualTo("cacheScope");
    assertThat(McpResults.INPUT_REQUIRED).isEqualTo("input_required");
  }
}
