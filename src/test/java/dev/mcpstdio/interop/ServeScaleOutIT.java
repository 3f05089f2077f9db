package dev.mcpstdio.interop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.JarProcess;
import dev.mcpstdio.testing.Jsons;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.JsonNode;

/**
 * Serve scaled out behind a real load balancer: HAProxy (Debian's package) in front of three
 * serve replicas (the packaged jar, each its own process), with the stick table that
 * {@code docs/deploying-serve.md} documents, learned from the {@code Mcp-Session-Id} response
 * header. A 2025-era session stays on the replica that opened it; when that replica is killed its
 * session ends in 404 on another and this project's relay re-initializes there and replays the
 * call, so the host loses nothing. 2026-era requests need no affinity and spread over the
 * replicas, and go on when one dies.
 *
 * <p>Each replica's child names its replica in every answer, so the test sees where a call went.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ServeScaleOutIT {

  /** A 2025-era child that answers each {@code tools/call} with the name of its replica (its argument). */
  private static final String CHILD = """
      id_of() { printf '%s' "$1" | sed -n 's/^.*"id":\\("[^"]*"\\|[0-9][0-9]*\\).*$/\\1/p'; }
      replica=$1
      read -r init; id=$(id_of "$init")
      printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"protocolVersion\\":\\"2025-11-25\\",\\"capabilities\\":{\\"tools\\":{}},\\"serverInfo\\":{\\"name\\":\\"$replica\\",\\"version\\":\\"1\\"}}}"
      while read -r line; do
        id=$(id_of "$line")
        case "$line" in
          *'"method":"notifications/'*) ;;
          *'"method":"tools/list"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"tools\\":[{\\"name\\":\\"where\\",\\"inputSchema\\":{\\"type\\":\\"object\\"}}]}}" ;;
          *'"method":"tools/call"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{\\"content\\":[{\\"type\\":\\"text\\",\\"text\\":\\"$replica\\"}]}}" ;;
          *'"method":"ping"'*) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"result\\":{}}" ;;
          *) printf '%s\\n' "{\\"jsonrpc\\":\\"2.0\\",\\"id\\":$id,\\"error\\":{\\"code\\":-32601,\\"message\\":\\"Method not found\\"}}" ;;
        esac
      done
      """;

  private static final String INIT = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":"
      + "\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"scale-out-it\",\"version\":\"1\"}}}";

  @TempDir
  Path dir;

  private final List<JarProcess> replicas = new ArrayList<>();
  private final List<Integer> replicaPorts = new ArrayList<>();
  private Process haproxy;
  private int port;
  private final List<JarProcess> relays = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    Path child = Files.writeString(dir.resolve("child.sh"), CHILD);
    for (int i = 1; i <= 3; i++) {
      replicas.add(JarProcess.start(List.of("serve", "--port", "0", "--", "/bin/sh", child.toString(), "replica-" + i)));
    }
    for (JarProcess replica : replicas) {
      replicaPorts.add(portOf(replica));
    }
    port = freePort();
    Path config = dir.resolve("haproxy.cfg");
    Files.writeString(config, haproxyConfig(port, replicaPorts));
    Path haproxyBinary = haproxy();
    // -db: stay in the foreground and log to stderr; -c first, so that a bad file fails loudly
    Process check = new ProcessBuilder(haproxyBinary.toString(), "-c", "-f", config.toString()).redirectErrorStream(true).start();
    String checked = new String(check.getInputStream().readAllBytes());
    assertThat(check.waitFor()).as("haproxy -c: " + checked).isZero();
    haproxy = new ProcessBuilder(haproxyBinary.toString(), "-db", "-f", config.toString())
        .redirectOutput(dir.resolve("haproxy.log").toFile()).redirectErrorStream(true).start();
    Await.until("HAProxy listens on " + port, Duration.ofSeconds(20), () -> accepts(port));
  }

  @AfterEach
  void stop() throws Exception {
    for (JarProcess relay : relays) {
      relay.close();
    }
    if (haproxy != null) {
      haproxy.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    for (JarProcess replica : replicas) {
      replica.close();
    }
  }

  /**
   * The configuration docs/deploying-serve.md gives, on loopback ports and with quicker health
   * checks: round robin, a stick table keyed by the session id learned from responses, health
   * checks on /healthz, and a redispatch when the chosen replica does not answer.
   */
  static String haproxyConfig(int port, List<Integer> replicaPorts) {
    StringBuilder servers = new StringBuilder();
    for (int i = 0; i < replicaPorts.size(); i++) {
      servers.append("  server replica-").append(i + 1).append(" 127.0.0.1:").append(replicaPorts.get(i))
          .append(" check inter 500ms fall 2 rise 1\n");
    }
    return """
        global
          maxconn 512
        defaults
          mode http
          timeout connect 2s
          timeout client 60s
          timeout server 60s
          timeout tunnel 1h
          retries 3
          option redispatch 1
        frontend mcp
          bind 127.0.0.1:%d
          default_backend replicas
        backend replicas
          balance roundrobin
          option httpchk GET /healthz
          stick-table type string len 128 size 100k expire 1h
          stick on req.hdr(mcp-session-id)
          stick store-response res.hdr(mcp-session-id)
        %s""".formatted(port, servers);
  }

  @Test
  void a2025SessionStaysOnItsReplicaAndMovesWhenTheReplicaDies() throws Exception {
    Path counts = dir.resolve("relay-counts.json");
    JarProcess relay = relay("--protocol-era", "legacy", "--metrics-file", counts.toString());
    initialize(relay);
    Set<String> where = new HashSet<>();
    for (int id = 2; id <= 7; id++) {
      where.add(call(relay, id));
    }
    assertThat(where).as("every call of the session reached the replica that opened it").hasSize(1);
    String home = where.iterator().next();

    JarProcess dying = replicas.get(Integer.parseInt(home.substring("replica-".length())) - 1);
    dying.process.destroyForcibly(); // SIGKILL: no goodbye to anyone
    assertThat(dying.process.waitFor(10, TimeUnit.SECONDS)).isTrue();

    String after = call(relay, 8);
    assertThat(after).as("the call was replayed on the new session, on a replica still alive").isNotEqualTo(home);
    for (int id = 9; id <= 11; id++) {
      assertThat(call(relay, id)).as("the new session sticks to its new replica").isEqualTo(after);
    }
    assertThat(relay.log()).contains("re-initializ");
    relay.closeStdin();
    assertThat(relay.awaitExit(Duration.ofSeconds(20))).isZero();
    JsonNode relayed = Jsons.parse(Files.readString(counts));
    assertThat(relayed.get("requests").asLong()).as(relayed.toString()).isEqualTo(11);
    assertThat(relayed.get("results").asLong()).as("every request was answered with a result").isEqualTo(11);
    assertThat(relayed.get("reinitializations").asLong()).isGreaterThanOrEqualTo(1);
  }

  @Test
  void the2026EraNeedsNoAffinityAndGoesOnWhenAReplicaDies() throws Exception {
    JarProcess relay = relay("--protocol-era", "modern");
    initialize(relay);
    Set<String> where = new HashSet<>();
    for (int id = 2; id <= 10; id++) {
      where.add(call(relay, id));
    }
    assertThat(where).as("stateless requests spread over the replicas").hasSizeGreaterThanOrEqualTo(2);

    JarProcess dying = replicas.getFirst();
    dying.process.destroyForcibly();
    assertThat(dying.process.waitFor(10, TimeUnit.SECONDS)).isTrue();
    Set<String> afterwards = new HashSet<>();
    for (int id = 11; id <= 19; id++) {
      afterwards.add(call(relay, id));
    }
    assertThat(afterwards).as("every call answered, by the replicas left").doesNotContain("replica-1").isNotEmpty();
  }

  /** The host's handshake through the relay. */
  private static void initialize(JarProcess relay) {
    relay.send(INIT);
    assertThat(relay.stdout.next(Duration.ofSeconds(30))).contains("\"id\":1,\"result\"");
    relay.send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}");
  }

  /** A tools/call through the relay; returns the replica that answered it. */
  private static String call(JarProcess relay, int id) {
    relay.send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"where\",\"arguments\":{}}}");
    String line = relay.stdout.nextMatching(l -> l.contains("\"id\":" + id + ","), Duration.ofSeconds(30));
    JsonNode answer = Jsons.parse(line);
    assertThat(answer.has("result")).as(line + "\nrelay stderr:\n" + relay.log()).isTrue();
    return answer.at("/result/content/0/text").asString();
  }

  private JarProcess relay(String... flags) {
    List<String> args = new ArrayList<>(List.of(flags));
    args.add("http://127.0.0.1:" + port + "/mcp");
    JarProcess relay = JarProcess.start(args);
    relays.add(relay);
    return relay;
  }

  private static int portOf(JarProcess serve) {
    String line = serve.stderr.nextMatching(l -> l.contains("serving "), Duration.ofSeconds(30));
    Matcher m = Pattern.compile("at http://127\\.0\\.0\\.1:(\\d+)/mcp").matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return Integer.parseInt(m.group(1));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  private static boolean accepts(int port) {
    try (Socket ignored = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** Debian's haproxy (CI installs it: .ci/run). */
  static Path haproxy() {
    for (String candidate : List.of("/usr/sbin/haproxy", "/usr/bin/haproxy", "/usr/local/sbin/haproxy")) {
      Path path = Path.of(candidate);
      if (Files.isExecutable(path)) {
        return path;
      }
    }
    throw new AssertionError("haproxy not found: install Debian's haproxy package (.ci/run does)");
  }
}
