package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpErrorCodes;
import dev.mcpstdio.protocol.McpHeaders;
import dev.mcpstdio.protocol.McpName;
import dev.mcpstdio.protocol.McpVersions;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.protocol.TraceContext;
import dev.mcpstdio.stdio.Log;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The 2026 era's request on the wire: {@code params._meta} merged (for a 2025-era host: the
 * version, the host's capabilities and identity, the log level it chose; keys it sent itself such
 * as {@code progressToken} kept) and the routing headers derived from the body that goes out:
 * {@code MCP-Protocol-Version} equal to its {@code _meta} version, {@code Mcp-Method}, {@code
 * Mcp-Name} (base64 sentinel where the value needs it) and {@code Mcp-Param-*} from the tools'
 * {@code x-mcp-header} annotations ({@link ToolHeaders}), and the W3C trace context of {@code
 * _meta} as {@code traceparent}/{@code tracestate}/{@code baggage} ({@link TraceContext}). A
 * 2026-era host's body goes as it is; only the headers are added (stdio has none).
 *
 * <p>Two corrections, each once per request: an {@code UnsupportedProtocolVersion} (-32022) whose
 * {@code data.supported} names a version the relay speaks is retried with that version (which the
 * relay keeps from then on); a {@code HeaderMismatch} (-32020) to a {@code tools/call} re-lists
 * the tools (under a relay-owned id, its answer never reaching the host) and retries the call
 * with the headers the fresh schemas give.
 */
final class Era2026Requests implements Interceptor {

  private final Era2026Session session;
  private final ToolHeaders tools;
  private final Log log;
  private final AtomicLong relists = new AtomicLong();

  Era2026Requests(Era2026Session session, ToolHeaders tools, Log log) {
    this.session = session;
    this.tools = tools;
    this.log = log;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    if (!(call.message() instanceof Request request)) {
      return chain.proceed(call.withHeaders(Map.of(McpHeaders.PROTOCOL_VERSION, session.version())));
    }
    if (!Header.isVisibleAscii(request.method()) || request.method().isEmpty()) {
      // Mcp-Method has no escape: a method that cannot be a header value cannot be sent
      return Outcome.answeredLocally(request.id(), dev.mcpstdio.jsonrpc.ErrorCodes.UPSTREAM_ERROR,
          "the method name cannot be sent in the Mcp-Method header (2026-07-28 needs it as plain ASCII)");
    }
    Outcome outcome = send(chain, call, request);
    Response error = errorOf(outcome);
    if (error == null) {
      return outcome;
    }
    int code = error.errorCode();
    if (code == McpErrorCodes.UNSUPPORTED_PROTOCOL_VERSION && !session.hostSpeaks2026()) {
      String chosen = supportedChoice(error);
      if (chosen != null) {
        log.info("the server does not take protocol version " + session.version() + " for " + request.method()
            + "; trying again with " + chosen);
        session.version(chosen);
        Outcome.tailOf(outcome).answerWritten();
        return send(chain, call, request);
      }
    } else if (code == McpErrorCodes.HEADER_MISMATCH && "tools/call".equals(request.method())) {
      log.info("the server refused the headers of tools/call " + request.id() + "; re-listing tools and trying once more");
      Outcome.tailOf(outcome).answerWritten();
      relist(chain, call);
      return send(chain, call, request);
    }
    return outcome;
  }

  private Outcome send(Chain chain, Call call, Request request) throws InterruptedException {
    Request body = session.hostSpeaks2026() ? request : Era2026Wire.withMeta(request, session.requestMeta());
    return chain.proceed(call.withBody(body).withHeaders(headers(body)));
  }

  /** The routing headers of {@code request} as it goes out. */
  Map<String, String> headers(Request request) {
    byte[] bytes = request.bytes();
    Map<String, JsonSpan> params = request.params() == null ? null : Json.fields(bytes, request.params());
    JsonSpan metaSpan = params == null ? null : params.get("_meta");
    Map<String, JsonSpan> meta = metaSpan == null ? null : Json.fields(bytes, metaSpan);
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(McpHeaders.PROTOCOL_VERSION, metaVersion(bytes, meta));
    headers.put(McpHeaders.METHOD, request.method());
    String nameMember = switch (request.method()) {
      case "tools/call", "prompts/get" -> "name";
      case "resources/read" -> "uri";
      default -> null;
    };
    if (nameMember != null && params != null) {
      String name = Json.string(bytes, params.get(nameMember));
      if (name != null) {
        headers.put(McpHeaders.NAME, McpName.encodeName(name));
      }
    }
    if ("tools/call".equals(request.method()) && params != null) {
      headers.putAll(tools.paramHeaders(Json.string(bytes, params.get("name")), bytes, params.get("arguments")));
    }
    traceHeaders(bytes, meta, headers);
    return headers;
  }

