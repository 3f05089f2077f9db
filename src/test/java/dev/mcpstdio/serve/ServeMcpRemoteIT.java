package dev.mcpstdio.serve;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Jsons;
import dev.mcpstdio.testing.LineCollector;
import dev.mcpstdio.testing.NodePeers;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * mcp-remote 0.15.1 (from the npm registry, pinned in src/test/node/mcp-remote) against serve
 * with {@code --enable-oauth}: it discovers the embedded server, registers (RFC 7591), sends the
 * user to the authorize URL (which the test, as the approved user's browser, fetches and follows
 * to mcp-remote's callback), redeems the code with PKCE, and then relays its host's
 * {@code initialize} and {@code tools/list} to the demo behind serve.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ServeMcpRemoteIT {

  @TempDir
  Path home;

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void mcpRemoteSignsInAtTheEmbeddedServerAndRelaysItsHost() throws Exception {
    Path peers = NodePeers.mcpRemote();
    ServeConfig.EmbeddedOAuth oauth = new ServeConfig.EmbeddedOAuth(true, "remote-user", null, Set.of(), Duration.ofHours(1));
    try (ServeHarness serve = ServeHarness.start(ServeHarness.config(ServeHarness.demo()).withOAuth(oauth))) {
      String url = "http://127.0.0.1:" + serve.gateway.port() + "/mcp";
      int callbackPort = freePort();
      ProcessBuilder pb = new ProcessBuilder(NodePeers.node().toString(), peers.resolve("node_modules/mcp-remote/dist/proxy.js").toString(),
          url, String.valueOf(callbackPort));
      pb.environment().put("HOME", home.toString()); // its token cache (~/.mcp-auth) is the test's
      pb.environment().put("PATH", "/usr/bin:/bin"); // no desktop browser to open: the test is the browser
      Process remote = pb.start();
      LineCollector stdout = new LineCollector().collect(remote.getInputStream());
      LineCollector stderr = new LineCollector().collect(remote.getErrorStream());
      try {
        String authorize = stderr.nextMatching(l -> l.trim().startsWith("http://127.0.0.1:" + serve.gateway.port() + "/authorize?"),
            Duration.ofSeconds(60)).trim();
        HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
        HttpResponse<String> approved = http.send(HttpRequest.newBuilder(URI.create(authorize)).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(302);
        String back = approved.headers().firstValue("Location").orElseThrow();
        assertThat(back).contains(":" + callbackPort + "/").contains("code=").contains("iss=");
        http.send(HttpRequest.newBuilder(URI.create(back.replace("localhost", "127.0.0.1"))).GET().build(),
            HttpResponse.BodyHandlers.discarding());

        OutputStream in = remote.getOutputStream();
        in.write(("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\","
            + "\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String init = stdout.nextMatching(l -> l.contains("\"id\":1"), Duration.ofSeconds(60));
        assertThat(Jsons.parse(init).path("result").path("serverInfo").path("name").asString("")).as(init).isNotEmpty();
        in.write(("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n"
            + "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
        String tools = stdout.nextMatching(l -> l.contains("\"id\":2"), Duration.ofSeconds(60));
        assertThat(Jsons.parse(tools).path("result").path("tools").isArray()).as(tools).isTrue();
        assertThat(serve.log()).contains("\"POST /register\" 201").contains("\"POST /token\" 200");
      } catch (AssertionError e) {
        throw new AssertionError(e.getMessage() + "\nmcp-remote stderr:\n" + String.join("\n", stderr.snapshot())
            + "\nserve:\n" + serve.log(), e);
      } finally {
        remote.getOutputStream().close();
        remote.descendants().forEach(ProcessHandle::destroyForcibly);
        remote.destroyForcibly();
        remote.waitFor(10, TimeUnit.SECONDS);
      }
    }
  }
}
