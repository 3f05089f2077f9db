package dev.mcpstdio.jsonrpc;

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
    if (isPlainInteger(json)) {
      return new JsonRpcId(json, "n:" + json); // the common case: already canonical
    }
    String canonical = canonicalNumber(json);
    return new JsonRpcId(json, "n:" + (canonical != null ? canonical : json));
  }

  /** An integer without sign, fraction, exponent or leading zero (JSON allows none of those). */
  private static boolean isPlainInteger(String json) {
    int n = json.length();
    if (n == 0 || n > 18 || (json.charAt(0) == '0' && n > 1)) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = json.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return true;
  }

  /** Exponents beyond this many digits are not normalised (the id keeps its text as its key). */
  private static final int MAX_EXPONENT_DIGITS = 18;

  /** Plain decimal form is used while the decimal exponent stays within this magnitude. */
  private static final int MAX_PLAIN_EXPONENT = 64;

  /**
   * One spelling per numeric value, computed on the text in linear time: {@code 1}, {@code 1.0}
   * and {@code 1e0} all give {@code 1}. (BigDecimal's stripTrailingZeros/toPlainString would turn
   * a short id such as {@code 1e999999999} into a gigabyte of zeros, and strip long runs of zeros
   * in quadratic time.) Values whose exponent is far from zero get the form {@code digits e exp},
   * which cannot collide with a plain form. Null when {@code json} is not a JSON number.
   */
  static String canonicalNumber(String json) {
    int n = json.length();
    int i = 0;
    boolean negative = i < n && json.charAt(i) == '-';
    if (negative) {
      i++;
    }
    int intStart = i;
    while (i < n && isDigit(json.charAt(i))) {
      i++;
    }
    int intEnd = i;
    if (intEnd == intStart) {
      return null;
    }
    int fracStart = i;
    int fracEnd = i;
    if (i < n && json.charAt(i) == '.') {
      fracStart = ++i;
      while (i < n && isDigit(json.charAt(i))) {
        i++;
      }
      fracEnd = i;
      if (fracEnd == fracStart) {
        return null;
      }
    }
    long exponent = 0;
    if (i < n && (json.charAt(i) == 'e' || json.charAt(i) == 'E')) {
      i++;
      boolean negativeExponent = false;
      if (i < n && (json.charAt(i) == '+' || json.charAt(i) == '-')) {
        negativeExponent = json.charAt(i) == '-';
        i++;
      }
      int expStart = i;
      while (i < n && json.charAt(i) == '0') {
        i++;
      }
      int significantStart = i;
      while (i < n && isDigit(json.charAt(i))) {
        i++;
      }
      if (i == expStart || i - significantStart > MAX_EXPONENT_DIGITS) {
        return null;
      }
      exponent = i == significantStart ? 0 : Long.parseLong(json, significantStart, i, 10);
      if (negativeExponent) {
        exponent = -exponent;
      }
    }
    if (i != n) {
      return null;
    }
    String digits = json.substring(intStart, intEnd) + json.substring(fracStart, fracEnd);
    int first = 0;
    while (first < digits.length() && digits.charAt(first) == '0') {
      first++;
    }
    if (first == digits.length()) {
      return "0";
    }
    int last = digits.length();
    while (digits.charAt(last - 1) == '0') {
      last--;
    }
    String significant = digits.substring(first, last);
    // value = significant * 10^scale; |exponent| < 10^18 and the digit counts fit an int
    long scale = exponent - (fracEnd - fracStart) + (digits.length() - last);
    StringBuilder out = new StringBuilder(significant.length() + 24);
    if (negative) {
      out.append('-');
    }
    if (scale > MAX_PLAIN_EXPONENT || scale < -(MAX_PLAIN_EXPONENT + (long) significant.length())) {
      return out.append(significant).append('e').append(scale).toString();
    }
    if (scale >= 0) {
      out.append(significant).append("0".repeat((int) scale));
    } else {
      int point = significant.length() + (int) scale;
      if (point > 0) {
        out.append(significant, 0, point).append('.').append(significant, point, significant.length());
      } else {
        out.append("0.").append("0".repeat(-point)).append(significant);
      }
    }
    return out.toString();
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
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
