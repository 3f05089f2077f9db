package dev.mcpstdio.relay;

import java.util.Locale;

/**
 * The two eras of MCP the relay can speak upstream. The host always speaks to the relay as it
 * likes (a 2025-era host is translated for a 2026-era server; a 2026-era host is relayed as it
 * is); this is what the relay speaks to the server.
 */
public enum ProtocolEra {
  /**
   * 2024-11-05 to 2025-11-25: {@code initialize}, sessions ({@code Mcp-Session-Id}), the GET
   * stream, server-to-client requests; over Streamable HTTP or HTTP+SSE (2024-11-05).
   */
  ERA_2025("legacy"),
  /**
   * 2026-07-28: stateless, {@code server/discover}, {@code _meta} and routing headers on every
   * request, {@code subscriptions/listen}, multi-round-trip requests; Streamable HTTP only.
   */
  ERA_2026("modern");

  private final String flagName;

  ProtocolEra(String flagName) {
    this.flagName = flagName;
  }

  /** The name {@code --protocol-era} and the era memory use. */
  public String flagName() {
    return flagName;
  }

  /** The era of a flag name, or null. */
  static ProtocolEra ofFlag(String name) {
    for (ProtocolEra era : values()) {
      if (era.flagName.equals(name)) {
        return era;
      }
    }
    return null;
  }

  /** What {@code --protocol-era} asks for. */
  public enum Choice {
    /** The 2025 era only: no probe, the wire exactly as before the 2026 era existed. */
    LEGACY,
    /** The 2026 era, whatever the probe says (its answer still seeds what the host is told). */
    MODERN,
    /**
     * Find out: the era remembered for this server, else a {@code server/discover} probe; a
     * remembered 2025 era is checked again when the server refuses the 2025 handshake.
     */
    AUTO;

    /** The choice for a flag or environment value ({@code legacy}, {@code modern}, {@code auto}), or null. */
    public static Choice parse(String value) {
      if (value == null) {
        return null;
      }
      return switch (value.trim().toLowerCase(Locale.ROOT)) {
        case "legacy" -> LEGACY;
        case "modern" -> MODERN;
        case "auto" -> AUTO;
        default -> null;
      };
    }
  }
}
