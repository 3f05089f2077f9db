package dev.mcpstdio.serve.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.expositionformats.ExpositionFormats;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ServeMetricsTest {

  private final ServeMetrics metrics = new ServeMetrics("9.9.9", new ServeMetrics.State(() -> 3, () -> 7, () -> 2, () -> 4,
      () -> 11, () -> 5));

  private String text() throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ExpositionFormats.init().getPrometheusTextFormatWriter().write(out, metrics.registry().scrape());
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void theGatewaysStateIsReadWhenScraped() throws IOException {
    assertThat(text()).contains("mcp_stdio_build_info{version=\"9.9.9\"} 1",
        "mcp_stdio_serve_sessions_open 3.0",
        "mcp_stdio_serve_sessions_opened_total{transport=\"streamable_http\"} 7.0",
        "mcp_stdio_serve_sessions_opened_total{transport=\"http_sse\"} 2.0",
        "mcp_stdio_serve_children_alive 4.0",
        "mcp_stdio_serve_children_spawned_total 11.0",
        "mcp_stdio_serve_connections_open 5.0");
  }

  @Test
  void messagesAreCountedByEraMethodAndOutcomeWithBoundedLabels() throws IOException {
    metrics.message("2025", "tools/call", 200, false, 3_000_000);
    metrics.message("2025", "tools/call", 200, false, 40_000_000);
    metrics.message("2026", "tools/call", 504, false, 1_000_000);
    metrics.message("2025", "x/made-up-by-a-client-" + System.nanoTime(), 404, false, 1);
    metrics.message("2025", null, 202, false, 1);
    metrics.message("2026", "ping", 200, true, 1);
    String text = text();
    assertThat(text).contains(
        "mcp_stdio_serve_messages_total{era=\"2025\",method=\"tools/call\",outcome=\"ok\"} 2.0",
        "mcp_stdio_serve_messages_total{era=\"2026\",method=\"tools/call\",outcome=\"server_error\"} 1.0",
        "mcp_stdio_serve_messages_total{era=\"2025\",method=\"other\",outcome=\"client_error\"} 1.0",
        "mcp_stdio_serve_messages_total{era=\"2025\",method=\"response\",outcome=\"ok\"} 1.0",
        "mcp_stdio_serve_messages_total{era=\"2026\",method=\"ping\",outcome=\"aborted\"} 1.0",
        "mcp_stdio_serve_message_duration_seconds_bucket{era=\"2025\",method=\"tools/call\",le=\"0.005\"} 1",
        "mcp_stdio_serve_message_duration_seconds_bucket{era=\"2025\",method=\"tools/call\",le=\"0.05\"} 2",
        "mcp_stdio_serve_message_duration_seconds_count{era=\"2025\",method=\"tools/call\"} 2");
    assertThat(text).doesNotContain("made-up");
  }

  @Test
  void rejectionsBytesAndOAuthOutcomesAreCounted() throws IOException {
    metrics.rejected(ServeMetrics.Rejection.ORIGIN);
    metrics.rejected(ServeMetrics.Rejection.ORIGIN);
    metrics.rejected(ServeMetrics.Rejection.CAPACITY);
    metrics.bytes(100, 2000);
    metrics.bytes(0, 5);
    metrics.oauth("token", "refused");
    metrics.tokenChecked("rejected");
    assertThat(text()).contains("mcp_stdio_serve_rejected_requests_total{reason=\"origin\"} 2.0",
        "mcp_stdio_serve_rejected_requests_total{reason=\"capacity\"} 1.0",
        "mcp_stdio_serve_rejected_requests_total{reason=\"host\"} 0.0",
        "mcp_stdio_serve_received_bytes_total 100.0", "mcp_stdio_serve_sent_bytes_total 2005.0",
        "mcp_stdio_serve_oauth_requests_total{endpoint=\"token\",outcome=\"refused\"} 1.0",
        "mcp_stdio_serve_token_checks_total{verdict=\"rejected\"} 1.0");
  }

  @Test
  void anAuthorizationRedirectWithAnErrorIsARefusal() {
    assertThat(RequestMetrics.oauthOutcome(302, null, "http://127.0.0.1:5/cb?code=abc&state=s&iss=x")).isEqualTo("ok");
    assertThat(RequestMetrics.oauthOutcome(302, null, "http://127.0.0.1:5/cb?error=access_denied&state=s")).isEqualTo("refused");
    assertThat(RequestMetrics.oauthOutcome(302, null, "http://127.0.0.1:5/cb?state=s&error=invalid_scope")).isEqualTo("refused");
    assertThat(RequestMetrics.oauthOutcome(302, null, "https://idp.example/authorize?client_id=terror=1")).isEqualTo("ok");
    assertThat(RequestMetrics.oauthOutcome(400, null, null)).isEqualTo("refused");
    assertThat(RequestMetrics.oauthOutcome(200, new java.io.IOException("reset"), null)).isEqualTo("error");
    assertThat(RequestMetrics.oauthOutcome(503, null, null)).isEqualTo("error");
  }
}
