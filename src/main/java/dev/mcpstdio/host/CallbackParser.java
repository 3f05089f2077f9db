package dev.mcpstdio.host;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.wire.Utf8;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Recognises callback lines on a child's stderr (protocol v1, {@code docs/callbacks.md}).
 *
 * <p>Total: any bytes give a {@link Parsed} and nothing is thrown. A line without the prefix is
 * {@link Parsed.Plain}; a line with it that is not a valid callback (invalid UTF-8, not one JSON
 * object, a missing or mistyped field, over the limit) is {@link Parsed.Rejected} with the reason,
 * for the caller to log as an ordinary line with a warning. Line splitting (partial reads, CRLF,
 * bounded length) is the line reader's job; this class judges one complete line.
 */
public final class CallbackParser {

  public static final String PREFIX = "__CALLBACK__";

  private static final byte[] PREFIX_BYTES = PREFIX.getBytes(StandardCharsets.US_ASCII);

  /** Default bound on a callback line, prefix included. */
  public static final int DEFAULT_MAX_LINE = 64 * 1024;

  /** Longest callback id. */
  static final int MAX_ID = 128;

  /** Fields each defined type requires (strings). */
  private static final Map<String, List<String>> REQUIRED = Map.of(
      Callback.AUTH_REQUIRED, List.of("sourceSlug", "authUrl"),
      Callback.PLAN_READY, List.of("planPath"),
      Callback.CONFIRM, List.of("message"),
      Callback.NOTIFY, List.of("message"));

  /** What one stderr line is. */
  public sealed interface Parsed {
    /** An ordinary log line. */
    record Plain(byte[] line) implements Parsed {}

    /** A valid callback. */
    record Valid(Callback callback) implements Parsed {}

    /** A line with the prefix that is not a valid callback; logged as a line, with a warning. */
    record Rejected(byte[] line, String reason) implements Parsed {}
  }

  private final int maxLine;

  public CallbackParser(int maxLine) {
    this.maxLine = maxLine;
  }

  public CallbackParser() {
    this(DEFAULT_MAX_LINE);
  }

  /** True when {@code line} starts with the callback prefix. */
  public static boolean hasPrefix(byte[] line) {
    if (line.length < PREFIX_BYTES.length) {
      return false;
    }
    for (int i = 0; i < PREFIX_BYTES.length; i++) {
      if (line[i] != PREFIX_BYTES[i]) {
        return false;
      }
    }
    return true;
  }

  public Parsed parse(byte[] line) {
    if (!hasPrefix(line)) {
      return new Parsed.Plain(line);
    }
    if (line.length > maxLine) {
      return new Parsed.Rejected(line, "callback line over " + maxLine + " bytes");
    }
    int start = PREFIX_BYTES.length;
    byte[] json = java.util.Arrays.copyOfRange(line, start, line.length);
    if (!Utf8.isValid(json, 0, json.length)) {
      return new Parsed.Rejected(line, "callback is not valid UTF-8");
    }
    if (!Json.isOneObject(json)) {
      return new Parsed.Rejected(line, "callback is not one JSON object");
    }
    Map<String, JsonSpan> fields = Json.fields(json, new JsonSpan(0, json.length));
    if (fields == null) {
      return new Parsed.Rejected(line, "callback is not a JSON object");
    }
    String type = Json.string(json, fields.get("type"));
    String id = Json.string(json, fields.get("id"));
    String sessionId = Json.string(json, fields.get("sessionId"));
    if (type == null || type.isEmpty()) {
      return new Parsed.Rejected(line, "callback has no string \"type\"");
    }
    if (id == null || !id.matches("[A-Za-z0-9._~-]{1," + MAX_ID + "}") || id.equals(".") || id.equals("..")) {
      // ids travel in URL paths (the reply channel, the events API): unreserved characters only
      return new Parsed.Rejected(line, "callback \"id\" must be 1-" + MAX_ID + " of A-Z a-z 0-9 . _ ~ -");
    }
    if (sessionId == null) {
      return new Parsed.Rejected(line, "callback has no string \"sessionId\"");
    }
    for (String field : REQUIRED.getOrDefault(type, List.of())) {
      if (Json.string(json, fields.get(field)) == null) {
        return new Parsed.Rejected(line, type + " callback needs a string \"" + field + "\"");
      }
    }
    if (type.equals(Callback.AUTH_REQUIRED)) {
      String url = Json.string(json, fields.get("authUrl")).toLowerCase(java.util.Locale.ROOT);
      if (!url.startsWith("https://") && !url.startsWith("http://")) {
        return new Parsed.Rejected(line, "auth_required \"authUrl\" must be an http(s) URL");
      }
    }
    return new Parsed.Valid(new Callback(type, id, sessionId, json));
  }

}
