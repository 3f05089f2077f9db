package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.Jsons;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** serve with {@code --log-format json}: the access log's fields and a child's stderr as fields. */
class ServeJsonLogTest {

  @Test
  void theAccessLogAndAChildsStderrAreObjectsWithFields() throws Exception {
    String child = "read -r init; echo 'starting up' >&2; echo '" + ServeHarness.initResult("json-child") + "'; cat >/dev/null";
    try (ServeHarness serve = ServeHarness.startOn(ServeHarness.config(ServeHarness.sh(child)), 0, Log.Format.JSON)) {
      String session = serve.initialize();
      Await.until("the child's stderr line in the log", Duration.ofSeconds(20), () -> serve.log().contains("starting up"));
      Await.until("the access log of the initialized notification", Duration.ofSeconds(20),
          () -> serve.log().contains("\"rpcMethod\":\"notifications/initialized\""));
      List<JsonNode> lines = serve.log().lines().map(Jsons::parse).toList();
      JsonNode init = lines.stream().filter(l -> "initialize".equals(text(l, "rpcMethod"))).findFirst().orElseThrow();
      assertThat(text(init, "component")).isEqualTo("http");
      assertThat(text(init, "method")).isEqualTo("POST");
      assertThat(text(init, "path")).isEqualTo("/mcp");
      assertThat(init.get("status").asInt()).isEqualTo(200);
      assertThat(init.get("durationMs").isNumber()).isTrue();
      assertThat(text(init, "requestId")).isEqualTo("1");
      assertThat(text(init, "session")).isEqualTo(session.substring(0, 8));
      JsonNode stderr = lines.stream().filter(l -> l.has("stderr")).findFirst().orElseThrow();
      assertThat(text(stderr, "stderr")).isEqualTo("starting up");
      assertThat(text(stderr, "session")).isEqualTo(session.substring(0, 8));
      assertThat(stderr.has("message")).isFalse();
      assertThat(lines).allSatisfy(l -> assertThat(l.has("time") && l.has("level")).isTrue());
    }
  }

  private static String text(JsonNode node, String field) {
    return node.has(field) ? node.get(field).asString() : null;
  }
}
