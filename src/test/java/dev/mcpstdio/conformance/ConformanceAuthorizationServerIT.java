package dev.mcpstdio.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import tools.jackson.databind.JsonNode;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.NodePeers;
import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The conformance suite 0.2.0-alpha.12's authorization-server scenarios
 * ({@code authorization-server-metadata-endpoint}, {@code authorization-code-grant}) against serve's
 * embedded authorization server ({@code serve --enable-oauth}), the test playing the approved user's
 * browser: it registers the suite's client for the suite's callback, fetches the authorize URL the
 * CLI prints, and follows the redirect to the CLI's callback. Every check of both scenarios must
 * pass. Artifacts under {@code target/conformance/authorization-server/}.
 */
class ConformanceAuthorizationServerIT {

  private static final Path WORK = NodePeers.basedir().resolve("target/conformance/authorization-server");
  private static final Pattern SERVING = Pattern.compile("serving .* at http://127\\.0\\.0\\.1:(\\d+)/mcp \\(");
  private static final Pattern AUTHORIZE = Pattern.compile("(http://127\\.0\\.0\\.1:\\d+/authorize\\?\\S+)");
  private static final List<String> SCENARIOS = List.of("authorization-server-metadata-endpoint", "authorization-code-grant");

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void bothAuthorizationServerScenariosPass() throws Exception {
    Path node = NodePeers.node22();
    Path cli = ConformanceRuns.cliNext();
    ConformanceRuns.deleteRecursively(WORK);
    Files.createDirectories(WORK);
    try (JarProcess serve = JarProcess.start(List.of("serve", "--port", "0", "--enable-oauth", "--dev-user", "conformance-user",
        "--", "cat"))) {
      Matcher m = SERVING.matcher(serve.stderr.nextMatching(l -> SERVING.matcher(l).find(), Duration.ofSeconds(60)));
      assertThat(m.find()).isTrue();
      String issuer = "http://127.0.0.1:" + m.group(1);
      int callbackPort = freePort();
      HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build();
      HttpResponse<String> registered = http.send(HttpRequest.newBuilder(URI.create(issuer + "/register"))
          .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(
              "{\"redirect_uris\":[\"http://127.0.0.1:" + callbackPort + "/callback\"],\"client_name\":\"conformance\"}")).build(),
          HttpResponse.BodyHandlers.ofString());
      assertThat(registered.statusCode()).as(registered.body()).isEqualTo(201);
      String clientId = tools.jackson.databind.json.JsonMapper.builder().build().readTree(registered.body()).get("client_id").asString();

      Path log = WORK.resolve("cli.log");
      List<String> command = new ArrayList<>(List.of(node.toString(), cli.toString(), "authorization", "--url", issuer,
          "--client-id", clientId, "--resource", issuer + "/mcp", "-p", String.valueOf(callbackPort), "-o", WORK.resolve("results").toString()));
      Process suite = new ProcessBuilder(command).directory(NodePeers.basedir().toFile()).redirectErrorStream(true)
          .redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
      try {
        String[] authorize = new String[1];
        Await.until("the suite to print its authorize URL; its output:\n" + log, Duration.ofSeconds(60), () -> {
          Matcher a = AUTHORIZE.matcher(read(log));
          if (a.find()) {
            authorize[0] = a.group(1);
            return true;
          }
          return !suite.isAlive();
        });
        assertThat(authorize[0]).as("authorize URL in:\n%s", read(log)).isNotNull();
        HttpResponse<String> approved = http.send(HttpRequest.newBuilder(URI.create(authorize[0])).GET().build(),
            HttpResponse.BodyHandlers.ofString());
        assertThat(approved.statusCode()).as(approved.body()).isEqualTo(302);
        String back = approved.headers().firstValue("Location").orElseThrow();
        assertThat(back).startsWith("http://127.0.0.1:" + callbackPort + "/callback?");
        http.send(HttpRequest.newBuilder(URI.create(back)).GET().build(), HttpResponse.BodyHandlers.discarding());
        assertThat(suite.waitFor(120, TimeUnit.SECONDS)).as("the suite finished; output:\n%s", read(log)).isTrue();
        String output = read(log);
        Files.write(WORK.resolve("serve.log"), serve.stderr.snapshot(), StandardCharsets.UTF_8);
        for (String scenario : SCENARIOS) {
          Path run = ConformanceRuns.newestRunDir(WORK.resolve("results"), "authorization-server-" + scenario);
          assertThat(run).as("results of %s in:\n%s", scenario, output).isNotNull();
          List<JsonNode> checks = ConformanceRuns.readChecks(run.resolve("checks.json"));
          assertThat(checks).as(scenario).isNotEmpty();
          assertThat(checks.stream().filter(c -> "FAILURE".equals(c.path("status").asString(""))).map(JsonNode::toString).toList())
              .as("%s failures; output:\n%s", scenario, output).isEmpty();
        }
        assertThat(suite.exitValue()).as(output).isZero();
      } finally {
        suite.descendants().forEach(ProcessHandle::destroyForcibly);
        suite.destroyForcibly();
      }
    }
  }

  private static String read(Path file) {
    try {
      return Files.exists(file) ? Files.readString(file, StandardCharsets.UTF_8) : "";
    } catch (java.io.IOException e) {
      return "(unreadable: " + e.getMessage() + ")";
    }
  }
}
