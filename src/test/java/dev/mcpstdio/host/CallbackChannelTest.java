package dev.mcpstdio.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The loopback reply channel: long polls, awaitable POSTs, secrets. */
class CallbackChannelTest {

  private final HttpClient http = HttpClient.newHttpClient();
  private final CallbackChannel channel;
  private final CallbackRegistry registry = new CallbackRegistry(Duration.ofSeconds(5), Duration.ofMillis(300));
  private final List<Callback> announced = new CopyOnWriteArrayList<>();
  private final CallbackChannel.Credentials credentials;

  CallbackChannelTest() throws Exception {
    channel = new CallbackChannel();
    credentials = channel.register("s1", registry, c -> {
      announced.add(c);
      registry.announce(c); // the host's part, as serve's session does
    });
  }

  @AfterEach
  void close() throws Exception {
    channel.close();
  }

  private HttpResponse<String> get(String id, String token) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(credentials.url() + "/" + id)).timeout(Duration.ofSeconds(20));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static Callback confirm(String id) {
    String json = "{\"type\":\"confirm\",\"id\":\"" + id + "\",\"sessionId\":\"s1\",\"message\":\"ok?\"}";
    return new Callback("confirm", id, "s1", json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theCredentialsAreALoopbackUrlAndAFreshSecret() {
    assertThat(credentials.url()).startsWith("http://127.0.0.1:").endsWith("/callbacks/s1");
    assertThat(credentials.token()).matches("[0-9a-f]{64}");
    assertThat(credentials.env()).containsKeys("MCP_STDIO_CALLBACK_URL", "MCP_STDIO_CALLBACK_TOKEN");
  }

  @Test
  void aLongPollReturnsTheHostsDecision() throws Exception {
    registry.announce(confirm("c1"));
    CompletableFuture<HttpResponse<String>> poll = CompletableFuture.supplyAsync(() -> {
      try {
        return get("c1", credentials.token());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    dev.mcpstdio.testing.Await.until("the reply to be accepted", Duration.ofSeconds(5),
        () -> registry.reply("c1", "{\"action\":\"accept\"}") != CallbackRegistry.ReplyResult.UNKNOWN);
    HttpResponse<String> r = poll.get(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("{\"id\":\"c1\",\"reply\":{\"action\":\"accept\"}}");
  }

  @Test
  void wrongSecretsUnknownIdsAndTimeouts() throws Exception {
    assertThat(get("c2", null).statusCode()).isEqualTo(401);
    assertThat(get("c2", "0".repeat(64)).statusCode()).isEqualTo(401);
    assertThat(get("never", credentials.token()).statusCode()).isEqualTo(404);
    HttpResponse<String> noSuchSession = http.send(HttpRequest.newBuilder(URI.create(channel.base() + "nobody/c1"))
        .header("Authorization", "Bearer " + credentials.token()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(noSuchSession.statusCode()).as("the same answer as a wrong secret").isEqualTo(401);
    CallbackRegistry quick = new CallbackRegistry(Duration.ofMillis(200), Duration.ofMillis(100));
    CallbackChannel.Credentials other = channel.register("s2", quick, c -> {});
    quick.announce(confirm("c3"));
    HttpResponse<String> late = http.send(HttpRequest.newBuilder(URI.create(other.url() + "/c3"))
        .header("Authorization", "Bearer " + other.token()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(late.statusCode()).isEqualTo(408);
    // one session's secret does not open another's
    HttpResponse<String> crossed = http.send(HttpRequest.newBuilder(URI.create(other.url() + "/c3"))
        .header("Authorization", "Bearer " + credentials.token()).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(crossed.statusCode()).isEqualTo(401);
  }

  @Test
  void anAwaitablePostAnnouncesAndWaits() throws Exception {
    CompletableFuture<HttpResponse<String>> post = CompletableFuture.supplyAsync(() -> {
      try {
        return http.send(HttpRequest.newBuilder(URI.create(credentials.url()))
            .header("Authorization", "Bearer " + credentials.token())
            .POST(HttpRequest.BodyPublishers.ofString("{\"type\":\"plan_ready\",\"id\":\"p1\",\"sessionId\":\"s1\",\"planPath\":\"/p.md\"}"))
            .build(), HttpResponse.BodyHandlers.ofString());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
    dev.mcpstdio.testing.Await.until("the POSTed callback to be announced", Duration.ofSeconds(5), () -> !announced.isEmpty());
    assertThat(announced.getFirst().type()).isEqualTo("plan_ready");
    registry.reply("p1", "{\"action\":\"decline\"}");
    assertThat(post.get(10, TimeUnit.SECONDS).body()).isEqualTo("{\"id\":\"p1\",\"reply\":{\"action\":\"decline\"}}");
    HttpResponse<String> bad = http.send(HttpRequest.newBuilder(URI.create(credentials.url()))
        .header("Authorization", "Bearer " + credentials.token()).POST(HttpRequest.BodyPublishers.ofString("{\"type\":1}"))
        .build(), HttpResponse.BodyHandlers.ofString());
    assertThat(bad.statusCode()).isEqualTo(400);
  }
}
