package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.era2025.CallbackEndpoint;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Callbacks end to end: a session-scoped child announces a decision on stderr and waits on the
 * reply channel (with curl, as a shell server would); a host UI sees it on the events API and
 * answers.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeCallbacksTest {

  @BeforeAll
  static void curl() {
    Assumptions.assumeTrue(dev.mcpstdio.testing.NodePeers.which("curl") != null, "curl is needed for the shell child");
  }

  /** A child that announces callback c1 and prints what the reply channel says. */
  private static ChildSpec child() {
    return ServeHarness.shAfterInit("read n; echo '__CALLBACK__{\"type\":\"confirm\",\"id\":\"c1\",\"sessionId\":\"s\",\"message\":\"Deploy?\"}' >&2;"
        + " out=$(curl -s -w ' %{http_code}' -H \"Authorization: Bearer $MCP_STDIO_CALLBACK_TOKEN\" \"$MCP_STDIO_CALLBACK_URL/c1\");"
        + " echo \"reply channel said: $out\" >&2;"
        + " bad=$(curl -s -o /dev/null -w '%{http_code}' -H 'Authorization: Bearer nope' \"$MCP_STDIO_CALLBACK_URL/c1\");"
        + " echo \"with a wrong secret: $bad\" >&2; echo \"my secret is $MCP_STDIO_CALLBACK_TOKEN.\" >&2; cat >/dev/null");
  }

  @Test
  void aHostUiSeesTheCallbackAndItsReplyReachesTheWaitingChild() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child()))) {
      String session = serve.initialize();
      HttpResponse<String> stranger = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(stranger.statusCode()).isEqualTo(400); // the events API is the session's own
      HttpResponse<Stream<String>> events = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks"))
          .header("Accept", "text/event-stream").header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofLines());
      Iterator<String> lines = events.body().iterator();
      String data = null;
      while (data == null && lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data: ")) {
          data = line.substring(6);
        }
      }
      assertThat(data).isEqualTo("{\"callback\":{\"type\":\"confirm\",\"id\":\"c1\",\"sessionId\":\"s\",\"message\":\"Deploy?\"}}");
      HttpResponse<String> reply = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks/c1/reply"))
          .header("Mcp-Session-Id", session).POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"accept\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(reply.statusCode()).isEqualTo(200);
      serve.awaitLog("reply channel said: {\"id\":\"c1\",\"reply\":{\"action\":\"accept\"}} 200");
      serve.awaitLog("with a wrong secret: 401");
      HttpResponse<String> again = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks/c1/reply"))
          .header("Mcp-Session-Id", session).POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"decline\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(again.statusCode()).isEqualTo(409);
      serve.awaitLog("my secret is "); // a child that prints its secret: the gateway's log never shows it
      assertThat(serve.log()).contains("my secret is <redacted>.").doesNotContainPattern("[0-9a-f]{64}");
    }
  }

  @Test
  void aClientThatElicitsAnswersTheCallbackItselfAndTheChildGetsItsAnswer() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child()))) {
      String session = serve.initialize(); // INIT declares elicitation
      HttpResponse<Stream<String>> stream = serve.openStream(session);
      Iterator<String> lines = stream.body().iterator();
      String ask = ServeHarness.nextEvent(lines);
      assertThat(ask).contains("\"method\":\"elicitation/create\"").contains("\"message\":\"Deploy?\"")
          .contains("\"id\":\"mcp-stdio-cb-");
      String id = ask.replaceAll(".*\"id\":(\"mcp-stdio-cb-[0-9]+\").*", "$1");
      HttpResponse<String> answer = serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + id
          + ",\"result\":{\"action\":\"accept\",\"content\":{}}}", true);
      assertThat(answer.statusCode()).isEqualTo(202);
      serve.awaitLog("reply channel said: {\"id\":\"c1\",\"reply\":{\"action\":\"accept\",\"content\":{}}} 200");
    }
  }

  @Test
  void aQuestionAnsweredElsewhereIsWithdrawnFromTheClient() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(child()))) {
      String session = serve.initialize(); // INIT declares elicitation
      HttpResponse<Stream<String>> stream = serve.openStream(session);
      Iterator<String> lines = stream.body().iterator();
      String ask = ServeHarness.nextEvent(lines);
      String requestId = ask.replaceAll(".*\"id\":\"(mcp-stdio-cb-[0-9]+)\".*", "$1");
      serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/callbacks/c1/reply")).header("Mcp-Session-Id", session)
          .POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"decline\"}")).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(ServeHarness.nextEvent(lines)).contains("notifications/cancelled").contains("\"requestId\":\"" + requestId + "\"");
      serve.awaitLog("reply channel said: {\"id\":\"c1\",\"reply\":{\"action\":\"decline\"}} 200");
    }
  }

  @Test
  void anUnansweredCallbackTimesOutAndTheChildIsToldSo() throws Exception {
    ServeConfig config = ServeHarness.config(child()).withLaunch(
        new ServeConfig.SessionLaunch(List.of(), null, false, Duration.ofSeconds(1)));
    try (ServeHarness serve = ServeHarness.start(config)) {
      serve.initialize();
      serve.awaitLog("reply channel said: {\"error\":\"no decision in time\"} 408");
    }
  }

  /**
   * A child that asks for a sign-in to source "crm" (workspace on argv), then prints what the reply
   * channel said and the credential file it then finds, with its permissions.
   */
  private static ChildSpec signInChild() {
    return ServeHarness.shAfterInit("ws=\"$1\"; read n; echo '__CALLBACK__{\"type\":\"auth_required\",\"id\":\"a1\",\"sessionId\":\"s\","
        + "\"sourceSlug\":\"crm\",\"authUrl\":\"https://crm.example/login\"}' >&2;"
        + " out=$(curl -s -w ' %{http_code}' -H \"Authorization: Bearer $MCP_STDIO_CALLBACK_TOKEN\" \"$MCP_STDIO_CALLBACK_URL/a1\");"
        + " echo \"reply channel said: $out\" >&2; f=\"$ws/sources/crm/.credential-cache.json\";"
        + " echo \"found $(cat \"$f\") mode $(stat -c %a \"$f\")\" >&2; cat >/dev/null");
  }

  private static HttpResponse<String> putCredential(ServeHarness serve, String session, String slug, String body)
      throws Exception {
    return serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/credentials/" + slug)).header("Mcp-Session-Id", session)
        .PUT(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void aHandedOffCredentialReachesTheWorkspaceAndAnswersTheWaitingSignIn(@TempDir Path root) throws Exception {
    ServeConfig config = ServeHarness.config(signInChild())
        .withLaunch(new ServeConfig.SessionLaunch(List.of("sh", "{workspaceRoot}"), root, false)); // $0, $1
    try (ServeHarness serve = ServeHarness.start(config)) {
      String session = serve.initialize();
      serve.awaitLog("callback auth_required (id a1)");
      assertThat(putCredential(serve, session, "crm", "{\"value\":\"s3cr3t-token-value\"}").body())
          .isEqualTo("{\"written\":true,\"answered\":1}");
      serve.awaitLog("reply channel said: {\"id\":\"a1\",\"reply\":{\"action\":\"accept\"}} 200");
      serve.awaitLog("mode 600");
      assertThat(serve.log()).contains("found {\"value\":\"<redacted>\"} mode 600") // the child printed it: never logged
          .contains("credential for source crm handed off; 1 waiting sign-in callback(s) answered")
          .doesNotContain("s3cr3t-token-value");

      assertThat(putCredential(serve, session, "crm", "{\"value\":\"next\",\"expiresAt\":\"2030-01-01T00:00:00Z\"}").body())
          .isEqualTo("{\"written\":true,\"answered\":0}"); // a refresh, nobody waiting
      assertThat(putCredential(serve, session, "crm", "{\"value\":\"x\",\"expiresAt\":\"tomorrow\"}").statusCode())
          .isEqualTo(400);
      assertThat(putCredential(serve, session, "crm", "{\"value\":42}").statusCode()).isEqualTo(400);
      for (String slug : new String[] {"a..b", ".x", "-x", "x".repeat(129)}) { // reach the handler; all refused there
        HttpResponse<String> bad = putCredential(serve, session, slug, "{\"value\":\"x\"}");
        assertThat(bad.statusCode()).as(slug).isEqualTo(400);
        assertThat(bad.body()).as(slug).contains("not a source slug");
      }
      assertThat(putCredential(serve, session, "crm", "{\"value\":\"" + "v".repeat(CallbackEndpoint.MAX_CREDENTIAL_CHARS + 1)
          + "\"}").statusCode()).isEqualTo(400);
      assertThat(putCredential(serve, "no-such-session", "crm", "{\"value\":\"x\"}").statusCode()).isEqualTo(404);
      HttpResponse<String> get = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/credentials/crm"))
          .header("Mcp-Session-Id", session).build(), HttpResponse.BodyHandlers.ofString());
      assertThat(get.statusCode()).isEqualTo(405); // a credential is handed off, never read back
    }
  }

  @Test
  void aCredentialHandedOffWhileTheClientStillShowsTheSignInFinishesItInsteadOfWithdrawingIt(@TempDir Path root)
      throws Exception {
    ServeConfig config = ServeHarness.config(signInChild())
        .withLaunch(new ServeConfig.SessionLaunch(List.of("sh", "{workspaceRoot}"), root, false));
    try (ServeHarness serve = ServeHarness.start(config)) {
      String session = serve.initialize(ServeHarness.INIT.replace("\"elicitation\":{}", "\"elicitation\":{\"form\":{},\"url\":{}}"));
      Iterator<String> lines = serve.openStream(session).body().iterator();
      String ask = ServeHarness.nextEvent(lines);
      assertThat(ask).contains("\"mode\":\"url\"").contains("\"url\":\"https://crm.example/login\"")
          .contains("\"elicitationId\":\"a1\"");
      assertThat(putCredential(serve, session, "crm", "{\"value\":\"fresh-token\"}").body())
          .isEqualTo("{\"written\":true,\"answered\":1}");
      assertThat(ServeHarness.nextEvent(lines)) // the next event: finished, not cancelled
          .isEqualTo("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/elicitation/complete\",\"params\":{\"elicitationId\":\"a1\"}}");
      String requestId = ask.replaceAll(".*\"id\":(\"mcp-stdio-cb-[0-9]+\").*", "$1");
      assertThat(serve.post(session, "{\"jsonrpc\":\"2.0\",\"id\":" + requestId + ",\"result\":{\"action\":\"accept\"}}", true)
          .statusCode()).isEqualTo(202); // the client's late answer is taken, and goes nowhere
      serve.awaitLog("reply channel said: {\"id\":\"a1\",\"reply\":{\"action\":\"accept\"}} 200");
    }
  }

  @Test
  void aSessionWithoutAWorkspaceHasNowhereToPutACredential() throws Exception {
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(signInChild()))) {
      String session = serve.initialize();
      HttpResponse<String> put = putCredential(serve, session, "crm", "{\"value\":\"x\"}");
      assertThat(put.statusCode()).isEqualTo(409);
      assertThat(put.body()).contains("--workspace-root");
    }
  }
}
