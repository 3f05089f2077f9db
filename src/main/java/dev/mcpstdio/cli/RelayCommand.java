package dev.mcpstdio.cli;

import static dev.mcpstdio.cli.CliOptions.bytes;
import static dev.mcpstdio.cli.CliOptions.flag;
import static dev.mcpstdio.cli.CliOptions.level;
import static dev.mcpstdio.cli.CliOptions.option;
import static dev.mcpstdio.cli.CliOptions.parseOrAnswer;
import static dev.mcpstdio.cli.CliOptions.seconds;

import dev.mcpstdio.Version;
import dev.mcpstdio.net.Hosts;
import dev.mcpstdio.relay.Header;
import dev.mcpstdio.relay.EraMemory;
import dev.mcpstdio.relay.ProtocolEra;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.relay.RetryPolicy;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine;

/**
 * The relay's command line: {@code mcp-stdio [OPTIONS] URL}.
 *
 * <p>The picocli model is built programmatically rather than from annotations: no reflection on
 * the start-up path, which a host pays for on every spawn.
 */
final class RelayCommand {

  /** Header names whose values are credentials, kept out of logs. */
  private static final List<String> SECRET_HINTS =
      List.of("authorization", "cookie", "token", "secret", "key", "password", "session", "auth");

  /** Headers the HTTP client manages itself; pinning them is refused up front. */
  private static final List<String> RESTRICTED =
      List.of("connection", "content-length", "expect", "host", "upgrade");

  /** What parsing produced: a config to run, or an exit code to return right away. */
  record Parsed(RelayConfig config, Integer exitNow, Log.Format logFormat) {}

  private RelayCommand() {}

  static CommandSpec spec() {
    CommandSpec spec = CommandSpec.create().name("mcp-stdio").version("mcp-stdio " + Version.get());
    spec.usageMessage()
        .description(
            "Relay an MCP stdio host to a remote MCP server over Streamable HTTP.",
            "stdin/stdout carry newline-delimited JSON-RPC; diagnostics go to stderr.");
    spec.addPositional(
        PositionalParamSpec.builder().paramLabel("URL").arity("1").type(String.class)
            .description("The remote MCP endpoint, e.g. https://example.com/mcp").build());
    option(spec, "--bearer-token", "TOKEN", String.class,
        "Send 'Authorization: Bearer TOKEN' (default: $MCP_BEARER_TOKEN; prefer the env var, flags show in ps).");
    spec.addOption(OptionSpec.builder("-H", "--header").paramLabel("'Name: value'").type(List.class)
        .auxiliaryTypes(String.class).description("Extra request header (repeatable); overrides a built-in of the same name.").build());
    OAuthOptions.declare(spec);
    option(spec, "--transport", "KIND", String.class,
        "auto (default: Streamable HTTP, else HTTP+SSE of 2024-11-05), streamable-http or sse.");
    option(spec, "--protocol-era", "ERA", String.class,
        "auto (default: the era remembered for this server, else a server/discover probe; 2026-07-28 when the server "
            + "speaks it), modern (2026-07-28) or legacy (2025 era only, no probe); default $MCP_STDIO_PROTOCOL_ERA.");
    option(spec, "--timeout-connect", "SECONDS", String.class, "Connection timeout (default 10).");
    option(spec, "--timeout-read", "SECONDS", String.class, "Read timeout: waiting for a response, and silence within one (default 120).");
    option(spec, "--sse-read-timeout", "SECONDS", String.class, "Silence allowed on the server's GET event stream before it is reopened; 0 disables (default 300).");
    option(spec, "--max-message-size", "BYTES", String.class, "Largest message accepted in either direction; 0 disables (default 10485760).");
    spec.addOption(OptionSpec.builder("--ca-file").paramLabel("PEM").type(List.class).auxiliaryTypes(String.class)
        .description("Also trust the certificates in this PEM file (repeatable).").build());
    flag(spec, "--no-tcp-keepalive", "Do not enable TCP keepalive on upstream connections.");
    flag(spec, "--no-cancel-filter", "Relay responses that arrive after the host cancelled the request.");
    flag(spec, "--no-normalize-arguments", "Send tools/call 'arguments: null' as written instead of as {}.");
    flag(spec, "--check", "Check connectivity once, report on stderr and exit 0 or 1.");
    spec.addOption(OptionSpec.builder("--test").arity("0").hidden(true).build());
    option(spec, "--metrics-file", "FILE", String.class,
        "At exit, write what the relay counted (requests, results, errors, cancels, retries, re-initializations) to FILE as JSON (0600).");
    option(spec, "--log-level", "LEVEL", String.class, "debug, info, warn, error or off (default info).");
    CliOptions.declareLogFormat(spec);
    flag(spec, "-v", "--verbose", "Same as --log-level debug.");
    flag(spec, "-q", "--quiet", "Same as --log-level warn.");
    flag(spec, "-V", "--version", "Print the version and exit.");
    flag(spec, "-h", "--help", "Show this help and exit.");
    return spec;
  }

