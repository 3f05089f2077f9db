package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A listen stream's {@code resourceSubscriptions} over a 2026-era child (a scripted {@code sh}
 * server that answers {@code server/discover}): the child has no {@code resources/subscribe}, so
 * the gateway subscribes it with a listen of its own for the URI, re-tags the child's updates with
 * the client's listen id, and cancels its listen when the client's stream is gone.
 */
class Serve2026ChildListenTest {

  /**
   * A 2026-era child whose resource listens are acknowledged and recorded in {@code GOT}; a
   * {@code touch} call sends an update of db://a tagged with that listen's id; cancellations and
   * any {@code resources/subscribe} are recorded too.
   */
  private static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      got() { printf '%s\\n' "$1" >> "GOT"; }
      while read -r line; do
        case "$line" in
          *'"method":"server/discover"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"resources":{"subscribe":true}},"serverInfo":{"name":"sh-2026","version":"1"}}}\\n' "$(id_of "$line")" ;;
          *'"method":"subscriptions/listen"'*'"resourceSubscriptions"'*) resource_listen=$(id_of "$line"); got "listen $resource_listen"
            printf '{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["db://a"]},"_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}\\n' "$resource_listen" ;;
          *'"method":"subscriptions/listen"'*) ;;
          *'"method":"notifications/cancelled"'*) got "cancelled $line" ;;
          *'"method":"resources/subscribe"'*) got "subscribe $line" ;;
          *'"name":"touch"'*)
            printf '{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"db://a","_meta":{"io.modelcontextprotocol/subscriptionId":%s}}}\\n' "$resource_listen"
            printf '{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[]}}\\n' "$(id_of "$line")" ;;
          *) printf '{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}\\n' "$(id_of "$line")" ;;
        esac
      done
      """;

  private static final String META = "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
      + "\"io.modelcontextprotocol/clientCapabilities\":{}}";

  @TempDir
  Path dir;

  @Test
  void aResourceSubscriptionOnA2026EraChildIsAListenOfTheGatewaysOwnReTaggedAndCancelledWithTheStream() throws Exception {
    Path got = dir.resolve("got");
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(CHILD.replace("\"GOT\"", "'" + got + "'"))))) {
      String listen = "{\"jsonrpc\":\"2.0\",\"id\":\"L9\",\"method\":\"subscriptions/listen\",\"params\":{\"notifications\":"
          + "{\"resourceSubscriptions\":[\"db://a\"]}," + META + "}}";
      HttpRequest r = serve.request(null).header("Content-Type", "application/json").header("Accept", "text/event-stream")
          .header("MCP-Protocol-Version", "2026-07-28").header("Mcp-Method", "subscriptions/listen")
          .POST(HttpRequest.BodyPublishers.ofString(listen)).build();
      HttpResponse<Stream<String>> stream = serve.http.send(r, HttpResponse.BodyHandlers.ofLines());
      assertThat(stream.statusCode()).isEqualTo(200);
      Iterator<String> lines = stream.body().iterator();
      assertThat(ServeHarness.nextEvent(lines)).contains("notifications/subscriptions/acknowledged", "\"resourceSubscriptions\":[\"db://a\"]",
          "\"io.modelcontextprotocol/subscriptionId\":\"L9\"");
      Await.until("the child to get the gateway's listen for db://a", Duration.ofSeconds(10),
          () -> read(got).contains("listen "));
      Matcher gatewayListen = Pattern.compile("listen (\"[^\"]+\")").matcher(Files.readString(got));
      assertThat(gatewayListen.find()).isTrue();
      assertThat(gatewayListen.group(1)).startsWith("\"mcp-stdio/serve/");

      HttpResponse<String> touched = serve.post(null, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":"
          + "{\"name\":\"touch\",\"arguments\":{}," + META + "}}", false, "MCP-Protocol-Version", "2026-07-28", "Mcp-Method",
          "tools/call", "Mcp-Name", "touch");
      assertThat(touched.statusCode()).isEqualTo(200);
      assertThat(ServeHarness.nextEvent(lines)).isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/resources/updated\","
          + "\"params\":{\"uri\":\"db://a\",\"_meta\":{\"io.modelcontextprotocol/subscriptionId\":\"L9\"}}}");

      stream.body().close();
      Await.until("the gateway's listen to be cancelled at the child", Duration.ofSeconds(10),
          () -> read(got).contains("cancelled"));
      assertThat(Files.readString(got)).contains("\"requestId\":" + gatewayListen.group(1)).doesNotContain("subscribe {");
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file) : "";
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
