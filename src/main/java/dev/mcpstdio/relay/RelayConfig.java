package dev.mcpstdio.relay;

import dev.mcpstdio.oauth.OAuthSettings;
import dev.mcpstdio.stdio.Log;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Everything the relay needs to know, parsed once from flags and environment.
 *
 * @param url the upstream MCP endpoint
 * @param headers headers sent on every request, in order (user {@code -H} pins and the bearer
 *     token's {@code Authorization}); later links may override by name
 * @param connectTimeout TCP and TLS connection establishment bound
 * @param readTimeout bound on waiting for response headers, and on silence inside a body
 * @param streamReadTimeout bound on silence on the server's GET stream; zero disables it
 * @param maxMessageSize bound on one JSON body or one event, and on one stdin line; 0 disables
 * @param tcpKeepAlive whether sockets use TCP keepalive
 * @param cancelFilter whether late responses to cancelled requests are dropped
 * @param normalizeArguments whether {@code tools/call} {@code arguments: null} becomes {@code {}}
 * @param caFiles extra PEM bundles to trust
 * @param check run the one-shot connectivity check instead of relaying
 * @param logLevel how much the relay says on stderr
 * @param retry retry and backoff policy
 * @param shutdownGrace how long in-flight work may finish after stdin closes or a signal arrives
 * @param transport Streamable HTTP, or the HTTP+SSE transport (2024-11-05)
 * @param oauth the relay's own sign-in, or null
 * @param era which protocol era the relay speaks upstream, and where it remembers what it found
 * @param metricsFile where the relay writes what it counted when it exits ({@code --metrics-file}), or null
 */
public record RelayConfig(
    URI url,
    List<Header> headers,
    Duration connectTimeout,
    Duration readTimeout,
    Duration streamReadTimeout,
    long maxMessageSize,
    boolean tcpKeepAlive,
    boolean cancelFilter,
    boolean normalizeArguments,
    List<Path> caFiles,
    boolean check,
    Log.Level logLevel,
    RetryPolicy retry,
    Duration shutdownGrace,
    Transport transport,
    OAuthSettings oauth,
    EraSettings era,
    Path metricsFile) {

  /** How the relay talks to the server. */
  public enum Transport {
    /** One POST per message, answers in its reply (2025-03-26 and later). */
    STREAMABLE_HTTP,
    /** A GET event stream for everything the server says, a POST per message (2024-11-05). */
    SSE,
    /**
     * Streamable HTTP, falling back to HTTP+SSE when the server refuses the initialize POST with
     * 400, 404 or 405 and answers a GET with an {@code endpoint} event (the spec's
     * backwards-compatibility procedure).
     */
    AUTO
  }

  /**
   * Which protocol era the relay speaks upstream ({@code --protocol-era}, {@code
   * MCP_STDIO_PROTOCOL_ERA}).
   *
   * @param choice the flag's value
   * @param memory the file where the era found per server is remembered, or null for none
   */
  public record EraSettings(ProtocolEra.Choice choice, java.nio.file.Path memory) {
    public static final EraSettings DEFAULT = new EraSettings(ProtocolEra.Choice.AUTO, null);
  }

  public static final long DEFAULT_MAX_MESSAGE_SIZE = 10L * 1024 * 1024;

  public RelayConfig {
    headers = List.copyOf(headers);
    caFiles = List.copyOf(caFiles);
  }

  /** Defaults for everything but the URL, as the command line would give them. */
  public static RelayConfig defaults(URI url) {
    return new RelayConfig(
        url,
        List.of(),
        Duration.ofSeconds(10),
        Duration.ofSeconds(120),
        Duration.ofSeconds(300),
        DEFAULT_MAX_MESSAGE_SIZE,
        true,
        true,
        true,
        List.of(),
        false,
        Log.Level.INFO,
        RetryPolicy.DEFAULT,
        Duration.ofSeconds(2),
        Transport.AUTO,
        null,
        EraSettings.DEFAULT,
        null);
  }

  public RelayConfig withHeaders(List<Header> newHeaders) {
    return new RelayConfig(url, newHeaders, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        retry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withTimeouts(Duration connect, Duration read, Duration stream) {
    return new RelayConfig(url, headers, connect, read, stream, maxMessageSize, tcpKeepAlive,
        cancelFilter, normalizeArguments, caFiles, check, logLevel, retry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withLimits(long newMaxMessageSize) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        newMaxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check,
        logLevel, retry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withBehaviour(boolean newCancelFilter, boolean newNormalizeArguments) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, newCancelFilter, newNormalizeArguments, caFiles, check,
        logLevel, retry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withRetry(RetryPolicy newRetry) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        newRetry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withNetwork(boolean newTcpKeepAlive, List<Path> newCaFiles) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, newTcpKeepAlive, cancelFilter, normalizeArguments, newCaFiles, check,
        logLevel, retry, shutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withMode(boolean newCheck, Log.Level newLogLevel, Duration newShutdownGrace) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, newCheck,
        newLogLevel, retry, newShutdownGrace, transport, oauth, era, metricsFile);
  }

  public RelayConfig withTransport(Transport newTransport) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        retry, shutdownGrace, newTransport, oauth, era, metricsFile);
  }

  /** The era the relay speaks upstream ({@code --protocol-era}) and where it remembers what it found. */
  public RelayConfig withEra(EraSettings newEra) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        retry, shutdownGrace, transport, oauth, newEra, metricsFile);
  }

  /** The relay signs in with OAuth ({@code --oauth}); null settings turn it off. */
  public RelayConfig withOAuth(OAuthSettings newOAuth) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        retry, shutdownGrace, transport, newOAuth, era, metricsFile);
  }

  /** Where the relay writes its counts at exit ({@code --metrics-file}), or null for none. */
  public RelayConfig withMetricsFile(Path newMetricsFile) {
    return new RelayConfig(url, headers, connectTimeout, readTimeout, streamReadTimeout,
        maxMessageSize, tcpKeepAlive, cancelFilter, normalizeArguments, caFiles, check, logLevel,
        retry, shutdownGrace, transport, oauth, era, newMetricsFile);
  }
}
