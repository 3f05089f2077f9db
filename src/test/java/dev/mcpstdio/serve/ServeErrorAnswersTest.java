package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** serve's own error answers: they carry the request's id when it is known, and bad UTF-8 is refused. */
class ServeErrorAnswersTest {

  private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":\"call-7\",\"method\":\"tools/list\"}";

  /** A child that answers initialize and keeps every later line it reads in {@code file}. */
  private static ServeConfig recording(Path file) {
    return ServeHarness.config(ServeHarness.shAfterInit("cat > '" + file + "'"));
  }

  @Test
  void errorsAboutTheSessionOrTheVersionCarryTheRequestsId(@TempDir Path dir) throws Exception {
    try (ServeHarness serve = ServeHarness.start(recording(dir.resolve("in")))) {
      HttpResponse<String> noSession = serve.post(null, CALL, false);
      assertThat(noSession.statusCode()).isEqualTo(400);
      assertThat(noSession.body()).contains("\"id\":\"call-7\"").contains("Mcp-Session-Id required");

      HttpResponse<String> unknown = serve.post("0123456789abcdef0123456789abcdef", CALL, false);
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(unknown.body()).contains("\"id\":\"call-7\"");

      String session = serve.initialize();
      HttpResponse<String> version = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":42,\"method\":\"ping\"}", false,
          "MCP-Protocol-Version", "1999-01-01");
      assertThat(version.statusCode()).isEqualTo(400);
      assertThat(version.body()).contains("\"id\":42").contains("unsupported MCP-Protocol-Version");

      // a notification has no id to carry
      HttpResponse<String> notification = serve.post("0123456789abcdef0123456789abcdef", ServeHarness.INITIALIZED, false);
      assertThat(notification.statusCode()).isEqualTo(404);
      assertThat(notification.body()).contains("\"id\":null");
    }
  }

  @Test
  void httpSseErrorsCarryTheRequestsId(@TempDir Path dir) throws Exception {
    try (ServeHarness serve = ServeHarness.start(recording(dir.resolve("in")))) {
      HttpResponse<String> unknown = legacyPost(serve, "/messages?sessionId=0123456789abcdef0123456789abcdef", CALL);
      assertThat(unknown.statusCode()).isEqualTo(404);
      assertThat(unknown.body()).contains("\"id\":\"call-7\"").contains("unknown or expired session");
      HttpResponse<String> missing = legacyPost(serve, "/messages", CALL);
      assertThat(missing.statusCode()).isEqualTo(400);
      assertThat(missing.body()).contains("\"id\":\"call-7\"").contains("sessionId required");
    }
  }

  @Test
  void invalidUtf8IsRefusedAsAParseErrorAndNeverReachesTheChild(@TempDir Path dir) throws Exception {
    Path received = dir.resolve("in");
    try (ServeHarness serve = ServeHarness.start(recording(received))) {
      String session = serve.initialize();
      byte[] bad = utf8With("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"", new byte[] {(byte) 0xC3, (byte) 0x28},
          "\"}}");
      HttpResponse<String> reply = serve.http.send(serve.request(session).header("Content-Type", "application/json")
          .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(bad)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reply.statusCode()).isEqualTo(400);
      assertThat(reply.body()).contains("-32700").contains("not valid UTF-8");
      // an overlong encoding of '/' and a lone surrogate are refused the same way
      for (byte[] sequence : new byte[][] {{(byte) 0xC0, (byte) 0xAF}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80}}) {
        byte[] notification = utf8With("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\",\"params\":{\"v\":\"", sequence, "\"}}");
        HttpResponse<String> refused = serve.http.send(serve.request(session).header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(notification)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(400);
        assertThat(refused.body()).contains("not valid UTF-8");
      }
      // the session goes on: a good notification after them reaches the child, and it is all that does
      assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/after\"}", false).statusCode())
          .isEqualTo(202);
      Await.until("the child to receive the good notification",
          () -> Files.exists(received) && read(received).contains("notifications/after"));
      assertThat(read(received)).doesNotContain("tools/call").doesNotContain("notifications/x");
    }
  }

  @Test
  void invalidUtf8OnTheHttpSseEndpointIsRefusedToo(@TempDir Path dir) throws Exception {
    try (ServeHarness serve = ServeHarness.start(recording(dir.resolve("in")))) {
      HttpResponse<Stream<String>> stream = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/sse"))
          .header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines());
      Iterator<String> lines = stream.body().iterator();
      String endpoint = null;
      while (endpoint == null && lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data:")) {
          endpoint = line.substring(5).trim();
        }
      }
      byte[] bad = utf8With("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"x\":\"", new byte[] {(byte) 0xFF},
          "\"}}");
      HttpResponse<String> reply = serve.http.send(HttpRequest.newBuilder(serve.url.resolve(endpoint))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofByteArray(bad)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reply.statusCode()).isEqualTo(400);
      assertThat(reply.body()).contains("-32700").contains("not valid UTF-8");
      stream.body().close();
    }
  }

  @Test
  void aWellFormedRequestStillWorks(@TempDir Path dir) throws Exception {
    try (ServeHarness serve = ServeHarness.start(recording(dir.resolve("in")))) {
      HttpResponse<String> init = serve.post(null, INIT.replace("\"test\"", "\"t\u00e9st \u2603\""), false);
      assertThat(init.statusCode()).isEqualTo(200);
    }
  }

  private static HttpResponse<String> legacyPost(ServeHarness serve, String target, String json) throws Exception {
    return serve.http.send(HttpRequest.newBuilder(serve.url.resolve(target)).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
  }

  private static byte[] utf8With(String before, byte[] raw, String after) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(raw);
    out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static String read(Path file) {
    try {
      return Files.readString(file, StandardCharsets.ISO_8859_1);
    } catch (java.io.IOException e) {
      return "";
    }
  }
}
