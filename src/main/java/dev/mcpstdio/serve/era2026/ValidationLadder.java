package dev.mcpstdio.serve.era2026;

import com.fasterxml.jackson.core.JsonToken;
import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcErrors;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpErrorCodes;
import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpName;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.protocol.ParamHeaders.Annotation;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The 2026 era's validation ladder for one request POST (mcp-stdio.md 4.6; spec.md 5.3, 5.6, 5.8):
 * the first failing rung decides, every rejection is HTTP 400.
 *
 * <ol start="0">
 *   <li>{@code MCP-Protocol-Version}, {@code Mcp-Method} or {@code Mcp-Name} repeated → -32020;
 *   <li>{@code params._meta} missing or not an object, or without {@code protocolVersion} or
 *       {@code clientCapabilities}, or with {@code clientCapabilities} not an object → -32602
 *       ({@code clientInfo} is optional);
 *   <li>(2a) {@code MCP-Protocol-Version} absent or not the body's version → -32020; (2b) {@code
 *       Mcp-Method} absent or not the body's method (raw, case-sensitive) → -32020; (2c) for {@code
 *       tools/call}, {@code prompts/get} ({@code params.name}) and {@code resources/read} ({@code
 *       params.uri}) with that member present: {@code Mcp-Name} absent, malformed (the strict
 *       {@link McpName#decode}) or, decoded, not the member's string → -32020; (2d) for {@code
 *       tools/call} of a tool whose {@code x-mcp-header} annotations are known: each {@code
 *       Mcp-Param-*} header against its argument (below) → -32020;
 *   <li>the body's version not a string → -32602;
 *   <li>the version not one the gateway implements → -32022 with {@code data: {supported,
 *       requested}}.
 * </ol>
 *
 * <p>Rung 2a compares the header with the version's string, or, for a version that is not a
 * string, with its JSON text, so a null or numeric version fails 2a unless the header spells it
 * exactly, and then rung 3 refuses it: it never slips through.
 *
 * <p>Rung 2d (spec.md 5.8, "Server validation"; conformance {@code
 * http-custom-header-server-validation}): an argument with a non-null value needs its header, once;
 * the decoded header must equal it (a string exactly, a boolean as {@code true}/{@code false}, a
 * number numerically, so {@code 42} matches {@code 42.0}); a value no header can carry (an object,
 * an array) fails; a header for an argument that is absent or null fails too (the header claims a
 * value the body lacks). Without the tool's annotations (the tool list not fetched yet, or no such
 * tool) rung 2d is skipped: the child then judges the call.
 *
 * <p>Header values are compared with their optional whitespace trimmed (RFC 9110 5.5); values
 * are case-sensitive, names are not. Messages name the header or member, never a value from the
 * request. Notifications are exempt: the ladder takes requests only.
 */
public final class ValidationLadder {

  /** Longest number text rung 2d compares; longer is a mismatch (keeps the arithmetic on hostile numbers small). */
  static final int MAX_NUMBER_TEXT = 100;

