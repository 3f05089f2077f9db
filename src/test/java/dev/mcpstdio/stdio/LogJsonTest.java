package dev.mcpstdio.stdio;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Jsons;
import tools.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --log-format json}: one object per line, tags as fields, the same redaction. */
class LogJsonTest {

  private final ByteArrayOutputStream sink = new ByteArrayOutputStream();
  private final Redactor redactor = new Redactor();
  private final Log log = new Log(sink, Log.Level.DEBUG, redactor, Log.Format.JSON);

  private List<JsonNode> lines() throws Exception {
    List<JsonNode> out = new ArrayList<>();
    String text = sink.toString(StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n");
    for (String line : text.split("\n")) {
      out.add(Jsons.parse(line));
    }
    return out;
  }

  @Test
  void everyLineIsOneObjectWithTimeLevelAndMessage() throws Exception {
    long before = System.currentTimeMillis();
    log.debug("d");
    log.info("two\nlines");
    log.notice("n");
    log.warn("w");
    log.error("e\u001b[31m");
    List<JsonNode> lines = lines();
    assertThat(lines).hasSize(5);
    assertThat(lines).extracting(l -> l.get("level").asString()).containsExactly("debug", "info", "notice", "warn", "error");
    assertThat(lines.get(1).get("message").asString()).isEqualTo("two\nlines");
    assertThat(lines.get(4).get("message").asString()).isEqualTo("e\u001b[31m"); // escaped on the wire, one line still
    assertThat(Instant.parse(lines.get(0).get("time").asString()).toEpochMilli()).isBetween(before - 1, System.currentTimeMillis());
  }

  @Test
  void tagsBecomeFieldsAndChildOutputIsAnObjectOfItsOwn() throws Exception {
    log.tagged("session 3f0c").info("started");
    log.tagged("pool child 7").warn("slow");
    log.tagged("oauth").info("issued");
    log.tagged("session 3f0c").output("node", "Error: boom\r\n[mcp-stdio] fake line");
    List<JsonNode> lines = lines();
    assertThat(lines.get(0).get("session").asString()).isEqualTo("3f0c");
    assertThat(lines.get(1).get("component").asString()).isEqualTo("pool");
    assertThat(lines.get(1).get("child").asString()).isEqualTo("7");
    assertThat(lines.get(2).get("component").asString()).isEqualTo("oauth");
    JsonNode child = lines.get(3);
    assertThat(child.get("session").asString()).isEqualTo("3f0c");
    assertThat(child.get("source").asString()).isEqualTo("node");
    assertThat(child.get("stderr").asString()).isEqualTo("Error: boom\\x0d\\x0a[mcp-stdio] fake line");
    assertThat(child.has("message")).isFalse(); // never mistaken for one of the gateway's own lines
  }

  @Test
  void eventsCarryTypedFieldsAndSecretsAreRedactedEverywhere() throws Exception {
    redactor.addSecret("s3cr3t-token-value");
    log.event(Log.Level.INFO, "http: GET /x s3cr3t-token-value", "status", 200, "durationMs", 12L, "path", "/x?k=s3cr3t-token-value",
        "session", null);
    log.event(Log.Level.DEBUG, "quiet");
    new Log(sink, Log.Level.INFO, redactor, Log.Format.JSON).event(Log.Level.DEBUG, "below the threshold", "a", 1);
    String raw = sink.toString(StandardCharsets.UTF_8);
    assertThat(raw).doesNotContain("s3cr3t-token-value");
    List<JsonNode> lines = lines();
    assertThat(lines).hasSize(2);
    JsonNode event = lines.get(0);
    assertThat(event.get("status").isInt()).isTrue();
    assertThat(event.get("status").asInt()).isEqualTo(200);
    assertThat(event.get("durationMs").asLong()).isEqualTo(12);
    assertThat(event.has("session")).isFalse();
    assertThat(event.get("path").asString()).startsWith("/x?k=").doesNotContain("s3cr3t");
  }

  @Test
  void inTextAnEventIsItsMessageAlone() {
    ByteArrayOutputStream text = new ByteArrayOutputStream();
    new Log(text, Log.Level.INFO, redactor).event(Log.Level.INFO, "http: GET /x 200", "status", 200);
    new Log(text, Log.Level.INFO, redactor).event(Log.Level.WARN, "careful", "status", 500);
    assertThat(text.toString(StandardCharsets.UTF_8)).isEqualTo("[mcp-stdio] http: GET /x 200\n[mcp-stdio] warning: careful\n");
  }
}
