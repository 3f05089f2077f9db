package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.INIT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildSpec;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Sessions belong to the principal that opened them: to every other principal (another signed-in
 * user, the static token's holders) a session answers exactly as one that never existed, on the
 * Streamable HTTP endpoint, on HTTP+SSE (2024-11-05) and in the callbacks and credentials APIs;
 * {@code --max-sessions-per-owner} bounds one user's sessions; {@code --user-env} tells a child
 * whose it is.
 */
class ServeSessionOwnershipTest {

  private static final String USER_HEADER = "X-Authenticated-User";

  /** Answers initialize (its serverInfo names the child's $MCP_USER) and ping, by id. */
  static final String CHILD = """
      while read -r line; do
        id=$(printf '%s' "$line" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p')
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"initialize"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{},\\"serverInfo\\":{\\"name\\":\\"user:${MCP_USER:-none}\\",\\"version\\":\\"1\\"}}}" ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{}}" ;;
        esac
      done
      """;

  private static final String PING = "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}";

  private static ServeConfig config(ServeConfig.Owners owners) {
    return ServeHarness.config(new ChildSpec(List.of("/bin/sh", "-c", CHILD))).withAuthToken("static-secret")
        .withOAuth(new ServeConfig.EmbeddedOAuth(true, null, USER_HEADER, Set.of(), Duration.ofHours(1))).withOwners(owners);
  }

  private static String base(ServeHarness serve) {
    return "http://127.0.0.1:" + serve.gateway.port();
  }

  private static String[] bearer(String token) {
    return new String[] {"Authorization", "Bearer " + token};
  }

  /** Initializes a session as the holder of {@code token}: its id. */
  private static String open(ServeHarness serve, String token) throws Exception {
    HttpResponse<String> r = serve.post(null, INIT, false, bearer(token));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return r.headers().firstValue("Mcp-Session-Id").orElseThrow();
  }

  private static HttpResponse<String> send(ServeHarness serve, HttpRequest.Builder request) throws Exception {
    return serve.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  /** Every way a principal can name a session over the MCP endpoint and the callbacks and credentials APIs. */
  private static List<String> answersTo(ServeHarness serve, String session, String token) throws Exception {
    List<String> answers = new ArrayList<>();
    HttpResponse<String> post = serve.post(session, PING, false, bearer(token));
    answers.add("POST " + post.statusCode() + " " + post.body() + " " + post.headers().firstValue("Mcp-Session-Id"));
    HttpResponse<String> get = send(serve, serve.request(session).header("Accept", "text/event-stream").headers(bearer(token)).GET());
    answers.add("GET " + get.statusCode() + " " + get.body() + " " + get.headers().firstValue("Mcp-Session-Id"));
    HttpResponse<String> delete = send(serve, serve.request(session).headers(bearer(token)).DELETE());
    answers.add("DELETE " + delete.statusCode() + " " + delete.body() + " " + delete.headers().firstValue("Mcp-Session-Id"));
    HttpResponse<String> watch = send(serve, HttpRequest.newBuilder(serve.url.resolve("/callbacks")).timeout(Duration.ofSeconds(20))
        .header("Mcp-Session-Id", session).headers(bearer(token)).GET());
    answers.add("callbacks " + watch.statusCode() + " " + watch.body());
    HttpResponse<String> reply = send(serve, HttpRequest.newBuilder(serve.url.resolve("/callbacks/c1/reply"))
        .header("Mcp-Session-Id", session).headers(bearer(token)).POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"accept\"}")));
    answers.add("reply " + reply.statusCode() + " " + reply.body());
    HttpResponse<String> credential = send(serve, HttpRequest.newBuilder(serve.url.resolve("/credentials/github"))
        .header("Mcp-Session-Id", session).headers(bearer(token)).PUT(HttpRequest.BodyPublishers.ofString("{\"value\":\"v\"}")));
    answers.add("credential " + credential.statusCode() + " " + credential.body());
    return answers;
  }

  @Test
  void anotherPrincipalsSessionAnswersExactlyAsOneThatNeverExisted() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(ServeConfig.Owners.NONE))) {
      String alice = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "alice");
      String bob = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "bob");
      String aliceSession = open(serve, alice);
      String staticSession = open(serve, "static-secret");
      List<String> neverExisted = answersTo(serve, "0123456789abcdef0123456789abcdef", bob);
      assertThat(neverExisted.getFirst()).startsWith("POST 404 ").contains("unknown or expired session");

      assertThat(answersTo(serve, aliceSession, bob)).as("bob, with alice's session id").isEqualTo(neverExisted);
      assertThat(answersTo(serve, aliceSession, "static-secret")).as("the static token, with alice's").isEqualTo(neverExisted);
      assertThat(answersTo(serve, staticSession, alice)).as("alice, with the static token's").isEqualTo(neverExisted);

      HttpResponse<String> own = serve.post(aliceSession, PING, false, bearer(alice));
      assertThat(own.statusCode()).as("alice's session outlived bob's DELETE: %s", own.body()).isEqualTo(200);
      assertThat(own.body()).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}");
      // and she finds it every other way too (answers that differ from a stranger's)
      for (HttpRequest.Builder stream : List.of(serve.request(aliceSession).header("Accept", "text/event-stream").headers(bearer(alice)).GET(),
          HttpRequest.newBuilder(serve.url.resolve("/callbacks")).header("Mcp-Session-Id", aliceSession).headers(bearer(alice)).GET())) {
        HttpResponse<java.util.stream.Stream<String>> open = serve.http.send(stream.build(), HttpResponse.BodyHandlers.ofLines());
        assertThat(open.statusCode()).as("an event stream of her session").isEqualTo(200);
        open.body().close();
      }
      HttpResponse<String> reply = send(serve, HttpRequest.newBuilder(serve.url.resolve("/callbacks/c1/reply"))
          .header("Mcp-Session-Id", aliceSession).headers(bearer(alice)).POST(HttpRequest.BodyPublishers.ofString("{\"action\":\"accept\"}")));
      assertThat(reply.statusCode()).isEqualTo(404);
      assertThat(reply.body()).contains("unknown callback");
      HttpResponse<String> credential = send(serve, HttpRequest.newBuilder(serve.url.resolve("/credentials/github"))
          .header("Mcp-Session-Id", aliceSession).headers(bearer(alice)).PUT(HttpRequest.BodyPublishers.ofString("{\"value\":\"v\"}")));
      assertThat(credential.statusCode()).as(credential.body()).isEqualTo(409);
      assertThat(send(serve, serve.request(aliceSession).headers(bearer(alice)).DELETE()).statusCode()).isEqualTo(200);
      assertThat(serve.post(staticSession, PING, false, bearer("static-secret")).statusCode()).isEqualTo(200);
    }
  }

  @Test
  void anHttpSseSessionIsItsOwnersOnly() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(ServeConfig.Owners.NONE))) {
      String alice = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "alice");
      String bob = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "bob");
      HttpResponse<Stream<String>> stream = serve.http.send(HttpRequest.newBuilder(serve.url.resolve("/sse"))
          .headers(bearer(alice)).header("Accept", "text/event-stream").GET().build(), HttpResponse.BodyHandlers.ofLines());
      assertThat(stream.statusCode()).isEqualTo(200);
      Iterator<String> lines = stream.body().iterator();
      String endpoint = null;
      while (endpoint == null && lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data:")) {
          endpoint = line.substring(5).trim();
        }
      }
      assertThat(endpoint).startsWith("/messages?sessionId=");
      HttpRequest.Builder bobs = HttpRequest.newBuilder(serve.url.resolve(endpoint)).headers(bearer(bob))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(INIT));
      HttpResponse<String> refused = send(serve, bobs);
      HttpResponse<String> unknown = send(serve, HttpRequest.newBuilder(serve.url.resolve("/messages?sessionId=0123456789abcdef0123456789abcdef"))
          .headers(bearer(bob)).header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(INIT)));
      assertThat(refused.statusCode()).isEqualTo(404);
      assertThat(refused.body()).isEqualTo(unknown.body());

      HttpResponse<String> hers = send(serve, HttpRequest.newBuilder(serve.url.resolve(endpoint)).headers(bearer(alice))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(INIT)));
      assertThat(hers.statusCode()).isEqualTo(202);
      String answer = null;
      while (answer == null && lines.hasNext()) {
        String line = lines.next();
        if (line.startsWith("data:") && line.contains("\"id\":1")) {
          answer = line;
        }
      }
      assertThat(answer).as("alice's own message is answered on her stream").contains("serverInfo");
      stream.body().close();
    }
  }

  @Test
  void aUserPastItsSessionBoundLosesItsLeastRecentlyUsedSessionAndNobodyElseDoes() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(new ServeConfig.Owners(2, null)))) {
      String alice = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "alice");
      String bob = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "bob");
      String bobs = open(serve, bob);
      String first = open(serve, alice);
      String second = open(serve, alice);
      assertThat(serve.post(first, PING, false, bearer(alice)).statusCode()).isEqualTo(200); // first is now the recent one
      List<String> statics = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        statics.add(open(serve, "static-secret"));
      }
      String third = open(serve, alice);

      assertThat(serve.post(second, PING, false, bearer(alice)).statusCode()).as("the least recently used").isEqualTo(404);
      assertThat(serve.post(first, PING, false, bearer(alice)).statusCode()).isEqualTo(200);
      assertThat(serve.post(third, PING, false, bearer(alice)).statusCode()).isEqualTo(200);
      assertThat(serve.post(bobs, PING, false, bearer(bob)).statusCode()).as("another user's").isEqualTo(200);
      for (String s : statics) {
        assertThat(serve.post(s, PING, false, bearer("static-secret")).statusCode()).as("the static token is not bounded per owner")
            .isEqualTo(200);
      }
      assertThat(serve.log()).contains("--max-sessions-per-owner 2");
    }
  }

  @Test
  void userEnvTellsAUsersChildItsUserAndNobodyElsesChild() throws Exception {
    try (ServeHarness serve = ServeHarness.start(config(new ServeConfig.Owners(0, "MCP_USER")))) {
      String alice = EmbeddedSignIn.accessTokenOf(base(serve), USER_HEADER, "alice");
      assertThat(serve.post(null, INIT, false, bearer(alice)).body()).contains("\"name\":\"user:alice\"");
      assertThat(serve.post(null, INIT, false, bearer("static-secret")).body()).contains("\"name\":\"user:none\"");
    }
  }

  @Test
  void userEnvRefusesNamesThatChooseWhatRuns() {
    for (String name : List.of("PATH", "ld_preload", "JAVA_TOOL_OPTIONS", "NODE_OPTIONS", "PYTHONPATH", "1X", "A-B", "",
        "GLIBC_TUNABLES", "DYLD_FALLBACK_LIBRARY_PATH", "PYTHONWARNINGS", "PERLLIB", "GCONV_PATH", "MCP_STDIO_CALLBACK_TOKEN")) {
      assertThat(ServeConfig.Owners.refusal(name)).as(name).isNotNull();
    }
    assertThat(ServeConfig.Owners.refusal("MCP_USER")).isNull();
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> config(new ServeConfig.Owners(0, "MCP_USER")).withWarm(1))
        .hasMessageContaining("--warm");
  }
}
