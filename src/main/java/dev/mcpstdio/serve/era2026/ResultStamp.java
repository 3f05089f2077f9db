package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcId;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.protocol.McpErrorCodes;
import dev.mcpstdio.protocol.McpMethods;
import dev.mcpstdio.protocol.McpResults;
import dev.mcpstdio.protocol.MetaKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * A 2025-era child's answer made a 2026-era one (mcp-stdio.md 4.6, "stamped"; spec.md 5.4, 5.12,
 * 5.13).
 *
 * <ul>
 *   <li>the id becomes the client's, its bytes verbatim;
 *   <li>a result (an object) gains, each only when absent: {@code resultType: "complete"}; {@code
 *       ttlMs} and {@code cacheScope: "private"} for the methods of {@link McpMethods#CACHEABLE}
 *       (never {@code tools/call}); {@code _meta["io.modelcontextprotocol/serverInfo"]} when the
 *       server info is known ({@code _meta} created when absent, left alone when it is not an
 *       object);
 *   <li>an error is never stamped, except that the retired -32002 (resource not found) becomes
 *       -32602 with {@code data.uri} set to the request's URI (its message and other data kept);
 *   <li>the HTTP status is 404 for -32601 (method not found), else 200.
 * </ul>
 *
 * <p>Everything else keeps the child's bytes: the edits are spliced in, nothing is re-serialised.
 * A result that is not an object (null, a string) is passed on unstamped: it is the child's
 * answer, and a client can judge it.
 *
 * @param serverInfoJson the child's {@code serverInfo} as JSON (from its {@code InitializeResult}),
 *     or null when unknown
 * @param ttlMs the freshness stamped on cacheable results, at least 0
 */
public record ResultStamp(String serverInfoJson, long ttlMs) {

  public ResultStamp {
    if (ttlMs < 0) {
      throw new IllegalArgumentException("ttlMs must be at least 0");
    }
  }

  /** A stamped answer and the HTTP status it goes with. */
  public record Stamped(byte[] bytes, int httpStatus) {}

  /**
   * Stamps {@code child}'s answer to a {@code method} request of the client's, whose id was {@code
   * clientId}.
   *
   * @param uri the request's {@code params.uri} (for -32002), or null
   */
  /**
   * A 2026-era child's answer under the client's id, every other byte as the child wrote it; the
   * status 404 for -32601 and 400 for the era's header, capability and version errors
   * (-32020..-32022), else 200.
   */
  public static Stamped rekeyed(Response child, JsonRpcId clientId) {
    byte[] bytes = child.bytes();
    Json.Member id = Splice.find(Json.members(bytes, Splice.whole(bytes)), "id");
    if (id == null) {
      throw new IllegalArgumentException("a response without an id cannot be re-keyed");
    }
    int status = 200;
    if (child.isError()) {
      int code = child.errorCode();
      status = code == ErrorCodes.METHOD_NOT_FOUND ? 404 : code <= -32020 && code >= -32022 ? 400 : 200;
    }
    return new Stamped(new Splice(bytes).replace(id.value(), clientId.json()).apply(), status);
  }

  public Stamped apply(Response child, JsonRpcId clientId, String method, String uri) {
    byte[] bytes = child.bytes();
    Json.Member id = Splice.find(Json.members(bytes, Splice.whole(bytes)), "id");
    if (id == null) {
      throw new IllegalArgumentException("a response without an id cannot be re-keyed");
    }
    Splice splice = new Splice(bytes).replace(id.value(), clientId.json());
    int status = 200;
    if (child.isError()) {
      int code = child.errorCode();
      if (code == ErrorCodes.METHOD_NOT_FOUND) {
        status = 404;
      } else if (code == McpErrorCodes.RESOURCE_NOT_FOUND_2025) {
        notFound(splice, bytes, child.error(), uri);
      }
    } else if (child.result() != null) {
      stampResult(splice, bytes, child.result(), method);
    }
    return new Stamped(splice.apply(), status);
  }

  private void stampResult(Splice splice, byte[] bytes, JsonSpan result, String method) {
    List<Json.Member> members = Json.members(bytes, result);
    if (members == null) {
      return;
    }
    List<String> add = new ArrayList<>();
    if (Splice.find(members, McpResults.RESULT_TYPE) == null) {
      add.add(Splice.member(McpResults.RESULT_TYPE, Json.quote(McpResults.COMPLETE)));
    }
    if (McpMethods.CACHEABLE.contains(method)) {
      if (Splice.find(members, McpResults.TTL_MS) == null) {
        add.add(Splice.member(McpResults.TTL_MS, Long.toString(ttlMs)));
      }
      if (Splice.find(members, McpResults.CACHE_SCOPE) == null) {
        add.add(Splice.member(McpResults.CACHE_SCOPE, Json.quote(McpResults.PRIVATE)));
      }
    }
    if (serverInfoJson != null) {
      Json.Member meta = Splice.find(members, "_meta");
      String info = Splice.member(MetaKeys.SERVER_INFO, serverInfoJson);
      if (meta == null) {
        add.add(Splice.member("_meta", "{" + info + "}"));
      } else {
        List<Json.Member> metaMembers = Json.members(bytes, meta.value());
        if (metaMembers != null && Splice.find(metaMembers, MetaKeys.SERVER_INFO) == null) {
          splice.append(meta.value(), List.of(info));
        }
      }
    }
    splice.append(result, add);
  }

  /** -32002 → -32602, {@code data.uri} the request's. */
  private static void notFound(Splice splice, byte[] bytes, JsonSpan error, String uri) {
    List<Json.Member> members = Json.members(bytes, error);
    Json.Member code = Splice.find(members, "code");
    if (code == null) {
      return; // not reached: the code was read from this member
    }
    splice.replace(code.value(), Integer.toString(ErrorCodes.INVALID_PARAMS));
    if (uri == null) {
      return;
    }
    String uriJson = Json.quote(uri);
    Json.Member data = Splice.find(members, "data");
    if (data == null) {
      splice.append(error, List.of(Splice.member("data", "{" + Splice.member("uri", uriJson) + "}")));
      return;
    }
    List<Json.Member> dataMembers = Json.members(bytes, data.value());
    if (dataMembers == null) {
      splice.replace(data.value(), "{" + Splice.member("uri", uriJson) + "}");
      return;
    }
    Json.Member existing = Splice.find(dataMembers, "uri");
    if (existing != null) {
      splice.replace(existing.value(), uriJson);
    } else {
      splice.append(data.value(), List.of(Splice.member("uri", uriJson)));
    }
  }
}
