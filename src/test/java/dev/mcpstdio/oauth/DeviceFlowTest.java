package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.FakeMcpServer.Reply;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The device authorization grant against a scriptable loopback authorization server. */
class DeviceFlowTest {

  private final FakeMcpServer as = new FakeMcpServer(e -> Reply.status(404));
  private final List<String> prompts = new CopyOnWriteArrayList<>();
  private final List<String> logs = new CopyOnWriteArrayList<>();
  private final List<Duration> slept = new CopyOnWriteArrayList<>();
  private final ClientIdentity client = new ClientIdentity("dev-client", null, null, ClientIdentity.NONE, null);

  @AfterEach
  void stop() {
    as.close();
  }

  private String base() {
    return "http://127.0.0.1:" + as.port();
  }

  private Discovery.ServerMetadata metadata(boolean device) {
    return new Discovery.ServerMetadata(base(), URI.create(base() + "/authorize"), URI.create(base() + "/token"), null,
        device ? URI.create(base() + "/device") : null, null, List.of(), List.of("S256"), List.of(), false, false, true);
  }

  private DeviceFlow flow() {
    OAuthHttp http = new OAuthHttp(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(), Duration.ofSeconds(5));
    return new DeviceFlow(http, prompts::add, logs::add, slept::add, Duration.ofSeconds(300));
  }

  @Test
  void theUserIsShownTheUrlAndCodeAndPollingKeepsTheServersPace() throws Exception {
    AtomicInteger polls = new AtomicInteger();
    as.script(e -> switch (e.path()) {
      case "/device" -> Reply.json("{\"device_code\":\"dc\",\"user_code\":\"WDJB-MJHT\",\"verification_url\":\"" + base()
          + "/activate\",\"expires_in\":\"600\",\"interval\":2}"); // Google's field name, a numeric string
      case "/token" -> switch (polls.incrementAndGet()) {
        case 1 -> Reply.body(400, "application/json", "{\"error\":\"authorization_pending\"}");
        case 2 -> Reply.body(400, "application/json", "{\"error\":\"slow_down\"}");
        case 3 -> Reply.body(503, "text/plain", "busy");
        default -> Reply.json("{\"access_token\":\"device-at\",\"refresh_token\":\"device-rt\",\"expires_in\":60}");
      };
      default -> Reply.status(404);
    });
    TokenResponse.Granted g = flow().run(metadata(true), client, "mcp", "https://mcp.example/mcp");
    assertThat(g.accessToken()).isEqualTo("device-at");
    assertThat(prompts).containsExactly("Device authorization required:", "  Open: " + base() + "/activate",
        "  Code (verify it matches): WDJB-MJHT", "  Waiting for authorization...");
    assertThat(slept).containsExactly(Duration.ofSeconds(2), Duration.ofSeconds(7), Duration.ofSeconds(7));
    Map<String, String> poll = FormEncoding.decode(as.exchanges().getLast().text());
    assertThat(poll).containsEntry("grant_type", "urn:ietf:params:oauth:grant-type:device_code")
        .containsEntry("device_code", "dc").containsEntry("client_id", "dev-client").containsEntry("resource", "https://mcp.example/mcp");
    Map<String, String> request = FormEncoding.decode(as.exchanges().getFirst().text());
    assertThat(request).containsEntry("scope", "mcp").containsEntry("client_id", "dev-client");
  }

  @Test
  void aDenialEndsTheFlowAndAServerWithoutTheGrantIsToldSo() {
    as.script(e -> e.path().equals("/device")
        ? Reply.json("{\"device_code\":\"dc\",\"user_code\":\"C\",\"verification_uri\":\"" + base() + "/a\","
            + "\"verification_uri_complete\":\"" + base() + "/a?code=C\"}")
        : Reply.body(400, "application/json", "{\"error\":\"access_denied\"}"));
    assertThatThrownBy(() -> flow().run(metadata(true), client, null, null)).hasMessage("the device sign-in failed: access_denied");
    assertThat(prompts).contains("  Open: " + base() + "/a?code=C", "  Code (verify it matches): C"); // the code shown anyway
    assertThatThrownBy(() -> flow().run(metadata(false), client, null, null)).hasMessageContaining("does not support the device");
  }

  @Test
  void anUnsafeVerificationUriIsRefused() {
    as.script(e -> Reply.json("{\"device_code\":\"dc\",\"user_code\":\"C\",\"verification_uri\":\"http://phish.example/a\"}"));
    assertThatThrownBy(() -> flow().run(metadata(true), client, null, null)).hasMessageContaining("plain http");
    assertThat(prompts).isEmpty();
  }
}
