package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.relay.Header;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.LineCollector;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RelayCommandTest {

  private final LineCollector stderr = new LineCollector();
  private final Redactor redactor = new Redactor();
  private final Log log = new Log(stderr, Log.Level.INFO, redactor);
  private final StringWriter usage = new StringWriter();

  private RelayConfig parse(Map<String, String> env, String... args) throws UsageException {
    RelayCommand.Parsed parsed = RelayCommand.parse(args, env, log, new PrintWriter(usage));
    assertThat(parsed.exitNow()).isNull();
    return parsed.config();
  }

  private RelayConfig parse(String... args) throws UsageException {
    return parse(Map.of(), args);
  }

  private int exitCodeOf(String... args) {
    try {
      RelayCommand.Parsed parsed = RelayCommand.parse(args, Map.of(), log, new PrintWriter(usage));
      return parsed.exitNow() == null ? -1 : parsed.exitNow();
    } catch (UsageException e) {
      return e.exitCode();
    }
  }

  @Test
  void defaultsFollowTheReference() throws Exception {
    RelayConfig c = parse("https://example.com/mcp");
    assertThat(c.url().toString()).isEqualTo("https://example.com/mcp");
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.readTimeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(c.streamReadTimeout()).isEqualTo(Duration.ofSeconds(300));
    assertThat(c.maxMessageSize()).isEqualTo(10L * 1024 * 1024);
    assertThat(c.tcpKeepAlive()).isTrue();
    assertThat(c.cancelFilter()).isTrue();
    assertThat(c.normalizeArguments()).isTrue();
    assertThat(c.check()).isFalse();
    assertThat(c.headers()).isEmpty();
    assertThat(c.logLevel()).isEqualTo(Log.Level.INFO);
  }

  @Test
  void everyFlagReachesTheConfig() throws Exception {
    RelayConfig c = parse("--timeout-connect", "2.5", "--timeout-read", "30", "--sse-read-timeout", "0",
        "--max-message-size", "0", "--no-tcp-keepalive", "--no-cancel-filter", "--no-normalize-arguments",
        "--ca-file", "/tmp/a.pem", "--ca-file", "/tmp/b.pem", "--check", "-v", "-H", "X-A: 1", "--header", "X-B:2",
        "http://127.0.0.1:9/mcp");
    assertThat(c.connectTimeout()).isEqualTo(Duration.ofMillis(2500));
    assertThat(c.readTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(c.streamReadTimeout()).isZero();
    assertThat(c.maxMessageSize()).isZero();
    assertThat(c.tcpKeepAlive()).isFalse();
    assertThat(c.cancelFilter()).isFalse();
    assertThat(c.normalizeArguments()).isFalse();
    assertThat(c.caFiles()).containsExactly(Path.of("/tmp/a.pem"), Path.of("/tmp/b.pem"));
    assertThat(c.check()).isTrue();
    assertThat(c.logLevel()).isEqualTo(Log.Level.DEBUG);
    assertThat(c.headers()).containsExactly(new Header("X-A", "1"), new Header("X-B", "2"));
  }

  @Test
  void bearerTokenComesFromFlagOrEnvironmentAndIsRegisteredAsSecret() throws Exception {
    RelayConfig fromEnv = parse(Map.of("MCP_BEARER_TOKEN", "env-token-123"), "https://x/mcp");
    assertThat(fromEnv.headers()).containsExactly(new Header("Authorization", "Bearer env-token-123"));
    RelayConfig fromFlag = parse(Map.of("MCP_BEARER_TOKEN", "env-token-123"), "--bearer-token", "flag-token-456", "https://x/mcp");
    assertThat(fromFlag.headers()).containsExactly(new Header("Authorization", "Bearer flag-token-456"));
    assertThat(redactor.scrub("a flag-token-456 b env-token-123")).isEqualTo("a <redacted> b <redacted>");
  }

  @Test
  void anEmptyExplicitTokenSendsNoHeaderAndWarns() throws Exception {
    RelayConfig c = parse(Map.of("MCP_BEARER_TOKEN", "ignored-token"), "--bearer-token", "", "https://x/mcp");
    assertThat(c.headers()).isEmpty();
    assertThat(stderr.snapshot()).anyMatch(l -> l.contains("warning: --bearer-token is empty"));
  }

  @Test
  void aHeaderPinReplacesTheBearerHeaderWithAWarning() throws Exception {
    RelayConfig c = parse("--bearer-token", "abcd1234", "-H", "authorization: Basic Zm9vOmJhcg==", "https://x/mcp");
    assertThat(c.headers()).containsExactly(new Header("authorization", "Basic Zm9vOmJhcg=="));
    assertThat(stderr.snapshot()).anyMatch(l -> l.contains("replaces the --bearer-token header"));
    assertThat(redactor.scrub("Zm9vOmJhcg==")).isEqualTo("<redacted>");
  }

  @Test
  void credentialHeadersAreRegisteredAsSecrets() throws Exception {
    parse("-H", "X-Api-Key: k-0123456789", "-H", "X-Plain: visible-value", "https://x/mcp");
    assertThat(redactor.scrub("k-0123456789 visible-value")).isEqualTo("<redacted> visible-value");
  }

  @Test
  void badHeadersExitWithOne() {
    assertThat(exitCodeOf("-H", "Bad Name: x", "https://x/mcp")).isEqualTo(1);
    assertThat(exitCodeOf("-H", "NoColon", "https://x/mcp")).isEqualTo(1);
    assertThat(exitCodeOf("-H", "X-A: a\rb", "https://x/mcp")).isEqualTo(1);
    assertThat(exitCodeOf("-H", "Host: evil", "https://x/mcp")).isEqualTo(1);
    assertThat(exitCodeOf("--bearer-token", "a\nb", "https://x/mcp")).isEqualTo(1);
  }

  @Test
  void usageErrorsExitWithTwo() {
    assertThat(exitCodeOf()).isEqualTo(2);
    assertThat(exitCodeOf("ftp://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("https://user:pw@x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("https:///mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--timeout-read", "NaN", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--timeout-read", "Infinity", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--timeout-read", "0", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--timeout-connect", "-1", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--max-message-size", "-5", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--log-level", "loud", "https://x/mcp")).isEqualTo(2);
    assertThat(exitCodeOf("--no-such-flag", "https://x/mcp")).isEqualTo(2);
  }

  @Test
  void helpAndVersionExitZero() {
    assertThat(exitCodeOf("--help")).isZero();
    assertThat(usage.toString()).contains("Usage: mcp-stdio").contains("--bearer-token");
    assertThat(exitCodeOf("-V")).isZero();
    assertThat(usage.toString()).contains("mcp-stdio ");
  }

  @Test
  void theDeprecatedTestFlagIsCheckWithAWarning() throws Exception {
    assertThat(parse("--test", "https://x/mcp").check()).isTrue();
    assertThat(stderr.snapshot()).anyMatch(l -> l.contains("--test is deprecated"));
  }

  @Test
  void plaintextCredentialsToARemoteHostWarn() throws Exception {
    parse("--bearer-token", "tok-abcdef", "http://remote.example/mcp");
    assertThat(stderr.snapshot()).anyMatch(l -> l.contains("unencrypted"));
    LineCollector quiet = new LineCollector();
    RelayCommand.parse(new String[] {"--bearer-token", "tok-abcdef", "http://127.0.0.1:1/mcp"}, Map.of(),
        new Log(quiet, Log.Level.INFO, new Redactor()), new PrintWriter(new StringWriter()));
    assertThat(quiet.snapshot()).isEmpty();
  }

  @Test
  void quietAndLogLevel() throws Exception {
    assertThat(parse("-q", "https://x/mcp").logLevel()).isEqualTo(Log.Level.WARN);
    assertThat(parse("--log-level", "error", "https://x/mcp").logLevel()).isEqualTo(Log.Level.ERROR);
    assertThat(parse("--log-level", "WARNING", "https://x/mcp").logLevel()).isEqualTo(Log.Level.WARN);
  }

  @Test
  void theUrlIsValidatedFully() {
    assertThatThrownBy(() -> RelayCommand.url("https://x/mcp#frag")).isInstanceOf(UsageException.class);
    assertThatThrownBy(() -> RelayCommand.url("not a url")).isInstanceOf(UsageException.class);
    List.of("http://localhost:1/mcp", "https://[::1]:8443/mcp", "https://example.com/mcp?tenant=a")
        .forEach(u -> assertThatCode(() -> RelayCommand.url(u)).doesNotThrowAnyException());
  }

  @Test
  void oauthFlagsBecomeSettingsAndTheirConflictsAreRefused(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws Exception {
    assertThat(parse("https://example.com/mcp").oauth()).isNull();
    java.nio.file.Path secretFile = java.nio.file.Files.writeString(dir.resolve("secret"), "  s3cret-value\n");
    RelayConfig c = parse(Map.of("MCP_OAUTH_REFRESH_LEEWAY", "90"), "--oauth", "--client-id", "cid", "--client-secret-file",
        secretFile.toString(), "--oauth-scope", "read write", "--oauth-timeout", "30", "--token-store", dir.resolve("t.json").toString(),
        "--oauth-use-id-token", "--no-proactive-refresh", "https://example.com/mcp");
    var o = c.oauth();
    assertThat(o.clientId()).isEqualTo("cid");
    assertThat(o.clientSecret()).isEqualTo("s3cret-value");
    assertThat(o.scope()).isEqualTo("read write");
    assertThat(o.refreshLeeway()).isEqualTo(Duration.ofSeconds(90));
    assertThat(o.flowTimeout()).isEqualTo(Duration.ofSeconds(30));
    assertThat(o.tokenStore()).isEqualTo(dir.resolve("t.json").toAbsolutePath());
    assertThat(o.useIdToken()).isTrue();
    assertThat(o.proactiveRefresh()).isFalse();
    assertThat(o.resourceFor("https://Example.com/mcp/")).isEqualTo("https://example.com/mcp");
    assertThat(o.resourceFor("https://example.com/mcp?api_key=k")).isEqualTo("https://example.com/mcp"); // never the query
    assertThat(o.toString()).doesNotContain("s3cret-value");
    assertThat(redactor.scrub("x s3cret-value y")).isEqualTo("x <redacted> y");

    assertThat(parse("--oauth-device", "https://example.com/mcp").oauth().device()).isTrue(); // implies --oauth
    assertThat(parse(Map.of("MCP_BEARER_TOKEN", "env-token"), "--oauth", "https://example.com/mcp").headers()).isEmpty();
    assertThat(stderr.snapshot()).anySatisfy(l -> assertThat(l).contains("MCP_BEARER_TOKEN is ignored"));

    assertThat(exitCodeOf("--oauth", "--bearer-token", "t", "https://example.com/mcp")).isEqualTo(ExitCodes.FAILURE);
    assertThat(exitCodeOf("--oauth", "-H", "Authorization: Bearer x", "https://example.com/mcp")).isEqualTo(ExitCodes.FAILURE);
    assertThat(exitCodeOf("--oauth", "--oauth-device", "https://example.com/mcp")).isEqualTo(ExitCodes.FAILURE);
    assertThat(exitCodeOf("--oauth", "--oauth-resource", "api://x", "--no-resource-indicator", "https://example.com/mcp"))
        .isEqualTo(ExitCodes.FAILURE);
    assertThat(exitCodeOf("--oauth", "--oauth-resource", "relative/path", "https://example.com/mcp")).isEqualTo(ExitCodes.FAILURE);
    assertThat(parse("--oauth", "--oauth-resource", "api://my-app", "https://example.com/mcp").oauth().resourceFor("x"))
        .isEqualTo("api://my-app");
    assertThat(parse("--oauth", "https://example.com/mcp").oauth().flowTimeout()).isEqualTo(Duration.ofSeconds(120));
    assertThat(exitCodeOf("--oauth", "--client-credentials", "--client-id", "c", "https://example.com/mcp")).isEqualTo(ExitCodes.USAGE);
    assertThat(exitCodeOf("--oauth-device", "--client-credentials", "https://example.com/mcp")).isEqualTo(ExitCodes.USAGE);
    assertThat(exitCodeOf("--oauth", "--client-metadata-url", "http://example.com/c.json", "https://example.com/mcp"))
        .isEqualTo(ExitCodes.USAGE);
    assertThat(exitCodeOf("--oauth", "--client-metadata-url", "https://example.com/", "https://example.com/mcp"))
        .isEqualTo(ExitCodes.USAGE);
    assertThat(exitCodeOf("--oauth", "--client-secret-file", dir.resolve("missing").toString(), "--client-id", "c",
        "https://example.com/mcp")).isEqualTo(ExitCodes.USAGE);
    parse("--client-id", "c", "--oauth-scope", "s", "https://example.com/mcp");
    assertThat(stderr.snapshot()).anySatisfy(l -> assertThat(l)
        .contains("--client-id, --oauth-scope are ignored without --oauth or --oauth-device"));
  }

  @Test
  void theMetricsFileGetsTheCountsAsJsonOwnerOnlyAndTheLogASummary(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
    Path file = dir.resolve("relay-counts.json");
    RelayConfig config = parse("--metrics-file", file.toString(), "https://mcp.example.com:8443/secret/path?key=k");
    assertThat(config.metricsFile()).isEqualTo(file);
    assertThat(parse("https://mcp.example.com/mcp").metricsFile()).isNull();
    Main.reportCounts(new dev.mcpstdio.relay.RelayCounts.Snapshot(12, 9, 1, 2, 1, 3, 1), config, 0, 4200, log);
    assertThat(java.nio.file.Files.readString(file)).isEqualTo("{\"upstream\":\"https://mcp.example.com:8443\",\"uptimeMs\":4200,"
        + "\"exitCode\":0,\"requests\":12,\"results\":9,\"serverErrors\":1,\"relayErrors\":2,\"cancelled\":1,"
        + "\"retries\":3,\"reinitializations\":1}\n");
    assertThat(java.nio.file.Files.getPosixFilePermissions(file)).containsExactlyInAnyOrder(
        java.nio.file.attribute.PosixFilePermission.OWNER_READ, java.nio.file.attribute.PosixFilePermission.OWNER_WRITE);
    assertThat(String.join("\n", stderr.snapshot())).contains("relayed 12 requests: 9 results and 3 errors (1 from the server, 2 from the relay), 1 cancelled; "
        + "3 retries, 1 re-initialization");
  }
}