  /** Parses the relay's arguments; usage output goes to {@code err}. */
  static Parsed parse(String[] args, Map<String, String> env, Log log, PrintWriter err)
      throws UsageException {
    ParseResult r = parseOrAnswer(new CommandLine(spec()), args, args, "--help", err);
    if (r == null) {
      return new Parsed(null, ExitCodes.OK, Log.Format.TEXT);
    }
    return new Parsed(build(r, env, log), null, CliOptions.logFormat(r, env));
  }

  private static RelayConfig build(ParseResult r, Map<String, String> env, Log log)
      throws UsageException {
    Redactor redactor = log.redactor();
    if (r.matchedPositionals().isEmpty()) {
      throw new UsageException("missing URL: mcp-stdio [OPTIONS] URL (see --help)", ExitCodes.USAGE);
    }
    URI url = url(r.matchedPositional(0).getValue());
    RelayConfig config = RelayConfig.defaults(url);

    List<Header> headers = new ArrayList<>();
    boolean explicitBearer = r.hasMatchedOption("--bearer-token");
    String bearer = explicitBearer ? r.matchedOptionValue("--bearer-token", "") : env.get("MCP_BEARER_TOKEN");
    if (bearer != null && !explicitBearer && (r.hasMatchedOption("--oauth") || r.hasMatchedOption("--oauth-device"))) {
      log.warn("MCP_BEARER_TOKEN is ignored: --oauth signs in itself");
      bearer = null;
    }
    if (bearer != null) {
      if (!Header.isSafeValue(bearer)) {
        throw new UsageException("the bearer token contains CR, LF or NUL", ExitCodes.FAILURE);
      }
      if (bearer.isEmpty()) {
        if (explicitBearer) {
          log.warn("--bearer-token is empty; sending no Authorization header");
        }
      } else {
        redactor.addSecret(bearer);
        headers.add(new Header("Authorization", "Bearer " + bearer));
      }
    }
    List<String> pins = r.matchedOptionValue("--header", List.<String>of());
    for (String spec : pins) {
      Header h;
      try {
        h = Header.parse(spec);
      } catch (IllegalArgumentException e) {
        throw new UsageException("-H " + e.getMessage(), ExitCodes.FAILURE);
      }
      if (RESTRICTED.contains(h.lowerName())) {
        throw new UsageException("-H " + h.name() + " cannot be set: the HTTP client manages it", ExitCodes.FAILURE);
      }
      if (isSecretName(h.lowerName())) {
        redactor.addSecret(h.value());
        int space = h.value().indexOf(' ');
        if (space > 0) {
          redactor.addSecret(h.value().substring(space + 1).trim()); // the credential after "Bearer "
        }
      }
      if (headers.removeIf(existing -> existing.lowerName().equals(h.lowerName()))
          && h.lowerName().equals("authorization") && explicitBearer) {
        log.warn("-H Authorization replaces the --bearer-token header");
      }
      headers.add(h);
    }

    Duration connect = seconds(r, "--timeout-connect", Duration.ofSeconds(10), false);
    Duration read = seconds(r, "--timeout-read", Duration.ofSeconds(120), false);
    Duration stream = seconds(r, "--sse-read-timeout", Duration.ofSeconds(300), true);
    long maxMessage = bytes(r, "--max-message-size", RelayConfig.DEFAULT_MAX_MESSAGE_SIZE);
    List<Path> caFiles = new ArrayList<>();
    for (String file : r.matchedOptionValue("--ca-file", List.<String>of())) {
      caFiles.add(Path.of(file));
    }
    boolean check = r.hasMatchedOption("--check") || r.hasMatchedOption("--test");
    if (r.hasMatchedOption("--test")) {
      log.warn("--test is deprecated; use --check");
    }
    if ("http".equalsIgnoreCase(url.getScheme()) && !headers.isEmpty() && !Hosts.isLoopback(url.getHost())
        && headers.stream().anyMatch(h -> isSecretName(h.lowerName()))) {
      log.warn("credentials will travel unencrypted over http:// to " + url.getHost());
    }
    RelayConfig.Transport transport = switch (r.matchedOptionValue("--transport", "auto").trim().toLowerCase(Locale.ROOT)) {
      case "auto" -> RelayConfig.Transport.AUTO;
      case "streamable-http", "http", "streamable" -> RelayConfig.Transport.STREAMABLE_HTTP;
      case "sse" -> RelayConfig.Transport.SSE;
      default -> throw new UsageException("--transport must be auto, streamable-http or sse", ExitCodes.USAGE);
    };
    if (transport == RelayConfig.Transport.SSE && check) {
      throw new UsageException("--check speaks Streamable HTTP only; drop --transport sse to check", ExitCodes.USAGE);
    }
    RelayConfig.EraSettings era = era(r, env, transport);
    boolean staticAuthorization = bearer != null && !bearer.isEmpty()
        || headers.stream().anyMatch(h -> h.lowerName().equals("authorization"));
    return config
        .withOAuth(OAuthOptions.parse(r, env, log, staticAuthorization, false))
        .withTransport(transport)
        .withEra(era)
        .withHeaders(headers)
        .withTimeouts(connect, read, stream)
        .withLimits(maxMessage)
        .withBehaviour(!r.hasMatchedOption("--no-cancel-filter"), !r.hasMatchedOption("--no-normalize-arguments"))
        .withNetwork(!r.hasMatchedOption("--no-tcp-keepalive"), caFiles)
        .withRetry(RetryPolicy.DEFAULT)
        .withMode(check, level(r), Duration.ofSeconds(2))
        .withMetricsFile(r.hasMatchedOption("--metrics-file") ? java.nio.file.Path.of(r.matchedOptionValue("--metrics-file", "")) : null);
  }

