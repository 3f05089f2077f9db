package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.CorpProvider;
import dev.mcpstdio.testing.JarProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Two {@code mcp-stdio serve} processes (the packaged jar) in resource-server mode for one
 * identity provider ({@code mock-oauth2-server} on loopback) share nothing, and each takes the
 * tokens the provider issued for their common audience: a cluster's replicas need no shared store.
 */
class ServeResourceServerProcessIT {

  private static final Pattern SERVING = Pattern.compile("serving .* at (http://127\\.0\\.0\\.1:\\d+/mcp) \\(");
  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"host\",\"version\":\"1\"}}}";

  @Test
  void twoReplicasTakeTheSameTokens() throws Exception {
    CorpProvider idp = CorpProvider.start();
    List<JarProcess> replicas = new ArrayList<>();
    try {
      String issuer = idp.issuer();
      List<String> urls = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        JarProcess serve = JarProcess.start(List.of("serve", "--port", "0", "--oauth-issuer", issuer, "--oauth-audience", "mcp-cluster",
            "--", JarProcess.java(), "-jar", JarProcess.jar().toString(), "demo"));
        replicas.add(serve);
        Matcher m = SERVING.matcher(serve.stderr.nextMatching(l -> SERVING.matcher(l).find(), Duration.ofSeconds(60)));
        assertThat(m.find()).isTrue();
        urls.add(m.group(1));
      }
      String token = idp.token("alice", "mcp-cluster", Map.of());
      String foreign = idp.token("alice", "another-api", Map.of());
      HttpClient http = HttpClient.newHttpClient();
      for (String url : urls) {
        HttpResponse<String> passed = post(http, url, token);
        assertThat(passed.statusCode()).as(url + " " + passed.body()).isEqualTo(200);
        assertThat(passed.body()).contains("\"serverInfo\"");
        HttpResponse<String> refused = post(http, url, foreign);
        assertThat(refused.statusCode()).as(url).isEqualTo(401);
        assertThat(refused.headers().firstValue("WWW-Authenticate").orElse("")).contains("invalid_token");
      }
      for (JarProcess serve : replicas) {
        assertThat(serve.log()).contains("identity provider " + issuer + ": keys at ").doesNotContain(token);
      }
    } finally {
      replicas.forEach(JarProcess::close);
      idp.close();
    }
  }

  private static HttpResponse<String> post(HttpClient http, String url, String token) throws Exception {
    return http.send(HttpRequest.newBuilder(URI.create(url)).header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream").header("Authorization", "Bearer " + token)
        .POST(HttpRequest.BodyPublishers.ofString(INIT)).build(), HttpResponse.BodyHandlers.ofString());
  }
}
