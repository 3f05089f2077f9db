package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Notification;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import java.util.List;

/**
 * Which era a POST body belongs to (mcp-stdio.md 4.4, "Era classification"; spec.md 5.15).
 *
 * <p>Invariant: the 2026 era only on positive evidence in the body: the method is {@code
 * server/discover}, or {@code params._meta} is an object holding the key {@code
 * io.modelcontextprotocol/protocolVersion} (its presence, whatever its value: the ladder judges the
 * value). Everything else (responses, batches, invalid shapes, a request or notification without
 * that key) is the 2025 era, so a 2025-era client is never pulled into the 2026 ladder. Headers
 * never decide: {@link Classification#headersDisagree()} only tells the caller that they point the
 * other way (worth a log line, never a different path).
 */
public final class EraClassifier {

  private EraClassifier() {}

  /** The two eras a POST can belong to. */
  public enum Era {
    ERA_2025,
    ERA_2026
  }

  /** What the body is, as far as the endpoint's answer goes. */
  public enum Shape {
    /** A request: exactly one answer. */
    REQUEST,
    /** A notification: answered 202 with no body, whatever its era (the v2 client's {@code notifications/cancelled} carries no {@code Mcp-Method}). */
    NOTIFICATION,
    /** A response, a batch or an invalid message: the 2025 path judges it as it does today. */
    OTHER
  }

  /**
   * What the headers claim, for the cross-check only.
   *
   * @param protocolVersion the single {@code MCP-Protocol-Version} value, OWS trimmed; null when
   *     absent or repeated
   * @param mcpMethod whether an {@code Mcp-Method} line is present (a 2026-era client's mark)
   */
  public record HeaderHint(String protocolVersion, boolean mcpMethod) {

    /** True when the headers look like a 2026-era client's: a revision newer than the 2025 era's, or {@code Mcp-Method}. */
    public boolean claims2026() {
      // revisions are ISO dates: every 2025-era one sorts at or before 2025-11-25
      return mcpMethod || protocolVersion != null && protocolVersion.compareTo(McpVersions.V2025_11_25) > 0;
    }
  }

  /**
   * The verdict on one body.
   *
   * @param era the path the body takes
   * @param shape what it is
   * @param hint what the headers claim
   */
  public record Classification(Era era, Shape shape, HeaderHint hint) {

    /** True when the headers point at the other era than the body (diagnostics only). */
    public boolean headersDisagree() {
      return (era == Era.ERA_2026) != hint.claims2026();
    }
  }

  /** Classifies {@code message} (as the codec read the POST body), with its headers for the cross-check. */
  public static Classification classify(JsonRpcMessage message, HeaderLines headers) {
    Shape shape = switch (message) {
      case Request r -> Shape.REQUEST;
      case Notification n -> Shape.NOTIFICATION;
      default -> Shape.OTHER;
    };
    return new Classification(era(message), shape, hint(headers));
  }

  /** The era of {@code message} by its body alone. */
  public static Era era(JsonRpcMessage message) {
    return switch (message) {
      case Request r -> McpMethods.SERVER_DISCOVER.equals(r.method()) || namesVersion(r.bytes(), r.params())
          ? Era.ERA_2026 : Era.ERA_2025;
      case Notification n -> namesVersion(n.bytes(), n.params()) ? Era.ERA_2026 : Era.ERA_2025;
      default -> Era.ERA_2025;
    };
  }

  /** The headers' claim. */
  public static HeaderHint hint(HeaderLines headers) {
    List<String> versions = headers.values(McpHeaders.PROTOCOL_VERSION);
    String version = versions.size() == 1 ? HeaderLines.trimOws(versions.getFirst()) : null;
    return new HeaderHint(version, !headers.values(McpHeaders.METHOD).isEmpty());
  }

  /** True when {@code params._meta} is an object with the protocol version key (any value). */
  private static boolean namesVersion(byte[] bytes, JsonSpan params) {
    JsonSpan meta = Json.field(bytes, params, "_meta");
    List<Json.Member> members = Json.members(bytes, meta);
    if (members == null) {
      return false;
    }
    for (Json.Member m : members) {
      if (m.name().equals(MetaKeys.PROTOCOL_VERSION)) {
        return true;
      }
    }
    return false;
  }
}
