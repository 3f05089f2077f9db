package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * W3C trace context through serve: a 2026-era POST's {@code traceparent}/{@code tracestate}/{@code
 * baggage} headers reach the child in {@code params._meta} where the client left them out; the
 * body's own keys win, malformed headers are dropped, and a 2025-era session's messages reach the
 * child unchanged. The child writes every call it receives to its stderr, which the log shows.
 */
class ServeTraceContextTest {

  static final String PARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
  static final String OTHER = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

  static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      read -r init; id=$(id_of "$init")
      printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{\\"tools\\":{}},\\"serverInfo\\":{\\"name\\":\\"tracer\\",\\"version\\":\\"1\\"}}}"
      while read -r line; do
        id=$(id_of "$line")
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"tools/list"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"tools\\":[{\\"name\\":\\"echo\\",\\"inputSchema\\":{\\"type\\":\\"object\\"}}]}}" ;;
          *'"method":"tools/call"'*) printf 'saw %s\\n' "$line" >&2
            printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[]}}" ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
        esac
      done
      """;

  private static ServeHarness serve;

  @BeforeAll
  static void start() throws Exception {
    serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD)));
  }

  @AfterAll
  static void stop() throws Exception {
    serve.close();
  }

  /** A 2026-era tools/call marked {@code mark}, with {@code meta} added to its {@code _meta}; returns the line the child received. */
  private static String call2026(String mark, String meta, String... headers) throws Exception {
    String body = "{\"jsonrpc\":\"2.0\",\"id\":\"" + mark + "\",\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
        + "\"arguments\":{\"mark\":\"" + mark + "\"}," + Serve2026EndpointTest.meta(meta) + "}}";
    List<String> all = new java.util.ArrayList<>(List.of("MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call",
        "Mcp-Name", "echo"));
    all.addAll(List.of(headers));
    HttpResponse<String> r = serve.post(null, body, false, all.toArray(String[]::new));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return seen(mark);
  }

  /** The line the child wrote to its stderr for the call marked {@code mark}. */
  private static String seen(String mark) {
    String needle = "\"mark\":\"" + mark + "\"";
    Await.until("the child receives the call marked " + mark, () -> serve.log().contains(needle));
    return serve.log().lines().filter(l -> l.contains(needle)).findFirst().orElseThrow();
  }

  @Test
  void traceHeadersReachTheChildInMeta() throws Exception {
    String line = call2026("t1", null, "traceparent", PARENT, "tracestate", "rojo=00f067aa0ba902b7", "tracestate", "congo=t61rcWkgMzE",
        "baggage", "user=alice");
    assertThat(line).contains("\"traceparent\":\"" + PARENT + "\"", "\"tracestate\":\"rojo=00f067aa0ba902b7,congo=t61rcWkgMzE\"",
        "\"baggage\":\"user=alice\"");
  }

  @Test
  void theBodysOwnTraceWinsOverTheHeaders() throws Exception {
    String line = call2026("t2", "\"traceparent\":\"" + OTHER + "\",\"tracestate\":\"mine=1\"",
        "traceparent", PARENT, "tracestate", "rojo=1");
    assertThat(line).contains("\"traceparent\":\"" + OTHER + "\"", "\"tracestate\":\"mine=1\"").doesNotContain(PARENT, "rojo=1");
  }

  @Test
  void malformedOrRepeatedTraceparentsAreDroppedWithTheirState() throws Exception {
    String line = call2026("t3", null, "traceparent", "00-zzzz-01", "tracestate", "rojo=1");
    assertThat(line).contains("\"mark\":\"t3\"").doesNotContain("traceparent", "tracestate");
    String twice = call2026("t4", null, "traceparent", PARENT, "traceparent", OTHER);
    assertThat(twice).contains("\"mark\":\"t4\"").doesNotContain("traceparent");
  }

  @Test
  void a2025SessionsMessagesReachTheChildUnchanged() throws Exception {
    String session = serve.initialize();
    String call = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{\"mark\":\"t5\"}}}";
    HttpResponse<String> r = serve.post(session, call, false, "traceparent", PARENT);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(seen("t5")).doesNotContain("traceparent");
  }
}