  /** A JSON number with at most a three-digit exponent (so comparing two costs little). */
  private static final Pattern NUMBER = Pattern.compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]{1,3})?");

  private ValidationLadder() {}

  /** The ladder's outcome. */
  public sealed interface Verdict permits Pass, Rejection {}

  /**
   * Every rung passed.
   *
   * @param version the request's revision (one of {@link McpVersions#IMPLEMENTED_2026})
   * @param meta the span of {@code params._meta} (an object)
   * @param clientCapabilities the span of its {@code clientCapabilities} (an object)
   */
  public record Pass(String version, JsonSpan meta, JsonSpan clientCapabilities) implements Verdict {}

  /**
   * A rung failed: the POST is answered {@code httpStatus} with a JSON-RPC error.
   *
   * @param dataJson the error's {@code data} as JSON, or null for none
   */
  public record Rejection(int httpStatus, int code, String message, String dataJson) implements Verdict {

    /** The error response under the request's own {@code id} (the caller echoes it). */
    public byte[] body(JsonRpcId id) {
      return JsonRpcErrors.error(id, code, message, dataJson);
    }
  }

  /** The {@code x-mcp-header} annotations of a tool by its name; null when not known. */
  @FunctionalInterface
  public interface ToolAnnotations {

    List<Annotation> of(String toolName);

    /** Nothing known: rung 2d is skipped. */
    ToolAnnotations UNKNOWN = name -> null;
  }

  /** The ladder without rung 2d. */
  public static Verdict check(Request request, HeaderLines headers) {
    return check(request, headers, ToolAnnotations.UNKNOWN);
  }

  /** Runs the ladder on {@code request} as it came with {@code headers}. */
  public static Verdict check(Request request, HeaderLines headers, ToolAnnotations tools) {
    for (String name : List.of(McpHeaders.PROTOCOL_VERSION, McpHeaders.METHOD, McpHeaders.NAME)) {
      if (headers.values(name).size() > 1) {
        return mismatch(name + " header is repeated");
      }
    }
    byte[] bytes = request.bytes();
    Map<String, JsonSpan> params = Json.fields(bytes, request.params());
    Map<String, JsonSpan> meta = params == null ? null : Json.fields(bytes, params.get("_meta"));
    if (meta == null) {
      return invalidParams("params._meta is missing or not an object");
    }
    JsonSpan version = meta.get(MetaKeys.PROTOCOL_VERSION);
    if (version == null) {
      return invalidParams("params._meta lacks " + MetaKeys.PROTOCOL_VERSION);
    }
    JsonSpan capabilities = meta.get(MetaKeys.CLIENT_CAPABILITIES);
    if (capabilities == null) {
      return invalidParams("params._meta lacks " + MetaKeys.CLIENT_CAPABILITIES);
    }
    if (Json.kind(bytes, capabilities) != JsonToken.START_OBJECT) {
      return invalidParams("params._meta " + MetaKeys.CLIENT_CAPABILITIES + " is not an object");
    }
    String versionString = Json.string(bytes, version);
    String header = HeaderLines.trimOws(headers.single(McpHeaders.PROTOCOL_VERSION));
    if (header == null) {
      return mismatch(McpHeaders.PROTOCOL_VERSION + " header is missing");
    }
    if (!header.equals(versionString != null ? versionString : version.text(bytes))) {
      return mismatch(McpHeaders.PROTOCOL_VERSION + " header does not match params._meta " + MetaKeys.PROTOCOL_VERSION);
    }
    String method = HeaderLines.trimOws(headers.single(McpHeaders.METHOD));
    if (method == null) {
      return mismatch(McpHeaders.METHOD + " header is missing");
    }
    if (!method.equals(request.method())) {
      return mismatch(McpHeaders.METHOD + " header does not match the request's method");
    }
    Rejection name = nameRung(request.method(), bytes, params, headers);
    if (name != null) {
      return name;
    }
    if (McpMethods.TOOLS_CALL.equals(request.method())) {
      List<Annotation> annotations = tools.of(Json.string(bytes, params.get("name")));
      if (annotations != null) {
        Rejection param = paramRung(bytes, params.get("arguments"), annotations, headers);
        if (param != null) {
          return param;
        }
      }
    }
    if (versionString == null) {
      return invalidParams("params._meta " + MetaKeys.PROTOCOL_VERSION + " is not a string");
    }
    if (!McpVersions.IMPLEMENTED_2026.contains(versionString)) {
      return unsupported(versionString);
    }
    return new Pass(versionString, params.get("_meta"), capabilities);
  }

  /**
   * The -32022 rejection for {@code requested}: {@code data.supported} lists the implemented
   * revisions (newest first), {@code data.requested} is the request's version verbatim.
   */
  public static Rejection unsupported(String requested) {
    StringBuilder data = new StringBuilder("{\"supported\":[");
    McpVersions.IMPLEMENTED_2026.stream().sorted(java.util.Comparator.reverseOrder()).forEach(v -> {
      if (data.charAt(data.length() - 1) != '[') {
        data.append(',');
      }
      data.append(Json.quote(v));
    });
    data.append("],\"requested\":").append(Json.quote(requested)).append('}');
    return new Rejection(400, McpErrorCodes.UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", data.toString());
  }

  private static Rejection nameRung(String method, byte[] bytes, Map<String, JsonSpan> params, HeaderLines headers) {
    String member = McpMethods.nameMember(method);
    JsonSpan body = member == null ? null : params.get(member);
    if (body == null) {
      return null;
    }
    String raw = HeaderLines.trimOws(headers.single(McpHeaders.NAME));
    if (raw == null) {
      return mismatch(McpHeaders.NAME + " header is missing");
    }
    Optional<String> decoded = McpName.decode(raw);
    if (decoded.isEmpty()) {
      return mismatch(McpHeaders.NAME + " header is not a valid value");
    }
    if (!decoded.get().equals(Json.string(bytes, body))) {
      return mismatch(McpHeaders.NAME + " header does not match params." + member);
    }
    return null;
  }

  private static Rejection paramRung(byte[] bytes, JsonSpan arguments, List<Annotation> annotations, HeaderLines headers) {
    Map<String, JsonSpan> top = Json.fields(bytes, arguments);
    for (Annotation annotation : annotations) {
      String headerName = annotation.headerName();
      List<String> lines = headers.values(headerName);
      if (lines.size() > 1) {
        return mismatch(headerName + " header is repeated");
      }
      JsonSpan value = lookup(bytes, top, annotation.path());
      boolean absent = value == null || value.is(bytes, "null");
      if (absent) {
        if (!lines.isEmpty()) {
          return mismatch(headerName + " header is present but its argument has no value");
        }
        continue;
      }
      if (lines.isEmpty()) {
        return mismatch(headerName + " header is missing");
      }
      Optional<String> decoded = McpName.decode(HeaderLines.trimOws(lines.getFirst()));
      if (decoded.isEmpty()) {
        return mismatch(headerName + " header is not a valid value");
      }
      if (!matches(bytes, value, decoded.get())) {
        return mismatch(headerName + " header does not match its argument");
      }
    }
    return null;
  }

  private static JsonSpan lookup(byte[] bytes, Map<String, JsonSpan> top, List<String> path) {
    if (top == null || path.isEmpty()) {
      return null;
    }
    JsonSpan value = top.get(path.getFirst());
    for (int i = 1; i < path.size() && value != null; i++) {
      value = Json.field(bytes, value, path.get(i));
    }
    return value;
  }

  /** True when the decoded header {@code text} stands for the argument in {@code value}. */
  static boolean matches(byte[] bytes, JsonSpan value, String text) {
    JsonToken kind = Json.kind(bytes, value);
    if (kind == null) {
      return false;
    }
    return switch (kind) {
      case VALUE_STRING -> text.equals(Json.string(bytes, value));
      case VALUE_TRUE -> text.equals("true");
      case VALUE_FALSE -> text.equals("false");
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> sameNumber(value.text(bytes), text);
      default -> false;
    };
  }

  private static boolean sameNumber(String body, String header) {
    if (body.length() > MAX_NUMBER_TEXT || header.length() > MAX_NUMBER_TEXT
        || !NUMBER.matcher(body).matches() || !NUMBER.matcher(header).matches()) {
      return false;
    }
    return new BigDecimal(body).compareTo(new BigDecimal(header)) == 0;
  }

  private static Rejection mismatch(String message) {
    return new Rejection(400, McpErrorCodes.HEADER_MISMATCH, message, null);
  }

  private static Rejection invalidParams(String message) {
    return new Rejection(400, ErrorCodes.INVALID_PARAMS, message, null);
  }
}
