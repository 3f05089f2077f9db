package dev.mcpstdio.protocol;

/**
 * HTTP header names of MCP's Streamable HTTP transport, spelled as the gateway writes them.
 *
 * <p>Header names are case-insensitive (RFC 9110), so readers must compare them ignoring case;
 * the spelling matters only for the bytes a request carries. The 2025 era's wire is pinned byte for
 * byte (ARCHITECTURE.md invariant 3): the relay sends the session id there as
 * {@code mcp-session-id}, so code that moves to {@link #SESSION_ID} must keep the bytes it sends.
 */
public final class McpHeaders {

  /**
   * The revision of the request: from 2025-06-18 after initialization; in the 2026 era on every
   * POST, equal to {@code _meta["io.modelcontextprotocol/protocolVersion"]} (spec.md 5.8).
   */
  public static final String PROTOCOL_VERSION = "MCP-Protocol-Version";

  /** The 2025 era's session id. Never sent in the 2026 era, and ignored by 2026 servers (5.7). */
  public static final String SESSION_ID = "Mcp-Session-Id";

  /** 2026 era: the request's {@code method}, verbatim, on every request (5.8). */
  public static final String METHOD = "Mcp-Method";

  /**
   * 2026 era: {@code params.name} of {@code tools/call} and {@code prompts/get}, {@code params.uri}
   * of {@code resources/read}, encoded by {@link McpName#encodeName} (5.8).
   */
  public static final String NAME = "Mcp-Name";

  /**
   * 2026 era: prefix of the header that mirrors a tool argument annotated with
   * {@code x-mcp-header}; the annotation's value follows it (5.8, {@link ParamHeaders}).
   */
  public static final String PARAM_PREFIX = "Mcp-Param-";

  /** The 2025 era's stream resumption. Not supported in the 2026 era (5.7): never sent there. */
  public static final String LAST_EVENT_ID = "Last-Event-ID";

  private McpHeaders() {}
}
