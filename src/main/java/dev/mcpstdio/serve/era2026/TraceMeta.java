package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.TraceContext;
import java.util.ArrayList;
import java.util.List;

/**
 * A 2026-era POST's W3C trace headers ({@code traceparent}, {@code tracestate}, {@code baggage})
 * carried into its {@code params._meta}, where the 2026-07-28 revision reserves those keys
 * ({@link TraceContext}): a trace an HTTP client or a proxy began crosses the gateway into the
 * child, which sees only the body.
 *
 * <p>The body wins: a key the client put in {@code _meta} itself is never replaced, and a {@code
 * tracestate} header goes only with the {@code traceparent} it belongs to. Malformed or repeated
 * {@code traceparent} headers are ignored (W3C Trace Context 3.2); repeated {@code tracestate} or
 * {@code baggage} lines are one list joined by commas (RFC 9110 5.3). Every other byte of the
 * message stays as it was.
 */
final class TraceMeta {

  private TraceMeta() {}

  /** {@code request} with the trace headers it lacks in {@code _meta}; itself when there are none to add. */
  static Request fromHeaders(Request request, HeaderLines headers) {
    String parent = HeaderLines.trimOws(headers.single(TraceContext.TRACEPARENT));
    String baggage = joined(headers, TraceContext.BAGGAGE);
    boolean parentValid = TraceContext.isValidTraceparent(parent);
    if (!parentValid && !TraceContext.isValidBaggage(baggage)) {
      return request; // the common case: nothing to carry, no parse
    }
    byte[] bytes = request.bytes();
    JsonSpan meta = Json.field(bytes, request.params(), "_meta");
    List<Json.Member> members = meta == null ? null : Json.members(bytes, meta);
    if (members == null) {
      return request; // the validation ladder refuses a request without an object _meta before this
    }
    List<String> added = new ArrayList<>(3);
    if (parentValid && Splice.find(members, TraceContext.TRACEPARENT) == null) {
      added.add(Splice.member(TraceContext.TRACEPARENT, Json.quote(parent)));
      String state = joined(headers, TraceContext.TRACESTATE);
      if (TraceContext.isValidTracestate(state) && Splice.find(members, TraceContext.TRACESTATE) == null) {
        added.add(Splice.member(TraceContext.TRACESTATE, Json.quote(state)));
      }
    }
    if (TraceContext.isValidBaggage(baggage) && Splice.find(members, TraceContext.BAGGAGE) == null) {
      added.add(Splice.member(TraceContext.BAGGAGE, Json.quote(baggage)));
    }
    if (added.isEmpty()) {
      return request;
    }
    return (Request) Splice.parse(new Splice(bytes).append(meta, added).apply());
  }

  /** The header's lines as one list (trimmed, empty lines dropped), or null when it is absent. */
  private static String joined(HeaderLines headers, String name) {
    List<String> values = headers.values(name);
    if (values.isEmpty()) {
      return null;
    }
    List<String> parts = new ArrayList<>(values.size());
    for (String value : values) {
      String trimmed = HeaderLines.trimOws(value);
      if (!trimmed.isEmpty()) {
        parts.add(trimmed);
      }
    }
    return parts.isEmpty() ? null : String.join(",", parts);
  }
}
