package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code serve} as a real process (the packaged jar): a signal ends every session and every
 * child, even one that ignores SIGTERM, and the gateway exits 0 with nothing left behind and
 * nothing written to stdout.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ServeProcessIT {

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"it\",\"version\":\"1\"}}}";

  /** Answers initialize, then ignores stdin EOF and SIGTERM, with a grandchild of its own. */
  private static final String STUBBORN = "read init; echo '{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"stubborn\",\"version\":\"1\"}}}'; trap '' TERM;"
      + " sleep 300 & while :; do sleep 0.05; done";

  private final HttpClient http = HttpClient.newHttpClient();

  private static URI start(JarProcess serve) {
    String line = serve.stderr.nextMatching(l -> l.contains("serving "), Duration.ofSeconds(30));
    Matcher m = Pattern.compile("at (http://127\\.0\\.0\\.1:\\d+/mcp) ").matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return URI.create(m.group(1));
  }

  private void initialize(URI url) throws Exception {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(url).header("Content-Type", "application/json")
        .header("Accept", "application/json").POST(HttpRequest.BodyPublishers.ofString(INIT)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "INT"})
  void aSignalEndsEveryChildAndServeExitsZero(String signal) throws Exception {
    JarProcess serve = JarProcess.start(List.of("serve", "--port", "0", "--", "/bin/sh", "-c", STUBBORN));
    URI url = start(serve);
    initialize(url);
    initialize(url);
    List<ProcessHandle> tree = serve.process.descendants().toList();
    assertThat(tree).hasSizeGreaterThanOrEqualTo(4); // two shells, each with a sleeping grandchild
    new ProcessBuilder("kill", "-" + signal, Long.toString(serve.process.pid())).start().waitFor();
    assertThat(serve.awaitExit(Duration.ofSeconds(20))).as("exit code; stderr:\n" + serve.log()).isZero();
    for (ProcessHandle p : tree) {
      Await.until("process " + p.pid() + " to be gone", Duration.ofSeconds(5), () -> !p.isAlive());
    }
    assertThat(serve.log()).contains("received signal SIG" + signal).contains("sending SIGKILL");
    assertThat(serve.stdout.snapshot()).as("serve writes nothing to stdout").isEmpty();
  }

  /** Like {@link #STUBBORN}, deaf to SIGTERM with a grandchild, from its spawn on: a warm child waiting for its client. */
  private static final String STUBBORN_WARM = ": warm-it; trap '' TERM; sleep 300 & read init; echo '{\"jsonrpc\":\"2.0\",\"id\":1,"
      + "\"result\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"serverInfo\":{\"name\":\"w\",\"version\":\"1\"}}}';"
      + " while :; do sleep 0.05; done";

  /** The gateway's children running {@link #STUBBORN_WARM} (not what they fork), each with its sleeping grandchild. */
  private static List<ProcessHandle> warmShells(JarProcess serve) {
    return serve.process.children().filter(p -> p.info().arguments().map(a -> String.join(" ", a).contains(": warm-it;"))
        .orElse(false)).toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"TERM", "KILL"})
  void warmChildrenNeverOutliveTheGatewayWhetherItIsSignalledOrKilled(String signal) throws Exception {
    JarProcess serve = JarProcess.start(List.of("serve", "--port", "0", "--warm", "2", "--", "/bin/sh", "-c", STUBBORN_WARM));
    URI url = start(serve);
    initialize(url); // one taken; the pool refills to two beside it
    Await.until("a live child and two warm ones, each with its grandchild", Duration.ofSeconds(30),
        () -> warmShells(serve).size() == 3 && warmShells(serve).stream().allMatch(p -> p.children().findAny().isPresent()));
    List<ProcessHandle> tree = new java.util.ArrayList<>();
    for (ProcessHandle shell : warmShells(serve)) {
      tree.add(shell);
      tree.addAll(shell.descendants().toList());
    }
    new ProcessBuilder("kill", "-" + signal, Long.toString(serve.process.pid())).start().waitFor();
    int code = serve.awaitExit(Duration.ofSeconds(20));
    if (signal.equals("TERM")) {
      assertThat(code).as("exit code; stderr:\n" + serve.log()).isZero();
    }
    for (ProcessHandle p : tree) { // after SIGKILL the watchdog ends their process groups
      Await.until("process " + p.pid() + " to be gone", Duration.ofSeconds(10), () -> !p.isAlive());
    }
  }

  @Test
  void aPortInUseIsReportedAndExitsOne() throws Exception {
    try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      JarProcess serve = JarProcess.start(List.of("serve", "--port", Integer.toString(taken.getLocalPort())));
      assertThat(serve.awaitExit(Duration.ofSeconds(20))).isEqualTo(1);
      assertThat(serve.log()).contains("cannot listen on 127.0.0.1:" + taken.getLocalPort());
    }
  }

  @Test
  void usageErrorsExitTwo() {
    JarProcess serve = JarProcess.start(List.of("serve", "--port", "70000"));
    assertThat(serve.awaitExit(Duration.ofSeconds(20))).isEqualTo(2);
    assertThat(serve.log()).contains("--port");
  }
}
