package dev.mcpstdio.protocol;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import java.util.Map;

/**
 * What the answer to a {@code server/discover} probe says about the server's era (mcp-stdio.md
 * 2.11, "Era resolution", its table; spec.md 5.15).
 *
 * <table>
 *   <caption>Classification</caption>
 *   <tr><th>probe outcome</th><th>kind</th></tr>
 *   <tr><td>200 + {@code result} that is an object with a {@code supportedVersions} array</td><td>{@link Kind#ERA_2026_RESULT}</td></tr>
 *   <tr><td>200 or 400 + {@code error} whose code is in {@code -32099..-32020}</td><td>{@link Kind#ERA_2026_ERROR}</td></tr>
 *   <tr><td>200 + another error (such as -32601 or -32602), an empty body, {@code {}}, a null or scalar result, a result without {@code supportedVersions} (some 2025-era servers answer any unknown method with {@code {}}; stricter than the inventory, which takes any object)</td><td>{@link Kind#ERA_2025}</td></tr>
 *   <tr><td>400 + an empty body or another error</td><td>{@link Kind#ERA_2025}</td></tr>
 *   <tr><td>401, 403</td><td>{@link Kind#AUTH}</td></tr>
 *   <tr><td>404, 5xx, any other status</td><td>{@link Kind#ERA_2025}</td></tr>
 *   <tr><td>transport failure</td><td>{@link Kind#ERA_2025}</td></tr>
 * </table>
 *
 * <p>The 2026 era is chosen only on positive evidence: a discover result, or a code from the range
 * the specification reserves (its -32020/-32021/-32022 and any it may add). Never one generic code:
 * 2025-era servers answer an unknown method with -32601, -32602 or nothing (5.15). A 404 is 2025
 * whatever its body, as the inventory has it. {@link Kind#AUTH} is evidence of neither era: the
 * caller recovers (one refresh on 401, one step-up on 403) and probes again, and treats an
 * unrecovered 401/403 as {@link Kind#ERA_2025}.
 *
 * @param kind the verdict
 * @param reason what decided it, for the log line ("HTTP 400, error -32022"); names no value the
 *     server chose other than a status and a code
 */
public record EraProbeVerdict(Kind kind, String reason) {

  /** The verdicts. */
  public enum Kind {
    /** A 2026-era server that answered discover: seed the state from its result. */
    ERA_2026_RESULT,
    /** A 2026-era server that refused the probe with an MCP-reserved code (for example -32022). */
    ERA_2026_ERROR,
    /** Not a 2026-era server: the 2025 era (which may itself fall back to HTTP+SSE, 2024-11-05). */
    ERA_2025,
    /** 401 or 403: authorization first, then probe again. */
    AUTH
  }

  /** True for both 2026-era verdicts. */
  public boolean isEra2026() {
    return kind == Kind.ERA_2026_RESULT || kind == Kind.ERA_2026_ERROR;
  }

  /**
   * Classifies an HTTP answer to the probe.
   *
   * @param status the HTTP status code
   * @param firstMessage the first JSON-RPC response message of the body (a JSON body, or the first
   *     response an event stream carried), or null/empty when there was none; anything that is not
   *     exactly one well-formed JSON object counts as no message
   */
  public static EraProbeVerdict classify(int status, byte[] firstMessage) {
    if (status == 401 || status == 403) {
      return new EraProbeVerdict(Kind.AUTH, "HTTP " + status);
    }
    if (status != 200 && status != 400) {
      return new EraProbeVerdict(Kind.ERA_2025, "HTTP " + status);
    }
    Map<String, JsonSpan> message =
        firstMessage == null || !Json.isOneObject(firstMessage)
            ? null
            : Json.fields(firstMessage, new JsonSpan(0, firstMessage.length));
    if (message == null) {
      return new EraProbeVerdict(Kind.ERA_2025, "HTTP " + status + ", no JSON-RPC message");
    }
    JsonSpan error = message.get("error");
    JsonSpan result = message.get("result");
    if (error != null && result != null) {
      return new EraProbeVerdict(Kind.ERA_2025, "HTTP " + status + ", both a result and an error");
    }
    if (error != null) {
      Integer code = integer(firstMessage, Json.field(firstMessage, error, "code"));
      if (code == null) {
        return new EraProbeVerdict(Kind.ERA_2025, "HTTP " + status + ", an error without an integer code");
      }
      return McpErrorCodes.isSpecReserved(code)
          ? new EraProbeVerdict(Kind.ERA_2026_ERROR, "HTTP " + status + ", error " + code + " (MCP-reserved)")
          : new EraProbeVerdict(Kind.ERA_2025, "HTTP " + status + ", error " + code + " (not MCP-reserved)");
    }
    if (status == 200 && result != null && Json.kind(firstMessage, result) == JsonToken.START_OBJECT) {
      // Positive evidence only: a DiscoverResult names its supportedVersions (required). Some
      // 2025-era servers answer any method they do not know with an empty result.
      JsonSpan versions = Json.field(firstMessage, result, "supportedVersions");
      if (versions == null || Json.kind(firstMessage, versions) != JsonToken.START_ARRAY) {
        return new EraProbeVerdict(Kind.ERA_2025, "HTTP 200, a result without supportedVersions");
      }
      return new EraProbeVerdict(Kind.ERA_2026_RESULT, "HTTP 200, a server/discover result");
    }
    return new EraProbeVerdict(
        Kind.ERA_2025, "HTTP " + status + (result == null ? ", neither result nor error" : ", a result that is not an object"));
  }

  /**
   * The verdict when the probe got no HTTP answer at all (connection refused, reset, timeout).
   *
   * @param cause a description for the log line, free of secrets (the caller's to ensure)
   */
  public static EraProbeVerdict transportFailure(String cause) {
    return new EraProbeVerdict(Kind.ERA_2025, "no answer (" + cause + ")");
  }

  private static Integer integer(byte[] bytes, JsonSpan span) {
    if (span == null || Json.kind(bytes, span) != JsonToken.VALUE_NUMBER_INT) {
      return null;
    }
    try {
      return Integer.valueOf(span.text(bytes));
    } catch (NumberFormatException e) {
      return null; // beyond int: no MCP code
    }
  }
}
