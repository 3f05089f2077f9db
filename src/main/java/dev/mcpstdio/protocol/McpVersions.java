package dev.mcpstdio.protocol;

import java.util.List;
import java.util.Set;

/**
 * MCP protocol revisions by name, and which of them each era of the gateway speaks.
 *
 * <p>Revision strings are ISO dates, so their natural (lexicographic) order is their age; code that
 * picks "the newest" compares them as strings (see {@link VersionChoice}).
 */
public final class McpVersions {

  /** The HTTP+SSE transport's revision (2024-11-05): a GET event stream and POSTs answered 202. */
  public static final String V2024_11_05 = "2024-11-05";

  /** The first Streamable HTTP revision (2025 era). */
  public static final String V2025_03_26 = "2025-03-26";

  /** 2025 era: adds the {@code MCP-Protocol-Version} header after initialization. */
  public static final String V2025_06_18 = "2025-06-18";

  /** The newest 2025-era revision. */
  public static final String V2025_11_25 = "2025-11-25";

  /**
   * The 2026 era's revision (stateless: no {@code initialize}, no sessions, per-request {@code _meta},
   * {@code server/discover}; spec.md section 5).
   */
  public static final String ERA_2026 = "2026-07-28";

  /**
   * The revisions of the 2025 era, HTTP+SSE's (2024-11-05) included, oldest first: the ones that
   * begin with {@code initialize} and may hold a session.
   */
  public static final List<String> ERA_2025 =
      List.of(V2024_11_05, V2025_03_26, V2025_06_18, V2025_11_25);

  /**
   * The revisions the gateway implements in the 2026 era: the only ones {@link VersionChoice} may
   * pick (mcp-stdio.md 2.11, "Version negotiation").
   */
  public static final Set<String> IMPLEMENTED_2026 = Set.of(ERA_2026);

  private McpVersions() {}
}
