package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Which of the questions a 2025-era child may put to its client ({@code elicitation/create},
 * {@code sampling/createMessage}, {@code roots/list}) a 2026-era request's client can answer: the
 * members {@code elicitation}, {@code sampling} and {@code roots} of its {@code _meta}
 * clientCapabilities. Pure.
 *
 * <p>A 2025-era child learns its client's capabilities once, from {@code initialize}, and a
 * well-behaved one asks only what they allow. So the pool keys its children by principal <em>and</em>
 * by this set ({@link ChildPool}), and initializes each child declaring exactly it ({@link
 * #capabilitiesJson}): a request whose client declared only sampling reaches a child that was told
 * so, and is never asked an elicitation it would have to refuse. A child that asks anyway is
 * answered by the bridge's per-request check (-32021 naming the capability). At most eight sets
 * exist; the sub-objects of a capability ({@code elicitation.url}, {@code sampling.tools}) are not
 * part of the key, and a child is told the plain form ({@code {}}), which is what the bridge asks.
 */
public record ClientAsks(boolean elicitation, boolean sampling, boolean roots) {

  /** Every question: what a 2026-era child's key carries (its requests pass through, capabilities and all). */
  public static final ClientAsks ALL = new ClientAsks(true, true, true);

  /** The capability each question needs, by the child's request method. */
  static final Map<String, String> CAPABILITY_OF = Map.of("elicitation/create", "elicitation",
      "sampling/createMessage", "sampling", "roots/list", "roots");

  /** The set a clientCapabilities object declares; an absent or non-object span declares none. */
  public static ClientAsks of(byte[] bytes, JsonSpan capabilities) {
    Map<String, JsonSpan> members = capabilities == null ? null : Json.fields(bytes, capabilities);
    if (members == null) {
      return new ClientAsks(false, false, false);
    }
    return new ClientAsks(members.containsKey("elicitation"), members.containsKey("sampling"), members.containsKey("roots"));
  }

  /** True when the client can be asked nothing: its child is told so, and a call of it needs no bridge. */
  public boolean none() {
    return !elicitation && !sampling && !roots;
  }

  /** Whether this set holds {@code capability} ("elicitation", "sampling" or "roots"); false for any other name. */
  public boolean declares(String capability) {
    return switch (capability) {
      case "elicitation" -> elicitation;
      case "sampling" -> sampling;
      case "roots" -> roots;
      default -> false;
    };
  }

  /** The client capabilities a child is initialized with: exactly this set, as a JSON object. */
  public String capabilitiesJson() {
    StringBuilder json = new StringBuilder("{");
    for (String name : names()) {
      json.append(json.length() > 1 ? "," : "").append('"').append(name).append("\":{}");
    }
    return json.append('}').toString();
  }

  /** For log lines: "elicitation+sampling", or "none". */
  @Override
  public String toString() {
    List<String> names = names();
    return names.isEmpty() ? "none" : String.join("+", names);
  }

  private List<String> names() {
    List<String> names = new ArrayList<>(3);
    if (elicitation) {
      names.add("elicitation");
    }
    if (sampling) {
      names.add("sampling");
    }
    if (roots) {
      names.add("roots");
    }
    return names;
  }
}
