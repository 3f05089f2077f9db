package dev.mcpstdio.testing;

import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON texts the 2026 fake server writes: envelopes, errors, notifications, and the spec's error
 * codes (spelled out here, independently of the gateway's own constants, so the fake checks the
 * gateway against the specification rather than against itself).
 */
public final class Fake2026Json {

  public static final String VERSION = "2026-07-28";

  public static final String PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
  public static final String CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
  public static final String CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
  public static final String LOG_LEVEL = "io.modelcontextprotocol/logLevel";
  public static final String SERVER_INFO = "io.modelcontextprotocol/serverInfo";
  public static final String SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId";

  public static final int PARSE_ERROR = -32700;
  public static final int INVALID_REQUEST = -32600;
  public static final int METHOD_NOT_FOUND = -32601;
  public static final int INVALID_PARAMS = -32602;
  public static final int INTERNAL_ERROR = -32603;
  public static final int HEADER_MISMATCH = -32020;
  public static final int MISSING_CLIENT_CAPABILITY = -32021;
  public static final int UNSUPPORTED_VERSION = -32022;

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  private Fake2026Json() {}

  /** Parses JSON text or bytes; null when it is not JSON. */
  static JsonNode tryParse(byte[] bytes) {
    if (bytes.length == 0) {
      return null;
    }
    try {
      return MAPPER.readTree(bytes);
    } catch (JacksonException e) {
      return null;
    }
  }

  public static JsonNode parse(String json) {
    return MAPPER.readTree(json);
  }

  public static ObjectNode object(String json) {
    JsonNode node = parse(json);
    if (!(node instanceof ObjectNode o)) {
      throw new IllegalArgumentException("not a JSON object: " + json);
    }
    return o;
  }

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  public static String quote(String text) {
    return MAPPER.getNodeFactory().stringNode(text).toString();
  }

  /** A JSON-RPC error response; {@code dataJson} may be null. */
  public static String error(String idJson, int code, String message, String dataJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + (idJson == null ? "null" : idJson) + ",\"error\":{\"code\":" + code
        + ",\"message\":" + quote(message) + (dataJson == null ? "" : ",\"data\":" + dataJson) + "}}";
  }

  /** A JSON-RPC result response carrying {@code resultJson} as it is. */
  public static String result(String idJson, String resultJson) {
    return "{\"jsonrpc\":\"2.0\",\"id\":" + idJson + ",\"result\":" + resultJson + "}";
  }

  /** A JSON-RPC notification; {@code paramsJson} may be null. */
  public static String notification(String method, String paramsJson) {
    return "{\"jsonrpc\":\"2.0\",\"method\":" + quote(method) + (paramsJson == null ? "" : ",\"params\":" + paramsJson)
        + "}";
  }

  /** {@code notifications/progress} for a request's progress token (raw JSON, e.g. {@code 41}). */
  public static String progress(String tokenJson, double progress, Double total) {
    return notification("notifications/progress", "{\"progressToken\":" + tokenJson + ",\"progress\":" + num(progress)
        + (total == null ? "" : ",\"total\":" + num(total)) + "}");
  }

  /** {@code notifications/message} at a level, with text data. */
  public static String log(String level, String text) {
    return notification("notifications/message", "{\"level\":" + quote(level) + ",\"logger\":\"fake\",\"data\":"
        + quote(text) + "}");
  }

  private static String num(double d) {
    return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
  }
}