  /** The {@code _meta} protocol version of the body (a 2026-era host's own), else the relay's. */
  private String metaVersion(byte[] bytes, Map<String, JsonSpan> meta) {
    String version = meta == null ? null : Json.string(bytes, meta.get(MetaKeys.PROTOCOL_VERSION));
    return version != null && Header.isVisibleAscii(version) ? version : session.version();
  }

  /**
   * The W3C trace context of {@code _meta} as the headers of the same names ({@link TraceContext}),
   * so that a trace the host began crosses the relay into the server's HTTP layer; malformed values
   * are not sent, and a {@code tracestate} only with its {@code traceparent}.
   */
  private static void traceHeaders(byte[] bytes, Map<String, JsonSpan> meta, Map<String, String> headers) {
    if (meta == null) {
      return;
    }
    String parent = Json.string(bytes, meta.get(TraceContext.TRACEPARENT));
    if (TraceContext.isValidTraceparent(parent)) {
      headers.put(TraceContext.TRACEPARENT, parent);
      String state = Json.string(bytes, meta.get(TraceContext.TRACESTATE));
      if (TraceContext.isValidTracestate(state)) {
        headers.put(TraceContext.TRACESTATE, state);
      }
    }
    String baggage = Json.string(bytes, meta.get(TraceContext.BAGGAGE));
    if (TraceContext.isValidBaggage(baggage)) {
      headers.put(TraceContext.BAGGAGE, baggage);
    }
  }

  /** Fetches the tool list afresh (every page), so that the next call's headers come from the schemas as they are now. */
  private void relist(Chain chain, Call call) throws InterruptedException {
    String cursor = null;
    for (int page = 0; page < PaginateLists.MAX_PAGES; page++) {
      JsonRpcId id = JsonRpcId.relayOwned(Rewrites.RELAY_ID_PREFIX + "param/" + relists.incrementAndGet());
      String params = cursor == null ? "{}" : "{\"cursor\":" + Json.quote(cursor) + "}";
      Request list = (Request) Era2026Wire.parse(("{\"jsonrpc\":\"2.0\",\"id\":" + id.json()
          + ",\"method\":\"tools/list\",\"params\":" + params + "}").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      Call listCall = new Call(list, list.bytes(), call.headers(), true, new java.util.concurrent.CompletableFuture<>());
      Outcome outcome = send(chain, listCall, list);
      Response answer = outcome instanceof Outcome.Delivered d ? d.answer() : null;
      if (answer == null || answer.isError() || answer.result() == null) {
        log.warn("re-listing tools failed (" + SessionLink.describe(outcome) + ")");
        return;
      }
      tools.learn(answer);
      cursor = PaginateLists.nextCursor(answer);
      if (cursor == null) {
        return;
      }
    }
  }

  /** The JSON-RPC error the server answered with, in a 200 or in an HTTP error body; null otherwise. */
  static Response errorOf(Outcome outcome) {
    if (outcome instanceof Outcome.Delivered d) {
      return d.answer() != null && d.answer().isError() ? d.answer() : null;
    }
    return outcome instanceof Outcome.Refused r ? r.error() : null;
  }

  /** A version the relay speaks among the error's {@code data.supported}, or null. */
  static String supportedChoice(Response error) {
    byte[] bytes = error.bytes();
    Map<String, JsonSpan> fields = Json.fields(bytes, error.error());
    JsonSpan data = fields == null ? null : fields.get("data");
    Map<String, JsonSpan> dataFields = data == null ? null : Json.fields(bytes, data);
    List<JsonSpan> supported = dataFields == null ? null : Json.elements(bytes, dataFields.get("supported"));
    if (supported == null) {
      return null;
    }
    for (JsonSpan version : supported) {
      String v = Json.string(bytes, version);
      if (v != null && McpVersions.IMPLEMENTED_2026.contains(v)) {
        return v;
      }
    }
    return null;
  }
}
