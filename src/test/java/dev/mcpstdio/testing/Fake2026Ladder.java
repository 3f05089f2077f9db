package dev.mcpstdio.testing;

import static dev.mcpstdio.testing.Fake2026Json.CLIENT_CAPABILITIES;
import static dev.mcpstdio.testing.Fake2026Json.CLIENT_INFO;
import static dev.mcpstdio.testing.Fake2026Json.HEADER_MISMATCH;
import static dev.mcpstdio.testing.Fake2026Json.INVALID_PARAMS;
import static dev.mcpstdio.testing.Fake2026Json.INVALID_REQUEST;
import static dev.mcpstdio.testing.Fake2026Json.LOG_LEVEL;
import static dev.mcpstdio.testing.Fake2026Json.PARSE_ERROR;
import static dev.mcpstdio.testing.Fake2026Json.PROTOCOL_VERSION;
import static dev.mcpstdio.testing.Fake2026Json.UNSUPPORTED_VERSION;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/**
 * The request validation of a 2026-only HTTP server, rung by rung in the order the TypeScript SDK
 * v2 server ({@code createMcpHandler(factory, {legacy: 'reject'})}, 2.4.0) applies it, so the
 * gateway meets the same answers it will meet in the field. Each rung can be switched off.
 *
 * <p>Order: 415 for a non-JSON content type; 400 -32700 for a body that is not JSON; 400 -32600
 * for a batch, a posted response or a non-JSON-RPC object. Requests: {@code initialize} without a
 * modern claim gets -32020 under a modern header, else -32022; an invalid envelope -32602; header
 * and body versions differing -32020; {@code Mcp-Method} differing -32020; no claim under a modern
 * header -32602; no claim at all -32022 (2025-era traffic on a 2026-only server); an unsupported
 * version -32022 {@code {supported, requested}}; a missing version header -32020; a missing
 * {@code Mcp-Method} -32020; {@code Mcp-Name} missing, badly encoded or differing -32020; a
 * {@code Mcp-Param-*} missing or differing -32020. Notifications: the claim and the method header
 * are checked when present, else 202.
 */
public final class Fake2026Ladder {

  /** The switchable rungs. */
  public enum Check {
    /** A POST must have an {@code application/json} content type (415). */
    CONTENT_TYPE,
    /** {@code params._meta} must carry a valid envelope (-32602), and 2025-era traffic is refused (-32022). */
    ENVELOPE,
    /** The {@code _meta} version must be a supported one (-32022). */
    VERSION,
    /** {@code MCP-Protocol-Version} must be present and equal the {@code _meta} version (-32020). */
    VERSION_HEADER,
    /** {@code Mcp-Method} must be present on requests and equal the method (-32020). */
    METHOD_HEADER,
    /** {@code Mcp-Name} must mirror params.name / params.uri (-32020). */
    NAME_HEADER,
    /** {@code Mcp-Param-*} must mirror annotated tool arguments (-32020). */
    PARAM_HEADERS
  }

  /** A rejection: status and JSON-RPC error body. */
  record Rejection(int status, String body) {
    Fake2026Reply reply() {
      return Fake2026Reply.json(status, body);
    }
  }

