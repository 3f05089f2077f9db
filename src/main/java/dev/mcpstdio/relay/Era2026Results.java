package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.ErrorCodes;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.protocol.MetaKeys;
import dev.mcpstdio.stdio.Log;
import java.util.Set;

/**
 * A 2026-era answer on its way to the host. Every {@code tools/list} page teaches {@link
 * ToolHeaders} the tools' {@code x-mcp-header} annotations and loses the tools whose annotations
 * are invalid. For a 2025-era host the result loses what its era does not have: {@code
 * resultType}, the caching hints {@code ttlMs} and {@code cacheScope}, and {@code
 * _meta.subscriptionId}. A {@code resultType} other than {@code complete} (absent means complete)
 * cannot reach a 2025-era host: an {@code input_required} that got past the {@link MrtrBridge}
 * (which carries it only for {@code tools/call}, {@code resources/read} and {@code prompts/get},
 * the methods that may ask) becomes an error that says so, any other value an error naming it.
 */
final class Era2026Results implements Interceptor {

  static final Set<String> NOT_FOR_2025_HOSTS = Set.of("resultType", "ttlMs", "cacheScope");

  private final Era2026Session session;
  private final ToolHeaders tools;
  private final Log log;

  Era2026Results(Era2026Session session, ToolHeaders tools, Log log) {
    this.session = session;
    this.tools = tools;
    this.log = log;
  }

  @Override
  public Outcome intercept(Chain chain) throws InterruptedException {
    Call call = chain.call();
    Outcome outcome = chain.proceed(call);
    if (!(call.message() instanceof Request request) || !(outcome instanceof Outcome.Delivered d)
        || d.answer() == null || d.answer().isError() || d.answer().result() == null) {
      return outcome;
    }
    Response answer = d.answer();
    if ("tools/list".equals(request.method())) {
      answer = tools.learn(answer);
    }
    if (!session.hostSpeaks2026()) {
      byte[] bytes = answer.bytes();
      String type = Json.string(bytes, Json.field(bytes, answer.result(), "resultType"));
      if (type != null && !type.equals("complete")) {
        log.warn(request.method() + " " + request.id() + ": the server answered with resultType " + Json.quote(type)
            + ", which a 2025-era host cannot take");
        String why = type.equals("input_required")
            ? "the server asked for input to finish " + request.method() + ", which MCP 2026-07-28 allows only for "
                + "tools/call, resources/read and prompts/get"
            : "the server answered with resultType " + Json.quote(type) + ", unknown to this relay";
        return d.withAnswer(Outcome.answeredLocally(answer.id(), ErrorCodes.UPSTREAM_ERROR, why).answer());
      }
      answer = Era2026Wire.withoutResultMembers(answer, NOT_FOR_2025_HOSTS, Set.of(MetaKeys.SUBSCRIPTION_ID));
    }
    return answer == d.answer() ? outcome : d.withAnswer(answer);
  }
}
