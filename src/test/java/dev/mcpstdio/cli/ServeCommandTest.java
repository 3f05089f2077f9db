package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ServeCommandTest {

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Redactor redactor = new Redactor();
  private final Log log = new Log(logBytes, Log.Level.INFO, redactor);
  private final StringWriter err = new StringWriter();

  private ServeCommand.Parsed parsed(Map<String, String> env, String... args) throws UsageException {
    ServeCommand.Parsed parsed = ServeCommand.parse(args, env, log, new PrintWriter(err, true));
    return parsed;
  }

  private ServeConfig parse(Map<String, String> env, String... args) throws UsageException {
    ServeCommand.Parsed parsed = parsed(env, args);
    assertThat(parsed.exitNow()).as("exitNow").isNull();
    assertThat(parsed.config()).isNotNull();
    return parsed.config();
  }

  private ServeConfig parse(String... args) throws UsageException {
    return parse(Map.of(), args);
  }

  private UsageException usageError(String... args) {
    try {
      ServeCommand.Parsed result = parsed(Map.of(), args);
      throw new AssertionError("expected a usage error, got " + result);
    } catch (UsageException e) {
      assertThat(e.exitCode()).isEqualTo(ExitCodes.USAGE);
      return e;
    }
  }

  private String logText() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  @Nested
  class Defaults {

    @Test
    void sessionArgumentsAndWorkspacesAreCheckedUpFront() throws Exception {
      ServeConfig c = parse("--workspace-root", "/tmp/ws", "--session-arg", "--session-id", "--session-arg", "{sessionId}",
          "--session-arg", "--plans={plansFolder}", "--keep-workspaces");
      assertThat(c.launch().argTemplates()).containsExactly("--session-id", "{sessionId}", "--plans={plansFolder}");
      assertThat(c.launch().workspaceRoot()).isEqualTo(Path.of("/tmp/ws"));
      assertThat(c.launch().keepWorkspaces()).isTrue();
      assertThat(parse().launch()).isEqualTo(ServeConfig.SessionLaunch.NONE);
      usageError("--session-arg", "{nope}");
      usageError("--session-arg", "{workspaceRoot}"); // needs --workspace-root
      usageError("--keep-workspaces");
    }

    @Test
    void aSessionArgumentThatLooksLikeServesOwnOptionIsTheChilds() throws Exception {
      ServeConfig c = parse("--workspace-root", "/tmp/ws", "--session-arg", "--workspace-root", "--session-arg",
          "{workspaceRoot}", "--session-arg=--port", "--session-arg", "--help", "--port", "9000");
      assertThat(c.launch().argTemplates()).containsExactly("--workspace-root", "{workspaceRoot}", "--port", "--help");
      assertThat(c.port()).isEqualTo(9000);
      assertThat(c.launch().workspaceRoot()).isEqualTo(Path.of("/tmp/ws"));
      usageError("--session-arg");
    }

    @Test
    void connectionBoundsAndProxyTrustAreParsed() throws Exception {
      ServeConfig defaults = parse();
      assertThat(defaults.connections()).isEqualTo(ServeConfig.Connections.DEFAULT);
      assertThat(defaults.connections().max()).isEqualTo(512);
      assertThat(defaults.trustProxyHeaders()).isFalse();
      ServeConfig c = parse("--max-connections", "64", "--header-timeout", "2.5", "--body-timeout", "60",
          "--trust-proxy-headers");
      assertThat(c.connections()).isEqualTo(new ServeConfig.Connections(64, Duration.ofMillis(2500), Duration.ofSeconds(60)));
      assertThat(c.trustProxyHeaders()).isTrue();
      // a valued option's value is not taken for the child's command
      assertThat(parse("--max-connections", "8", "--", "my-server").child().argv()).containsExactly("my-server");
      usageError("--max-connections", "0");
      usageError("--header-timeout", "0");
      usageError("--body-timeout", "-1");
    }

    @Test
    void legacySseEndpointsAreOnByDefaultAndCanBeMovedOrSwitchedOff() throws Exception {
      ServeConfig c = parse();
      assertThat(c.ssePath()).isEqualTo("/sse");
      assertThat(c.messagesPath()).isEqualTo("/messages");
      assertThat(parse("--no-sse").ssePath()).isNull();
      ServeConfig moved = parse("--sse-path", "/legacy/sse", "--messages-path", "/legacy/messages");
      assertThat(moved.ssePath()).isEqualTo("/legacy/sse");
      assertThat(moved.messagesPath()).isEqualTo("/legacy/messages");
      usageError("--sse-path", "/mcp");
      usageError("--messages-path", "no-slash");
    }

    @Test
    void withoutOptionsTheDefaultsApply() throws Exception {
      ServeConfig c = parse();

      assertThat(c.host()).isEqualTo("127.0.0.1");
      assertThat(c.port()).isEqualTo(8080);
      assertThat(c.path()).isEqualTo("/mcp");
      assertThat(c.maxSessions()).isEqualTo(100);
      assertThat(c.sessionIdleTtl()).isEqualTo(Duration.ofMinutes(30));
      assertThat(c.maxMessageSize()).isEqualTo(10L * 1024 * 1024);
      assertThat(c.backendTimeout()).isEqualTo(Duration.ofSeconds(120));
      assertThat(c.keepAlive()).isEqualTo(ServeConfig.DEFAULT_KEEP_ALIVE);
      assertThat(c.allowedOrigins()).isEmpty();
      assertThat(c.publicUrl()).isNull();
      assertThat(c.authToken()).isNull();
      assertThat(c.authToken()).isNull();
      assertThat(c.ladder()).isEqualTo(ChildProcess.Ladder.DEFAULT);
      assertThat(c.logLevel()).isEqualTo(Log.Level.INFO);
      assertThat(logText()).isEmpty(); // loopback without a token is not worth a warning
    }

    @Test
    void atFileArgumentsReachTheChildLiterally(@TempDir Path dir) throws Exception {
      Path file = Files.writeString(dir.resolve("args.txt"), "hello world\n");
      ServeConfig c = parse("--", "npx", "@" + file, "@modelcontextprotocol/server-everything");
      assertThat(c.child().argv()).containsExactly("npx", "@" + file, "@modelcontextprotocol/server-everything");
    }

    @Test
    void withoutACommandTheDemoServerIsTheChild() throws Exception {
      ServeConfig c = parse();

      List<String> argv = c.child().argv();
      assertThat(argv.getLast()).isEqualTo("demo");
      assertThat(argv).contains(Main.class.getName(), "-cp", "-Xlog:disable", "-XX:+DisplayVMOutputToStderr");
      assertThat(argv.getFirst()).isEqualTo(ProcessHandle.current().info().command().orElse("java"));
      assertThat(c.child()).isEqualTo(ServeCommand.demoChild(Map.of()).without(ServeCommand.GATEWAY_SECRETS));
    }

    @Test
    void theDemoRunsThroughTheLauncherWhenThereIsOne() throws Exception {
      ServeConfig c = parse(Map.of("MCP_STDIO_LAUNCHER", "/bin/sh"));

      assertThat(c.child().argv()).containsExactly("/bin/sh", "demo");
      assertThat(c.child().extraEnv()).containsEntry("MCP_STDIO_NO_BUILD", "1"); // never rebuilt under serve
    }

    @Test
    void aLauncherThatIsNotExecutableIsIgnored(@TempDir Path dir) throws Exception {
      Path notExecutable = Files.writeString(dir.resolve("mcp-stdio"), "#!/bin/sh\n");

      for (String launcher : List.of(notExecutable.toString(), dir.resolve("missing").toString(), " ")) {
        ServeConfig c = parse(Map.of("MCP_STDIO_LAUNCHER", launcher));
        assertThat(c.child().argv().getLast()).isEqualTo("demo");
        assertThat(c.child().argv()).as(launcher).contains(Main.class.getName());
      }
    }
  }

  @Nested
  class Command {

    @Test
    void theCommandAfterDoubleDashIsTheChildWithItsOwnOptions() throws Exception {
      ServeConfig c = parse("--port", "9000", "--", "node", "server.js", "--port", "1");

      assertThat(c.port()).isEqualTo(9000);
      assertThat(c.child().argv()).containsExactly("node", "server.js", "--port", "1");
    }

    @Test
    void withoutDoubleDashOptionsAfterTheCommandBelongToTheCommand() throws Exception {
      ServeConfig c = parse("node", "server.js", "--port", "1", "--path", "/x", "-v");

      assertThat(c.port()).isEqualTo(8080);
      assertThat(c.path()).isEqualTo("/mcp");
      assertThat(c.logLevel()).isEqualTo(Log.Level.INFO);
      assertThat(c.child().argv()).containsExactly("node", "server.js", "--port", "1", "--path", "/x", "-v");
    }

    @Test
    void optionsBeforeTheCommandAreTheGatewaysOwn() throws Exception {
      ServeConfig c = parse("--port", "9001", "--path", "/rpc", "npx", "-y", "@scope/server");

      assertThat(c.port()).isEqualTo(9001);
      assertThat(c.path()).isEqualTo("/rpc");
      assertThat(c.child().argv()).containsExactly("npx", "-y", "@scope/server");
    }

    @Test
    void helpAfterTheCommandIsTheCommandsHelp() throws Exception {
      ServeConfig c = parse("node", "server.js", "--help");

      assertThat(c.child().argv()).containsExactly("node", "server.js", "--help");
      assertThat(err.toString()).isEmpty();
    }

    @Test
    void aDoubleDashWithNothingAfterItServesTheDemo() throws Exception {
      ServeConfig c = parse("--port", "9002", "--");

      assertThat(c.child().argv().getLast()).isEqualTo("demo");
    }

    @Test
    void anUnknownOptionIsAUsageError() {
      assertThat(usageError("--no-such-option").getMessage()).contains("serve --help");
    }
  }

  @Nested
  class Port {

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 8081, 65535})
    void portsInRangeAreAccepted(int port) throws Exception {
      assertThat(parse("--port", Integer.toString(port)).port()).isEqualTo(port);
    }

    @Test
    void surroundingSpacesAreTolerated() throws Exception {
      assertThat(parse("--port", " 9000 ").port()).isEqualTo(9000);
    }

    @ParameterizedTest
    @ValueSource(strings = {"70000", "65536", "-1", "abc", "", "80.5", "99999999999"})
    void portsOutOfRangeOrNotNumbersAreRejected(String port) {
      assertThat(usageError("--port", port).getMessage()).contains("--port").contains("0 to 65535");
    }

    @Test
    void aMissingValueIsAUsageError() {
      usageError("--port");
    }

    @Test
    void aLaterHostOrPortWinsAsArgumentsAppendedToTheImagesEntrypointDo() throws Exception {
      ServeConfig c = parse("--host", "0.0.0.0", "--port", "8080", "--port", "9000", "--host", "127.0.0.1", "--", "node", "s.js");
      assertThat(c.host()).isEqualTo("127.0.0.1");
      assertThat(c.port()).isEqualTo(9000);
      assertThat(c.child().argv()).containsExactly("node", "s.js");
    }
  }

  @Nested
  class PathAndLimits {

    @ParameterizedTest
    @ValueSource(strings = {"/", "/mcp", "/api/v1/mcp", "/with-dash_and.dot"})
    void pathsStartingWithSlashAreAccepted(String path) throws Exception {
      assertThat(parse("--path", path).path()).isEqualTo(path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"mcp", "", "/a b", "/a\tb", "/a?x=1", "/a#frag", "/a\"b", "http://h/mcp", "/a\nb"})
    void badPathsAreRejected(String path) {
      assertThat(usageError("--path", path).getMessage()).contains("--path");
    }

    @Test
    void maxSessionsMustBeAtLeastOne() throws Exception {
      assertThat(usageError("--max-sessions", "0").getMessage()).contains("--max-sessions");
      usageError("--max-sessions", "-5");
      usageError("--max-sessions", "100001");
      assertThat(parse("--max-sessions", "1").maxSessions()).isEqualTo(1);
      assertThat(parse("--max-sessions", "100000").maxSessions()).isEqualTo(100_000);
    }

    @Test
    void warmIsZeroByDefaultAndAtMostMaxSessions() throws Exception {
      assertThat(parse().warm()).isZero();
      assertThat(parse("--warm", "8").warm()).isEqualTo(8);
      assertThat(parse("--max-sessions", "4", "--warm", "4", "--", "srv").warm()).isEqualTo(4);
      assertThat(usageError("--max-sessions", "4", "--warm", "5").getMessage()).contains("--warm must not exceed --max-sessions (4)");
      usageError("--warm", "-1");
      usageError("--warm", "1025");
      assertThat(parse("--warm", "2", "srv", "--warm", "9").child().argv()).containsExactly("srv", "--warm", "9");
    }

    @Test
    void timeoutsAndSizesAreParsed() throws Exception {
      ServeConfig c = parse("--session-idle-ttl", "30", "--backend-timeout", "2.5", "--max-message-size", "0");

      assertThat(c.sessionIdleTtl()).isEqualTo(Duration.ofSeconds(30));
      assertThat(c.backendTimeout()).isEqualTo(Duration.ofMillis(2500));
      assertThat(c.maxMessageSize()).isZero();
    }

    @Test
    void aZeroBackendTimeoutIsRejectedButAZeroIdleTtlIsNot() throws Exception {
      usageError("--backend-timeout", "0");
      usageError("--max-message-size", "-1");
      usageError("--session-idle-ttl", "-1");
      assertThat(parse("--session-idle-ttl", "0").sessionIdleTtl()).isZero();
    }

    @Test
    void anEmptyHostIsRejected() {
      assertThat(usageError("--host", "  ").getMessage()).contains("--host");
    }

    @Test
    void theHostIsTrimmed() throws Exception {
      assertThat(parse("--host", " ::1 ").host()).isEqualTo("::1");
    }

    @Test
    void logLevelFlags() throws Exception {
      assertThat(parse("-v").logLevel()).isEqualTo(Log.Level.DEBUG);
      assertThat(parse("--quiet").logLevel()).isEqualTo(Log.Level.WARN);
      assertThat(parse("--log-level", "error").logLevel()).isEqualTo(Log.Level.ERROR);
      assertThat(parse("--log-level", "warning").logLevel()).isEqualTo(Log.Level.WARN);
      usageError("--log-level", "loud");
    }
  }

  @Nested
  class Authentication {

    private static final String TOKEN = "tok-9f8e7d6c5b4a";

    @Test
    void theTokenComesFromTheEnvironmentAndIsScrubbedFromLogs() throws Exception {
      ServeConfig c = parse(Map.of("MCP_STDIO_SERVE_TOKEN", TOKEN));

      assertThat(c.authToken()).isEqualTo(TOKEN);
      assertThat(c.authToken()).isNotBlank();
      assertThat(c.child().removedEnv()).contains("MCP_STDIO_SERVE_TOKEN", "MCP_STDIO_OAUTH_CLIENT_SECRET", "MCP_STDIO_LOGIN_OIDC_CLIENT_SECRET");
      assertThat(logText()).doesNotContain("ps");

      log.info("the client sent " + TOKEN + " as a query value");
      assertThat(logText()).contains("the client sent <redacted> as a query value").doesNotContain(TOKEN);
      assertThat(redactor.scrub("x" + TOKEN + "y")).isEqualTo("x<redacted>y");
    }

    @Test
    void theAuthTokenFlagWarnsThatPsShowsItAndWinsOverTheEnvironment() throws Exception {
      ServeConfig c = parse(Map.of("MCP_STDIO_SERVE_TOKEN", "from-the-env"), "--auth-token", TOKEN);

      assertThat(c.authToken()).isEqualTo(TOKEN);
      assertThat(logText()).contains("warning: --auth-token is visible to every local user in ps")
          .contains("MCP_STDIO_SERVE_TOKEN");
      log.info("token " + TOKEN);
      assertThat(logText()).doesNotContain(TOKEN);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "   "})
    void aBlankTokenMeansNoAuthentication(String blank) throws Exception {
      assertThat(parse(Map.of("MCP_STDIO_SERVE_TOKEN", blank)).authToken()).isNull();
      assertThat(parse(Map.of(), "--auth-token", blank).authToken()).isNull();
    }

    @Test
    void servingBeyondLoopbackWithoutATokenWarns() throws Exception {
      parse("--host", "0.0.0.0", "node", "server.js");

      assertThat(logText()).contains("warning: serving on 0.0.0.0 without authentication")
          .contains("can run node");
    }

    @Test
    void servingBeyondLoopbackWithATokenDoesNotWarn() throws Exception {
      parse(Map.of("MCP_STDIO_SERVE_TOKEN", TOKEN), "--host", "0.0.0.0");

      assertThat(logText()).doesNotContain("without authentication");
    }

    @ParameterizedTest
    @ValueSource(strings = {"localhost", "127.0.0.5", "::1", "[::1]"})
    void loopbackHostsWithoutATokenDoNotWarn(String host) throws Exception {
      parse("--host", host);

      assertThat(logText()).isEmpty();
    }
  }

  @Nested
  class Origins {

    @Test
    void allowedOriginsAreNormalisedAndRepeatable() throws Exception {
      ServeConfig c = parse("--allow-origin", "https://App.Example/", "--allow-origin", "http://localhost:5173",
          "--allow-origin", " https://tool.example:8443 ");

      assertThat(c.allowedOrigins()).containsExactly("https://app.example", "http://localhost:5173", "https://tool.example:8443");
    }

    @ParameterizedTest
    @ValueSource(strings = {"app.example", "https://", "https://app.example/path", "https://user@app.example",
        "https://app.example?x", "https://app.example#f", "https://app example", "https://\"app\"", "*", "null", ""})
    void malformedOriginsAreRejected(String origin) {
      assertThat(usageError("--allow-origin", origin).getMessage()).contains("--allow-origin");
    }
  }

  @Nested
  class PublicUrl {

    @ParameterizedTest
    @ValueSource(strings = {"https://mcp.example.com", "https://mcp.example.com/base/", "https://mcp.example.com:8443/a/b",
        "http://localhost:8080/mcp", "http://127.0.0.1", "http://[::1]:9000"})
    void httpsOrLoopbackHttpIsAccepted(String url) throws Exception {
      assertThat(parse("--public-url", url).publicUrl()).isEqualTo(URI.create(url));
    }

    @Test
    void plainHttpBeyondLoopbackIsRejected() {
      assertThat(usageError("--public-url", "http://mcp.example.com").getMessage()).contains("https");
      usageError("--public-url", "http://10.0.0.1:8080/mcp");
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://user:pw@mcp.example.com", "https://user@mcp.example.com", "https://mcp.example.com/?q=1",
        "https://mcp.example.com/#frag", "https:///no-host", "https:/mcp.example.com"})
    void credentialsQueryFragmentOrNoHostAreRejected(String url) {
      assertThat(usageError("--public-url", url).getMessage()).contains("--public-url");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ftp://mcp.example.com", "mcp.example.com", "/relative", "", "ws://localhost"})
    void otherSchemesAreRejected(String url) {
      assertThat(usageError("--public-url", url).getMessage()).contains("http");
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://mcp.example.com/a b", "https://mcp.example.com/\"x\"", "https://[::1"})
    void unparseableUrlsAreRejected(String url) {
      assertThat(usageError("--public-url", url).getMessage()).contains("--public-url");
    }
  }

  @Nested
  class HelpAndVersion {

    @ParameterizedTest
    @ValueSource(strings = {"--help", "-h"})
    void helpPrintsUsageAndExitsOk(String flag) throws Exception {
      ServeCommand.Parsed parsed = parsed(Map.of(), flag);

      assertThat(parsed.exitNow()).isEqualTo(ExitCodes.OK);
      assertThat(parsed.config()).isNull();
      assertThat(err.toString()).contains("Usage:").contains("mcp-stdio serve").contains("--max-sessions")
          .contains("--allow-origin").contains("MCP_STDIO_SERVE_TOKEN");
    }

    @Test
    void helpWinsOverAnUnparseableCommandLine() throws Exception {
      ServeCommand.Parsed parsed = parsed(Map.of(), "--port", "--help");

      assertThat(parsed.exitNow()).isEqualTo(ExitCodes.OK);
      assertThat(err.toString()).contains("Usage:");
    }

    @Test
    void helpIsNotParsedForValues() throws Exception {
      ServeCommand.Parsed parsed = parsed(Map.of(), "--help", "--port", "70000");

      assertThat(parsed.exitNow()).isEqualTo(ExitCodes.OK);
    }

    @Test
    void aChildsHelpFlagDoesNotHideAUsageError() {
      UsageException e = usageError("--no-such-option", "node", "server.js", "--help");

      assertThat(e.getMessage()).contains("--no-such-option");
      assertThat(err.toString()).doesNotContain("Usage:");
    }

    @Test
    void versionPrintsTheVersionAndExitsOk() throws Exception {
      ServeCommand.Parsed parsed = parsed(Map.of(), "--version");

      assertThat(parsed.exitNow()).isEqualTo(ExitCodes.OK);
      assertThat(err.toString()).startsWith("mcp-stdio ");
    }
  }

  @Test
  void aUsageErrorNamesTheHelp() {
    assertThatThrownBy(() -> ServeCommand.parse(new String[] {"--max-sessions", "x"}, Map.of(), log, new PrintWriter(err)))
        .isInstanceOf(UsageException.class)
        .hasMessageContaining("--max-sessions expects a whole number from 1 to 100000, got 'x'");
  }

  @org.junit.jupiter.api.Nested
  class EmbeddedOAuth {

    @org.junit.jupiter.api.Test
    void offByDefault() throws UsageException {
      assertThat(parse("--", "cat").oauth()).isEqualTo(ServeConfig.EmbeddedOAuth.OFF);
    }

    @org.junit.jupiter.api.Test
    void enabledWithItsFlags() throws UsageException {
      ServeConfig.EmbeddedOAuth o = parse("--enable-oauth", "--trusted-user-header", "X-Forwarded-User", "--dev-user", "dev",
          "--allow-redirect-uri", "https://claude.ai/api/mcp/auth_callback", "--allow-redirect-uri", "https://b.example/cb",
          "--access-token-ttl", "600", "--", "cat").oauth();
      assertThat(o.enabled()).isTrue();
      assertThat(o.trustedUserHeader()).isEqualTo("X-Forwarded-User");
      assertThat(o.devUser()).isEqualTo("dev");
      assertThat(o.allowedRedirectUris()).containsExactlyInAnyOrder("https://claude.ai/api/mcp/auth_callback", "https://b.example/cb");
      assertThat(o.accessTokenTtl()).hasSeconds(600);
      assertThat(o.tokenStore()).isNull();
      assertThat(parse("--enable-oauth", "--token-store", "/var/lib/mcp/grants.json", "--", "cat").oauth().tokenStore())
          .isEqualTo(java.nio.file.Path.of("/var/lib/mcp/grants.json"));
      assertThat(usageError("--token-store", "x.json", "--", "cat").getMessage()).contains("need --enable-oauth");
      assertThat(logText()).contains("--dev-user signs every authorization in as dev");
    }

    @org.junit.jupiter.api.Test
    void withNobodyToSignInItSaysSo() throws UsageException {
      assertThat(parse("--enable-oauth", "--", "cat").oauth().enabled()).isTrue();
      assertThat(logText()).contains("nobody can sign in");
    }

    @org.junit.jupiter.api.Test
    void itsFlagsNeedIt() {
      assertThat(usageError("--dev-user", "x", "--", "cat").getMessage()).contains("need --enable-oauth");
      assertThat(usageError("--allow-redirect-uri", "https://a.example/cb", "--", "cat").getMessage()).contains("need --enable-oauth");
    }

    @org.junit.jupiter.api.Test
    void resourceServerModeAndItsFlags(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
      assertThat(parse("--", "cat").identityProvider()).isNull();
      java.nio.file.Path secret = dir.resolve("secret");
      java.nio.file.Files.writeString(secret, "s3cret\n");
      ServeConfig c = parse("--oauth-issuer", "https://idp.example/realms/corp", "--oauth-audience", "mcp", "--require-scope", "mcp:tools",
          "--oauth-client-id", "gw", "--oauth-client-secret-file", secret.toString(), "--", "cat");
      assertThat(c.identityProvider()).isEqualTo(new dev.mcpstdio.serve.auth.ExternalTokens.Settings("https://idp.example/realms/corp",
          "mcp", List.of("mcp:tools"), "gw", "s3cret"));
      assertThat(c.identityProvider().toString()).doesNotContain("s3cret");
      assertThat(parse("--oauth-issuer", "https://idp.example", "--user-env", "MCP_USER", "--", "cat").owners().userEnv()).isEqualTo("MCP_USER");
      assertThat(usageError("--oauth-issuer", "http://idp.example", "--", "cat").getMessage()).contains("plain http");
      assertThat(usageError("--oauth-issuer", "https://idp.example?x=1", "--", "cat").getMessage()).contains("no query");
      assertThat(usageError("--oauth-issuer", "https://idp.example", "--enable-oauth", "--", "cat").getMessage()).contains("together");
      assertThat(usageError("--oauth-issuer", "https://idp.example", "--require-scope", "a\"b", "--", "cat").getMessage()).contains("not a scope");
      assertThat(usageError("--oauth-issuer", "https://idp.example", "--oauth-client-id", "gw", "--", "cat").getMessage()).contains("secret");
      assertThat(usageError("--oauth-audience", "mcp", "--", "cat").getMessage()).contains("need --oauth-issuer");
      assertThat(usageError("--host", "0.0.0.0", "--oauth-issuer", "https://idp.example", "--", "cat").getMessage())
          .contains("--oauth-audience or --public-url");
    }

    @org.junit.jupiter.api.Test
    void federatedLoginAndItsClient(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
      java.nio.file.Path secret = dir.resolve("secret");
      java.nio.file.Files.writeString(secret, "oidc-secret\n");
      ServeConfig.EmbeddedOAuth o = parse("--enable-oauth", "--login-oidc", "https://login.example/realms/corp",
          "--login-oidc-client-id", "gw", "--login-oidc-client-secret-file", secret.toString(), "--", "cat").oauth();
      assertThat(o.login()).isEqualTo(new dev.mcpstdio.serve.auth.FederationSettings("https://login.example/realms/corp", "gw", "oidc-secret"));
      assertThat(logText()).doesNotContain("nobody can sign in").doesNotContain("oidc-secret");
      assertThat(usageError("--login-oidc", "https://login.example", "--login-oidc-client-id", "gw", "--login-oidc-client-secret-file",
          secret.toString(), "--", "cat").getMessage()).contains("needs --enable-oauth");
      assertThat(usageError("--enable-oauth", "--login-oidc", "https://login.example", "--", "cat").getMessage())
          .contains("--login-oidc-client-id");
      assertThat(usageError("--enable-oauth", "--login-oidc", "https://login.example", "--login-oidc-client-id", "gw", "--", "cat")
          .getMessage()).contains("secret");
      assertThat(usageError("--enable-oauth", "--dev-user", "d", "--login-oidc", "https://login.example", "--login-oidc-client-id", "gw",
          "--login-oidc-client-secret-file", secret.toString(), "--", "cat").getMessage()).contains("--dev-user");
      assertThat(usageError("--enable-oauth", "--login-oidc", "http://login.example", "--", "cat").getMessage()).contains("plain http");
    }

    @org.junit.jupiter.api.Test
    void perOwnerBoundsAndTheUserEnvironment() throws UsageException {
      assertThat(parse("--", "cat").owners()).isEqualTo(ServeConfig.Owners.NONE);
      assertThat(parse("--enable-oauth", "--max-sessions-per-owner", "3", "--user-env", "MCP_USER", "--", "cat").owners())
          .isEqualTo(new ServeConfig.Owners(3, "MCP_USER"));
      assertThat(usageError("--max-sessions-per-owner", "3", "--", "cat").getMessage()).contains("need signed-in users");
      assertThat(usageError("--user-env", "MCP_USER", "--", "cat").getMessage()).contains("need signed-in users");
      assertThat(usageError("--enable-oauth", "--user-env", "LD_PRELOAD", "--", "cat").getMessage()).contains("what runs");
      assertThat(usageError("--enable-oauth", "--user-env", "Path", "--", "cat").getMessage()).contains("what runs");
      assertThat(usageError("--enable-oauth", "--user-env", "A=B", "--", "cat").getMessage()).contains("not an environment variable name");
      assertThat(usageError("--enable-oauth", "--user-env", "U", "--warm", "2", "--", "cat").getMessage()).contains("--warm");
      assertThat(usageError("--enable-oauth", "--max-sessions-per-owner", "-1", "--", "cat").getMessage())
          .contains("--max-sessions-per-owner");
    }

    @org.junit.jupiter.api.Test
    void badValuesAreRefused() {
      assertThat(usageError("--enable-oauth", "--trusted-user-header", "X User", "--", "cat").getMessage()).contains("header name");
      assertThat(usageError("--enable-oauth", "--dev-user", "a\nb", "--", "cat").getMessage()).contains("--dev-user");
      assertThat(usageError("--enable-oauth", "--allow-redirect-uri", "http://a.example/cb", "--", "cat").getMessage()).contains("https");
      assertThat(usageError("--enable-oauth", "--allow-redirect-uri", "https://a.example/cb#x", "--", "cat").getMessage()).contains("https");
      assertThat(usageError("--enable-oauth", "--access-token-ttl", "30", "--", "cat").getMessage()).contains("60 to 86400");
      assertThat(usageError("--enable-oauth", "--allow-redirect-uri", "https://u@a.example/cb", "--", "cat").getMessage()).contains("https");
    }

    @org.junit.jupiter.api.Test
    void offLoopbackTheIssuerMustNotComeFromTheHostHeader() throws UsageException {
      assertThat(usageError("--enable-oauth", "--host", "0.0.0.0", "--", "cat").getMessage()).contains("--public-url");
      assertThat(parse("--enable-oauth", "--host", "0.0.0.0", "--public-url", "https://gw.example", "--", "cat").oauth().enabled()).isTrue();
      assertThat(parse("--enable-oauth", "--host", "0.0.0.0", "--trust-proxy-headers", "--", "cat").oauth().enabled()).isTrue();
    }
  }
}
