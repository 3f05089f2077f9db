package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.NodePeers;
import dev.mcpstdio.testing.Await;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** {@code /metrics} on a real gateway with real children: what is counted, its format, and its protection. */
class ServeMetricsEndpointTest {

  private static HttpResponse<String> scrape(ServeHarness serve, String... headers) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + serve.gateway.port() + "/metrics"))
        .timeout(Duration.ofSeconds(10)).GET();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      b.header(headers[i], headers[i + 1]);
    }
    return serve.http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String metrics(ServeHarness serve) throws Exception {
    HttpResponse<String> r = scrape(serve);
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }

  @Test
  void sessionsChildrenMessagesAndRefusalsOfBothErasAreCountedAndPromtoolAcceptsTheText() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(Serve2026EndpointTest.CHILD)))) {
      String session = serve.initialize(ServeHarness.INIT.replace("2025-11-25", "2025-06-18"));
      assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}", false).statusCode()).isEqualTo(200);
      assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\"}", false,
          "Origin", "https://evil.example").statusCode()).isEqualTo(403);
      assertThat(serve.post("no-such-session", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}", false).statusCode()).isEqualTo(404);
      assertThat(metrics(serve)).contains("mcp_stdio_serve_sessions_open 1.0", "mcp_stdio_serve_children_alive 1.0",
          "mcp_stdio_serve_children_spawned_total 1.0");
      assertThat(serve.delete(session).statusCode()).isEqualTo(200);
      Await.until("the session's child to be reaped and counted so", Duration.ofSeconds(20), () -> {
        String now = unchecked(serve);
        return now.contains("mcp_stdio_serve_children_alive 0.0") && now.contains("mcp_stdio_serve_sessions_open 0.0");
      });
      assertThat(serve.post(null, Serve2026EndpointTest.request(3, "tools/list", null), false,
          "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/list").statusCode()).isEqualTo(200);

      HttpResponse<String> r = scrape(serve);
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
      assertThat(r.body()).contains(
          "mcp_stdio_serve_messages_total{era=\"2025\",method=\"initialize\",outcome=\"ok\"} 1.0",
          "mcp_stdio_serve_messages_total{era=\"2025\",method=\"notifications/initialized\",outcome=\"ok\"} 1.0",
          "mcp_stdio_serve_messages_total{era=\"2025\",method=\"tools/list\",outcome=\"ok\"} 1.0",
          "mcp_stdio_serve_messages_total{era=\"2025\",method=\"ping\",outcome=\"client_error\"} 1.0",
          "mcp_stdio_serve_messages_total{era=\"2026\",method=\"tools/list\",outcome=\"ok\"} 1.0",
          "mcp_stdio_serve_message_duration_seconds_count{era=\"2026\",method=\"tools/list\"} 1",
          "mcp_stdio_serve_rejected_requests_total{reason=\"origin\"} 1.0",
          "mcp_stdio_serve_sessions_opened_total{transport=\"streamable_http\"} 1.0");
      // the 2026 era's pool answered from a child of its own (and may have started one ahead of need)
      assertThat(value(r.body(), "mcp_stdio_serve_children_spawned_total")).isGreaterThanOrEqualTo(2);
      assertThat(value(r.body(), "mcp_stdio_serve_children_alive")).isGreaterThanOrEqualTo(1);
      assertThat(value(r.body(), "mcp_stdio_serve_received_bytes_total")).isGreaterThan(400);
      assertThat(value(r.body(), "mcp_stdio_serve_sent_bytes_total")).isGreaterThan(400);
      promtoolAccepts(r.body());

      HttpResponse<String> open = scrape(serve, "Accept", "application/openmetrics-text; version=1.0.0; charset=utf-8");
      assertThat(open.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t).startsWith("application/openmetrics-text"));
      assertThat(open.body()).endsWith("# EOF\n");
    }
  }

  @Test
  void withATokenTheMetricsNeedItAndTheRefusalsAreCounted() throws Exception {
    String token = "metrics-token-0123456789abcdef";
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.sh(Serve2026EndpointTest.CHILD)).withAuthToken(token))) {
      HttpResponse<String> refused = scrape(serve);
      assertThat(refused.statusCode()).isEqualTo(401);
      assertThat(refused.body()).doesNotContain("mcp_stdio");
      assertThat(scrape(serve, "Authorization", "Bearer wrong").statusCode()).isEqualTo(401);
      HttpResponse<String> r = scrape(serve, "Authorization", "Bearer " + token);
      assertThat(r.statusCode()).isEqualTo(200);
      // the scrape that reads them completes after they are counted: both refusals came first
      assertThat(r.body()).contains("mcp_stdio_serve_rejected_requests_total{reason=\"auth_missing\"} 1.0",
          "mcp_stdio_serve_rejected_requests_total{reason=\"auth_invalid\"} 1.0");
      assertThat(serve.log()).doesNotContain(token);
    }
  }

  private static String unchecked(ServeHarness serve) {
    try {
      return metrics(serve);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static double value(String text, String series) {
    return text.lines().filter(l -> l.startsWith(series + " ")).mapToDouble(l -> Double.parseDouble(l.substring(series.length() + 1)))
        .findFirst().orElseThrow(() -> new AssertionError(series + " not in\n" + text));
  }

  /** {@code promtool check metrics} (Debian's prometheus package; CI installs it) accepts the text, lint included. */
  static void promtoolAccepts(String text) throws Exception {
    java.nio.file.Path promtool = NodePeers.which("promtool");
    Assumptions.assumeTrue(promtool != null || "true".equals(System.getenv("CI")), "promtool is not installed");
    assertThat(promtool).as("promtool on the PATH (CI installs Debian's prometheus package)").isNotNull();
    Process p = new ProcessBuilder(List.of(promtool.toString(), "check", "metrics")).redirectErrorStream(true).start();
    try (var in = p.getOutputStream()) {
      in.write(text.getBytes(StandardCharsets.UTF_8));
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("promtool check metrics said:\n" + out).isZero();
  }
}
