package dev.mcpstdio.jsonrpc;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * A JSON-RPC request id: a string or a number, kept in the exact JSON form the sender wrote.
 *
 * <p>Two ids are equal when they name the same value ({@code "a"} and {@code "\u0061"}, or
 * {@code 1} and {@code 1.0}), so a response echoing an id in another spelling still matches. The
 * original spelling is what goes back on the wire.
 */
public final class JsonRpcId {

  private final String json;
  private final String key;

  private JsonRpcId(String json, String key) {
    this.json = json;
    this.key = key;
  }

  /** A string id; {@code json} is its quoted form as written, {@code value} its decoded text. */
  public static JsonRpcId ofString(String json, String value) {
    return new JsonRpcId(json, "s:" + value);
  }

  /** A numeric id from its JSON text. */
  public static JsonRpcId ofNumber(String json) {
    String canonical;
    try {
      canonical = new BigDecimal(json).stripTrailingZeros().toPlainString();
    } catch (NumberFormatException e) {
      canonical = json;
    }
    return new JsonRpcId(json, "n:" + canonical);
  }

  /** A string id minted by the relay itself; {@code value} must need no JSON escaping. */
  public static JsonRpcId relayOwned(String value) {
    return ofString('"' + value + '"', value);
  }

  /** The id exactly as it appeared on the wire, ready to be written back. */
  public String json() {
    return json;
  }

  public byte[] jsonBytes() {
    return json.getBytes(StandardCharsets.UTF_8);
  }

  public boolean isString() {
    return key.charAt(0) == 's';
  }

  /** The decoded value: the string's text, or the number's canonical decimal form. */
  public String value() {
    return key.substring(2);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof JsonRpcId other && key.equals(other.key);
  }

  @Override
  public int hashCode() {
    return key.hashCode();
  }

  @Override
  public String toString() {
    return json;
  }
}
