package dev.mcpstdio.protocol;

/**
 * Reserved {@code _meta} keys of MCP (spec.md 5.3, {@code basic/index#_meta}).
 *
 * <p>In the 2026 era every client request carries {@link #PROTOCOL_VERSION} and
 * {@link #CLIENT_CAPABILITIES} in {@code params._meta} (a request without them is malformed:
 * -32602, HTTP 400); the others are optional.
 */
public final class MetaKeys {

  /** Client request, required in the 2026 era: the request's revision (a string). */
  public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";

  /** Client request, required in the 2026 era: ClientCapabilities, {@code {}} meaning none. */
  public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";

  /** Client request, optional: Implementation {@code {name, version}}; servers must not require it. */
  public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";

  /** Client request, optional (deprecated with logging): the LoggingLevel the client wants. */
  public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";

  /** Every result, optional (servers SHOULD send it): the server's Implementation. */
  public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";

  /**
   * Notifications on a {@code subscriptions/listen} stream (required there) and the listen result:
   * the listen request's JSON-RPC id, verbatim.
   */
  public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

  /** Client request, optional: the token progress notifications name (a string or an integer). */
  public static final String PROGRESS_TOKEN = "progressToken";

  private MetaKeys() {}
}
