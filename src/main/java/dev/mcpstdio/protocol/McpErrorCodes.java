package dev.mcpstdio.protocol;

/**
 * JSON-RPC error codes MCP defines (spec.md 5.13). The JSON-RPC standard codes and the gateway's
 * own {@code -32000} stay in {@link dev.mcpstdio.jsonrpc.ErrorCodes}.
 *
 * <p>The range {@code -32099..-32020} is reserved by the specification: implementations must not
 * emit codes from it that it does not define, so any code in it is evidence of an MCP peer that
 * knows the 2026 era. Era detection decides on the whole range, never on one code
 * ({@link EraProbeVerdict}).
 */
public final class McpErrorCodes {

  /**
   * HTTP headers missing, malformed, or not matching the body ({@code MCP-Protocol-Version},
   * {@code Mcp-Method}, {@code Mcp-Name}, {@code Mcp-Param-*}); HTTP 400.
   */
  public static final int HEADER_MISMATCH = -32020;

  /**
   * The request needs a capability its {@code clientCapabilities} lack; {@code
   * data.requiredCapabilities} is a ClientCapabilities object; HTTP 400.
   */
  public static final int MISSING_REQUIRED_CLIENT_CAPABILITY = -32021;

  /** The server does not implement the request's revision; {@code data.supported[]}, {@code data.requested}; HTTP 400. */
  public static final int UNSUPPORTED_PROTOCOL_VERSION = -32022;

  /** Lowest code of the specification's reserved range. */
  public static final int SPEC_RESERVED_MIN = -32099;

  /** Highest code of the specification's reserved range. */
  public static final int SPEC_RESERVED_MAX = -32020;

  /**
   * Retired: "resource not found" before 2026. A 2026-era implementation must not emit it (it uses
   * -32602); clients should still accept it from older servers. It lies in the legacy
   * implementation-defined range {@code -32000..-32019}, outside the reserved one.
   */
  public static final int RESOURCE_NOT_FOUND_2025 = -32002;

  /** Retired: URL elicitation required (2025-11-25 only); MRTR replaces it in the 2026 era. */
  public static final int URL_ELICITATION_REQUIRED_2025 = -32042;

  private McpErrorCodes() {}

  /** True when {@code code} lies in the specification's reserved range {@code -32099..-32020}. */
  public static boolean isSpecReserved(int code) {
    return code >= SPEC_RESERVED_MIN && code <= SPEC_RESERVED_MAX;
  }
}
