package dev.mcpstdio.protocol;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * Which revision a 2026-era request states (mcp-stdio.md 2.11, "Version negotiation"; spec.md 5.6:
 * there is no handshake, each request states its version and the server accepts or rejects it).
 */
public final class VersionChoice {

  /**
   * Most entries {@link #versionsIn} reads from one list: a server's list of revisions is a handful;
   * the bound keeps a hostile one from costing more.
   */
  public static final int MAX_VERSIONS = 64;

  private VersionChoice() {}

  /**
   * The revision to send. Only {@code implemented} ones are eligible: {@code requested} when the
   * server advertises it too; else the newest that is both advertised and implemented; else
   * {@code requested} if implemented (the server may not have said); else the newest implemented,
   * which for {@link McpVersions#IMPLEMENTED_2026} is {@code 2026-07-28}. The result is always in
   * {@code implemented}.
   *
   * @param requested the revision the host asked for, or null
   * @param advertised the server's {@code supportedVersions} (discover) or {@code data.supported}
   *     (-32022), or null when it gave none
   * @param implemented the revisions the gateway speaks; not empty
   */
  public static String negotiate(String requested, Collection<String> advertised, Set<String> implemented) {
    if (implemented.isEmpty()) {
      throw new IllegalArgumentException("no implemented revision to choose from");
    }
    Collection<String> offered = advertised == null ? List.of() : advertised;
    if (requested != null && implemented.contains(requested) && offered.contains(requested)) {
      return requested;
    }
    String best = newest(offered.stream().filter(v -> v != null && implemented.contains(v)).toList());
    if (best != null) {
      return best;
    }
    if (requested != null && implemented.contains(requested)) {
      return requested;
    }
    return newest(implemented);
  }

  /**
   * The strings of the JSON array in {@code span} (a {@code supportedVersions} or {@code
   * data.supported}), in order, other elements skipped, at most {@link #MAX_VERSIONS}; empty when
   * the span is null or not an array.
   */
  public static List<String> versionsIn(byte[] bytes, JsonSpan span) {
    List<JsonSpan> elements = Json.elements(bytes, span);
    List<String> versions = new ArrayList<>();
    if (elements == null) {
      return versions;
    }
    for (JsonSpan element : elements) {
      if (versions.size() == MAX_VERSIONS) {
        break;
      }
      if (Json.kind(bytes, element) == JsonToken.VALUE_STRING) {
        versions.add(Json.string(bytes, element));
      }
    }
    return versions;
  }

  /** Revisions are ISO dates: the greatest string is the newest. Null for none. */
  private static String newest(Collection<String> versions) {
    String best = null;
    for (String v : versions) {
      if (best == null || v.compareTo(best) > 0) {
        best = v;
      }
    }
    return best;
  }
}
