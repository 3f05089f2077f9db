package dev.mcpstdio.protocol;

/**
 * W3C Trace Context and Baggage as MCP carries them: the 2026-07-28 revision reserves the
 * {@code _meta} keys {@code traceparent}, {@code tracestate} and {@code baggage} for the W3C
 * formats (SEP-414, exempt from the prefix rule), which over HTTP are the headers of the same
 * names. The gateway moves them between the two carriers in the 2026 era only (the 2025 era's wire
 * is frozen): the relay sends a request's {@code _meta} values as headers, serve puts a POST's
 * headers into {@code _meta} where the client left them out.
 *
 * <p>Only well-formed values cross (a malformed one is dropped, as the W3C specs ask of a
 * receiver), so nothing the gateway writes into a header or a body can break either; a {@code
 * tracestate} goes only with a valid {@code traceparent} (W3C Trace Context 3.3.1.1: without one
 * it must be discarded).
 */
public final class TraceContext {

  /** The {@code _meta} key and the HTTP header: {@code version-traceid-parentid-flags}. */
  public static final String TRACEPARENT = "traceparent";

  /** The {@code _meta} key and the HTTP header: vendor entries of the trace. */
  public static final String TRACESTATE = "tracestate";

  /** The {@code _meta} key and the HTTP header: W3C Baggage. */
  public static final String BAGGAGE = "baggage";

  /** W3C Trace Context 3.3.1.5: at most 32 list members, and 512 characters are a sane cap. */
  static final int MAX_TRACESTATE_MEMBERS = 32;

  static final int MAX_TRACESTATE_CHARS = 512;

  /** W3C Baggage 3.3.1: at most 8192 bytes, at most 180 list members. */
  static final int MAX_BAGGAGE_CHARS = 8192;

  static final int MAX_BAGGAGE_MEMBERS = 180;

  private TraceContext() {}

  /**
   * True for a {@code traceparent} a receiver may act on (W3C Trace Context 3.2): two hex digits of
   * version (not {@code ff}), 32 of trace id and 16 of parent id (neither all zeros), two of flags,
   * lowercase, separated by dashes; version 00 is exactly that long, a later version may carry more
   * after a further dash.
   */
  public static boolean isValidTraceparent(String value) {
    if (value == null || value.length() < 55) {
      return false;
    }
    if (!lowerHex(value, 0, 2) || value.startsWith("ff") || value.charAt(2) != '-'
        || !lowerHex(value, 3, 35) || value.charAt(35) != '-'
        || !lowerHex(value, 36, 52) || value.charAt(52) != '-'
        || !lowerHex(value, 53, 55)) {
      return false;
    }
    if (allZeros(value, 3, 35) || allZeros(value, 36, 52)) {
      return false;
    }
    if (value.startsWith("00")) {
      return value.length() == 55;
    }
    return value.length() == 55 || (value.charAt(55) == '-' && printable(value));
  }

  /** True for a {@code tracestate} that is printable ASCII within the W3C caps. */
  public static boolean isValidTracestate(String value) {
    return isBoundedList(value, MAX_TRACESTATE_CHARS, MAX_TRACESTATE_MEMBERS);
  }

  /** True for a {@code baggage} that is printable ASCII within the W3C caps. */
  public static boolean isValidBaggage(String value) {
    return isBoundedList(value, MAX_BAGGAGE_CHARS, MAX_BAGGAGE_MEMBERS);
  }

  /** A non-blank, printable comma-separated list of at most {@code maxChars} and {@code maxMembers}. */
  private static boolean isBoundedList(String value, int maxChars, int maxMembers) {
    return value != null && !value.isBlank() && value.length() <= maxChars && printable(value)
        && members(value) <= maxMembers;
  }

  private static boolean lowerHex(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  private static boolean allZeros(String s, int from, int to) {
    for (int i = from; i < to; i++) {
      if (s.charAt(i) != '0') {
        return false;
      }
    }
    return true;
  }

  /** Space and visible ASCII only: what a header value can carry verbatim (JSON quotes it). */
  private static boolean printable(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e) {
        return false;
      }
    }
    return true;
  }

  private static int members(String s) {
    int count = 1;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == ',') {
        count++;
      }
    }
    return count;
  }
}
