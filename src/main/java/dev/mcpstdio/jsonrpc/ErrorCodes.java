package dev.mcpstdio.jsonrpc;

/**
 * JSON-RPC error codes the gateway itself produces.
 *
 * <p>MCP reserves some codes in the implementation-defined range for its own meanings (for example
 * {@code -32002} resource not found before 2026, {@code -32020..-32022} and {@code -32042}); the
 * gateway never mints those. Its own failures use {@link #UPSTREAM_ERROR}.
 */
public final class ErrorCodes {

  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;

  /** The gateway could not obtain an answer from the upstream server. */
  public static final int UPSTREAM_ERROR = -32000;

  private ErrorCodes() {}
}