  /** The methods whose {@code Mcp-Name} mirrors a params member, and which member. */
  static String nameSource(String method) {
    return switch (method) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read" -> "uri";
      case "tasks/get", "tasks/update", "tasks/cancel" -> "taskId";
      default -> null;
    };
  }

  private static final Set<String> LOG_LEVELS =
      Set.of("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency");

  private static final String SENTINEL_PREFIX = "=?base64?";
  private static final String SENTINEL_SUFFIX = "?=";
  private static final Pattern DECIMAL = Pattern.compile("-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?");

  private Fake2026Ladder() {}

  /**
   * The first rung {@code e} fails, or null when it passes them all.
   *
   * @param enabled rungs switched on
   * @param supported versions the server serves
   * @param inputSchema the inputSchema of a tool the server serves, by name (null if unknown)
   */
  static Rejection check(Fake2026Exchange e, Set<Check> enabled, List<String> supported,
      Function<String, JsonNode> inputSchema) {
    if (enabled.contains(Check.CONTENT_TYPE) && !isJson(e.header("content-type"))) {
      return new Rejection(415, Fake2026Json.error(null, -32000, "Unsupported Media Type: Content-Type must be application/json", null));
    }
    JsonNode body = e.json();
    if (body == null) {
      return new Rejection(400, Fake2026Json.error(null, PARSE_ERROR, "Parse error: the request body is not valid JSON", null));
    }
    if (body.isArray()) {
      return new Rejection(400, Fake2026Json.error(null, INVALID_REQUEST, "Bad Request: JSON-RPC batches are not supported by this endpoint", null));
    }
    if (body.isObject() && !body.has("method") && (body.has("result") || body.has("error"))) {
      return new Rejection(400, Fake2026Json.error(null, INVALID_REQUEST, "Bad Request: JSON-RPC responses cannot be posted to this endpoint", null));
    }
    if (!e.isRequest() && !e.isNotification() || !"2.0".equals(body.path("jsonrpc").asString(null))) {
      return new Rejection(400, Fake2026Json.error(null, INVALID_REQUEST, "Bad Request: the request body is not a valid JSON-RPC message", null));
    }
    return e.isRequest() ? request(e, enabled, supported, inputSchema) : notification(e, enabled);
  }

  private static Rejection request(Fake2026Exchange e, Set<Check> enabled, List<String> supported,
      Function<String, JsonNode> inputSchema) {
    String id = e.idJson();
    String method = e.rpcMethod();
    String headerVersion = ows(e.header("mcp-protocol-version"));
    String methodHeader = ows(e.header("mcp-method"));
    boolean modernHeader = headerVersion != null && headerVersion.compareTo(Fake2026Json.VERSION) >= 0;
    JsonNode meta = e.params().path("_meta");
    boolean claim = meta.isObject() && meta.has(PROTOCOL_VERSION);
    String claimed = meta.path(PROTOCOL_VERSION).isString() ? meta.get(PROTOCOL_VERSION).stringValue() : null;
    if (enabled.contains(Check.ENVELOPE)) {
      boolean validModernClaim = claim && envelopeProblem(meta) == null && claimed != null
          && claimed.compareTo(Fake2026Json.VERSION) >= 0;
      if (method.equals("initialize") && !validModernClaim) {
        if (modernHeader) {
          return mismatch(id, "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header");
        }
        JsonNode requested = e.params().path("protocolVersion");
        return unsupported(id, supported, requested.isString() ? requested.stringValue() : null);
      }
      if (claim) {
        String problem = envelopeProblem(meta);
        if (problem != null) {
          return new Rejection(400, Fake2026Json.error(id, INVALID_PARAMS,
              "Invalid _meta envelope for protocol revision 2026-07-28: " + problem, null));
        }
      }
    }
    if (enabled.contains(Check.VERSION_HEADER) && claim && headerVersion != null && claimed != null
        && !headerVersion.equals(claimed)) {
      return mismatch(id, "the body envelope names protocol version " + claimed
          + " but the MCP-Protocol-Version header names " + headerVersion);
    }
    if (enabled.contains(Check.METHOD_HEADER) && methodHeader != null && !methodHeader.equals(method)) {
      return mismatch(id, "the body names method " + method + " but the Mcp-Method header names " + methodHeader);
    }
    if (enabled.contains(Check.ENVELOPE) && !claim) {
      if (modernHeader) {
        return new Rejection(400, Fake2026Json.error(id, INVALID_PARAMS, "Invalid params: the MCP-Protocol-Version header names protocol revision "
            + headerVersion + ", but the request is missing the required per-request envelope key(s): "
            + (meta.isObject() ? PROTOCOL_VERSION : "_meta"), null));
      }
      return unsupported(id, supported, headerVersion);
    }
    if (enabled.contains(Check.VERSION) && (claimed == null || !supported.contains(claimed))) {
      return unsupported(id, supported, claimed == null ? "unknown" : claimed);
    }
    if (enabled.contains(Check.VERSION_HEADER) && headerVersion == null) {
      return mismatch(id, "the body envelope names protocol version " + claimed
          + " but the required MCP-Protocol-Version header is absent");
    }
    if (enabled.contains(Check.METHOD_HEADER) && methodHeader == null) {
      return mismatch(id, "the body names method " + method + " but the required Mcp-Method header is absent");
    }
    if (enabled.contains(Check.NAME_HEADER)) {
      Rejection r = name(e, id, method);
      if (r != null) {
        return r;
      }
    }
    if (enabled.contains(Check.PARAM_HEADERS) && method.equals("tools/call") && e.params().path("name").isString()) {
      JsonNode schema = inputSchema.apply(e.params().get("name").stringValue());
      if (schema != null) {
        return params(e, id, schema);
      }
    }
    return null;
  }

  private static Rejection notification(Fake2026Exchange e, Set<Check> enabled) {
    String headerVersion = ows(e.header("mcp-protocol-version"));
    String methodHeader = ows(e.header("mcp-method"));
    boolean modernHeader = headerVersion != null && headerVersion.compareTo(Fake2026Json.VERSION) >= 0;
    JsonNode meta = e.params().path("_meta");
    boolean claim = meta.isObject() && meta.has(PROTOCOL_VERSION);
    String method = e.rpcMethod();
    if (claim) {
      JsonNode claimed = meta.get(PROTOCOL_VERSION);
      if (enabled.contains(Check.ENVELOPE) && !claimed.isString()) {
        return new Rejection(400, Fake2026Json.error(null, INVALID_PARAMS,
            "Invalid _meta envelope for protocol revision 2026-07-28: " + PROTOCOL_VERSION + ": expected a protocol version string", null));
      }
      if (enabled.contains(Check.VERSION_HEADER) && headerVersion != null && !headerVersion.equals(claimed.asString())) {
        return mismatch("null", "the notification envelope names protocol version " + claimed.asString()
            + " but the MCP-Protocol-Version header names " + headerVersion);
      }
    }
    boolean modern = claim ? meta.get(PROTOCOL_VERSION).asString("").compareTo(Fake2026Json.VERSION) >= 0 : modernHeader;
    if (enabled.contains(Check.METHOD_HEADER) && modern && methodHeader != null && !methodHeader.equals(method)) {
      return mismatch("null", "the notification body names method " + method + " but the Mcp-Method header names " + methodHeader);
    }
    return null;
  }

  private static Rejection name(Fake2026Exchange e, String id, String method) {
    String field = nameSource(method);
    if (field == null) {
      return null;
    }
    JsonNode value = e.params().path(field);
    String bodyValue = value.isString() ? value.stringValue() : null;
    String header = ows(e.header("mcp-name"));
    if (header == null) {
      return bodyValue == null ? null : mismatch(id, "the body carries params." + field + "=\"" + bodyValue
          + "\" but the required Mcp-Name header is absent");
    }
    String decoded = decode(header);
    if (decoded == null) {
      return mismatch(id, "the Mcp-Name header carries an invalid Base64 sentinel value");
    }
    if (bodyValue != null && !decoded.equals(bodyValue)) {
      return mismatch(id, "the body carries params." + field + "=\"" + bodyValue + "\" but the Mcp-Name header names \""
          + decoded + "\"");
    }
    return null;
  }

  /** One {@code x-mcp-header} annotation reachable through {@code properties} only. */
  record Declaration(String header, List<String> path, String type) {}

  /** The annotations of a tool's inputSchema that sit on a chain of {@code properties} keys. */
  static List<Declaration> declarations(JsonNode schema) {
    List<Declaration> out = new ArrayList<>();
    collect(schema, List.of(), out);
    return out;
  }

  private static void collect(JsonNode schema, List<String> path, List<Declaration> out) {
    JsonNode properties = schema.path("properties");
    if (!properties.isObject()) {
      return;
    }
    for (var p : properties.properties()) {
      List<String> childPath = new ArrayList<>(path);
      childPath.add(p.getKey());
      JsonNode child = p.getValue();
      if (child.path("x-mcp-header").isString()) {
        out.add(new Declaration(child.get("x-mcp-header").stringValue(), List.copyOf(childPath),
            child.path("type").asString("")));
      }
      collect(child, childPath, out);
    }
  }

  private static Rejection params(Fake2026Exchange e, String id, JsonNode schema) {
    for (Declaration d : declarations(schema)) {
      JsonNode body = e.arguments();
      for (String key : d.path()) {
        body = body.path(key);
      }
      if (body.isMissingNode() || body.isNull() || !(body.isString() || body.isNumber() || body.isBoolean())) {
        continue; // no value: the header is not expected (a present one is ignored)
      }
      String name = "Mcp-Param-" + d.header();
      String header = e.header(name);
      String bodyText = body.isString() ? body.stringValue() : body.toString();
      if (header == null) {
        return mismatch(id, "the body carries " + String.join(".", d.path()) + "=" + body + " but the " + name
            + " header is absent");
      }
      String decoded = decode(header);
      if (decoded == null) {
        return mismatch(id, "the " + name + " header carries an invalid Base64 sentinel value");
      }
      boolean equal = (d.type().equals("integer") || d.type().equals("number")) && body.isNumber()
          && DECIMAL.matcher(decoded).matches()
          ? new BigDecimal(decoded).compareTo(body.decimalValue()) == 0
          : decoded.equals(bodyText);
      if (!equal) {
        return mismatch(id, "the " + name + " header decodes to \"" + decoded + "\" but the body carries "
            + String.join(".", d.path()) + "=" + body);
      }
    }
    return null;
  }

  /** The first problem of a 2026 {@code _meta} envelope, or null when it is valid. */
  static String envelopeProblem(JsonNode meta) {
    if (!meta.path(PROTOCOL_VERSION).isString()) {
      return PROTOCOL_VERSION + (meta.has(PROTOCOL_VERSION) ? ": expected a string" : ": missing");
    }
    if (!meta.path(CLIENT_CAPABILITIES).isObject()) {
      return CLIENT_CAPABILITIES + (meta.has(CLIENT_CAPABILITIES) ? ": expected an object" : ": missing");
    }
    if (meta.has(CLIENT_INFO)) {
      JsonNode info = meta.get(CLIENT_INFO);
      if (!info.isObject() || !info.path("name").isString() || !info.path("version").isString()) {
        return CLIENT_INFO + ": expected an Implementation {name, version}";
      }
    }
    if (meta.has(LOG_LEVEL) && !LOG_LEVELS.contains(meta.get(LOG_LEVEL).asString(""))) {
      return LOG_LEVEL + ": not a logging level";
    }
    return null;
  }

  /**
   * A header value with the base64 sentinel decoded; null when the sentinel's payload is not
   * canonical base64 of valid UTF-8.
   */
  static String decode(String value) {
    if (!(value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX))
        || value.length() < SENTINEL_PREFIX.length() + SENTINEL_SUFFIX.length()) {
      return value;
    }
    String b64 = value.substring(SENTINEL_PREFIX.length(), value.length() - SENTINEL_SUFFIX.length());
    byte[] bytes;
    try {
      bytes = Base64.getDecoder().decode(b64);
    } catch (IllegalArgumentException ex) {
      return null;
    }
    if (!Base64.getEncoder().encodeToString(bytes).equals(b64)) {
      return null; // not canonical
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException ex) {
      return null;
    }
  }

  static Rejection unsupported(String id, List<String> supported, String requested) {
    var data = Fake2026Json.object();
    var list = data.putArray("supported");
    supported.forEach(list::add);
    if (requested != null) {
      data.put("requested", requested);
    }
    return new Rejection(400, Fake2026Json.error(id, UNSUPPORTED_VERSION, requested == null
        ? "Unsupported protocol version: the request did not name a protocol version"
        : "Unsupported protocol version: " + requested, data.toString()));
  }

  private static Rejection mismatch(String id, String detail) {
    return new Rejection(400, Fake2026Json.error(id, HEADER_MISMATCH, "Bad Request: the request headers and body disagree: "
        + detail, null));
  }

  /** RFC 9110 optional whitespace stripped; null stays null. */
  private static String ows(String value) {
    return value == null ? null : value.strip();
  }

  private static boolean isJson(String contentType) {
    if (contentType == null) {
      return false;
    }
    String essence = contentType.split(";", 2)[0].strip().toLowerCase(Locale.ROOT);
    return essence.equals("application/json");
  }
}
