package dev.mcpstdio.jsonrpc;

import java.nio.charset.StandardCharsets;

/** Builds the error responses the gateway writes on its own behalf. */
public final class JsonRpcErrors {

  private JsonRpcErrors() {}

  /** An error response for {@code id} ({@code null} writes {@code "id":null}). */
  public static byte[] error(JsonRpcId id, int code, String message) {
    return error(id, code, message, null);
  }

  /**
   * An error response with a {@code data} member; {@code dataJson} must be a complete JSON value
   * or null for none.
   */
  public static byte[] error(JsonRpcId id, int code, String message, String dataJson) {
    StringBuilder json = new StringBuilder(96 + message.length());
    json.append("{\"jsonrpc\":\"2.0\",\"id\":")
        .append(id == null ? "null" : id.json())
        .append(",\"error\":{\"code\":")
        .append(code)
        .append(",\"message\":")
        .append(Json.quote(message));
    if (dataJson != null) {
      json.append(",\"data\":").append(dataJson);
    }
    json.append("}}");
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }
}
