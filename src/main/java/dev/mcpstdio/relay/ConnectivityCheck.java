package dev.mcpstdio.relay;

import dev.mcpstdio.net.IdleWatchdog;
import dev.mcpstdio.jsonrpc.Json;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Request;
import dev.mcpstdio.jsonrpc.JsonRpcMessage.Response;
import dev.mcpstdio.jsonrpc.JsonSpan;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.stdio.Log;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

/**
 * {@code --check}: one initialize exchange, reported on stderr as a short checklist, exit 0 when
 * the server is reachable and speaks MCP, 1 otherwise.
 *
 * <p>Nothing of the server's bodies is printed beyond the fields named (error bodies can carry
 * session ids or stack traces). The session the check opened is ended with DELETE.
 */
public final class ConnectivityCheck {

  static final String PROBE =
      "{\"jsonrpc\":\"2.0\",\"id\":\"mcp-stdio/check\",\"method\":\"initialize\",\"params\":"
          + "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
          + "\"clientInfo\":{\"name\":\"mcp-stdio\",\"version\":\"" + dev.mcpstdio.Version.get() + "\"}}}";

  private ConnectivityCheck() {}

  public static int run(RelayConfig config, HttpClient client, Log log) throws InterruptedException {
    return run(config, client, log, null);
  }

  /** @param auth the relay's own sign-in (OAuth: a cold cache signs in first, through the server's 401), or null */
  public static int run(RelayConfig config, HttpClient client, Log log, Authorization auth) throws InterruptedException {
    try (IdleWatchdog.Sweeper sweeper = new IdleWatchdog.Sweeper("mcp-stdio-watchdog")) {
      Upstream upstream = new Upstream(client, config, log, sweeper, message -> {}, Sleeper.REAL);
      log.notice("checking " + Relay.origin(config.url()));
      Request probe = (Request) JsonRpcCodec.parse(PROBE.getBytes(StandardCharsets.UTF_8));
      Outcome outcome;
      if (auth == null) {
        outcome = upstream.post(Call.internal(probe));
      } else {
        upstream.requests().authorization(auth);
        outcome = Interceptor.run(java.util.List.of(new AuthLink(auth)), upstream::post, Call.internal(probe));
      }
      return report(outcome, upstream, log);
    } catch (MalformedMessageException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int report(Outcome outcome, Upstream upstream, Log log) throws InterruptedException {
    switch (outcome) {
      case Outcome.Failed f -> {
        log.notice(f.kind() == Outcome.Kind.UNAUTHORIZED ? "✗ " + f.reason() : "✗ cannot reach the server: " + f.reason());
        return 1;
      }
      case Outcome.Refused r -> {
        String hint = r.status() == 401
            ? " (the server requires authentication: use --bearer-token or -H 'Authorization: ...')"
            : r.status() == 403 ? " (forbidden: the credentials lack access)" : "";
        log.notice("✗ HTTP " + r.status() + hint);
        return 1;
      }
      case Outcome.Accepted a -> {
        log.notice("✗ HTTP " + a.status() + " without an initialize result: not an MCP endpoint?");
        return 1;
      }
      case Outcome.Delivered d -> {
        log.notice("✓ Connected (HTTP " + d.status() + ")");
        Response answer = d.answer();
        if (answer == null) {
          log.notice("? the reply was not an initialize result; the endpoint is reachable but may not speak MCP");
          return 0;
        }
        if (answer.isError()) {
          endSession(upstream, d);
          Map<String, JsonSpan> error = Json.fields(answer.bytes(), answer.error());
          String message = error == null ? null : Json.string(answer.bytes(), error.get("message"));
          String code = error == null || error.get("code") == null ? "?" : error.get("code").text(answer.bytes());
          log.notice("✗ MCP initialize failed: error " + code + (message == null ? "" : " " + message));
          return 1;
        }
        describe(answer, d, log);
        endSession(upstream, d);
        return 0;
      }
    }
  }

  private static void describe(Response answer, Outcome.Delivered d, Log log) {
    byte[] b = answer.bytes();
    Map<String, JsonSpan> result = Json.fields(b, answer.result());
    if (result == null) {
      log.notice("? initialize result is not an object");
      return;
    }
    Map<String, JsonSpan> info = Json.fields(b, result.get("serverInfo"));
    String name = info == null ? null : Json.string(b, info.get("name"));
    String version = info == null ? null : Json.string(b, info.get("version"));
    String protocol = Json.string(b, result.get("protocolVersion"));
    log.notice("✓ MCP initialize: server=" + (name == null ? "?" : name)
        + (version == null ? "" : " v" + version) + ", protocol=" + (protocol == null ? "?" : protocol));
    Map<String, JsonSpan> caps = Json.fields(b, result.get("capabilities"));
    log.notice("✓ Capabilities: tools=" + has(caps, "tools") + ", resources=" + has(caps, "resources")
        + ", prompts=" + has(caps, "prompts"));
    String session = SessionLink.sessionIdOf(d.headers());
    if (session != null) {
      log.notice("✓ Session ID: " + (session.length() > 8 ? session.substring(0, 8) + "…" : session));
    }
  }

  private static String has(Map<String, JsonSpan> caps, String name) {
    return caps != null && caps.containsKey(name) ? "yes" : "no";
  }

  private static void endSession(Upstream upstream, Outcome.Delivered d)
      throws InterruptedException {
    String session = SessionLink.sessionIdOf(d.headers());
    if (session != null) {
      upstream.delete(Map.of(SessionLink.SESSION_HEADER, session), Duration.ofSeconds(2));
    }
  }
}