  /**
   * The era from {@code --protocol-era}, else {@code MCP_STDIO_PROTOCOL_ERA}, else auto; auto
   * remembers what it found per server in {@link EraMemory#defaultFile}. HTTP+SSE (2024-11-05)
   * exists only in the 2025 era.
   */
  private static RelayConfig.EraSettings era(ParseResult r, Map<String, String> env, RelayConfig.Transport transport)
      throws UsageException {
    String flag = r.matchedOptionValue("--protocol-era", null);
    String value = flag != null ? flag : env.getOrDefault("MCP_STDIO_PROTOCOL_ERA", "auto");
    ProtocolEra.Choice choice = ProtocolEra.Choice.parse(value);
    if (choice == null) {
      throw new UsageException((flag != null ? "--protocol-era" : "MCP_STDIO_PROTOCOL_ERA")
          + " must be auto, modern or legacy", ExitCodes.USAGE);
    }
    if (transport == RelayConfig.Transport.SSE) {
      if (choice == ProtocolEra.Choice.MODERN) {
        throw new UsageException("--transport sse (2024-11-05) cannot speak the 2026 era; drop one of them", ExitCodes.USAGE);
      }
      choice = ProtocolEra.Choice.LEGACY;
    }
    return new RelayConfig.EraSettings(choice, choice == ProtocolEra.Choice.AUTO ? EraMemory.defaultFile(env) : null);
  }

  static URI url(String text) throws UsageException {
    URI url;
    try {
      url = new URI(text);
    } catch (URISyntaxException e) {
      throw new UsageException("invalid URL: " + e.getReason(), ExitCodes.USAGE);
    }
    String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new UsageException("the URL must start with http:// or https://", ExitCodes.USAGE);
    }
    if (url.getHost() == null || url.getHost().isEmpty()) {
      throw new UsageException("the URL has no host", ExitCodes.USAGE);
    }
    if (url.getRawUserInfo() != null) {
      throw new UsageException(
          "credentials in the URL are not supported; use --bearer-token or -H 'Authorization: ...'",
          ExitCodes.USAGE);
    }
    if (url.getRawFragment() != null) {
      throw new UsageException("the URL must not have a #fragment", ExitCodes.USAGE);
    }
    return url;
  }

  private static boolean isSecretName(String lowerName) {
    for (String hint : SECRET_HINTS) {
      if (lowerName.contains(hint)) {
        return true;
      }
    }
    return false;
  }
}
