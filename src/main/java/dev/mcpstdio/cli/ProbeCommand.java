package dev.mcpstdio.cli;

import dev.mcpstdio.net.Hosts;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;

/**
 * {@code mcp-stdio probe [URL]}: one GET of serve's health endpoint, for a health check that has
 * no curl (the OCI image has no shell and no tools, src/dist/build-dist.sh). Exit 0 on a 2xx
 * answer, 1 on any other answer or none within the timeout. Writes nothing to stdout; the outcome
 * of a failed probe goes to stderr. Only loopback http URLs are probed: a health check asks its own
 * container, and a probe that followed any URL could be pointed elsewhere.
 */
final class ProbeCommand {

  static final String DEFAULT_URL = "http://127.0.0.1:8080/healthz";
  /** Connect and read timeouts each; a container engine's health check allows more in all. */
  static final Duration TIMEOUT = Duration.ofSeconds(5);

  private ProbeCommand() {}

  static int run(String[] args, Log log) throws UsageException {
    if (args.length > 1) {
      throw new UsageException("usage: mcp-stdio probe [URL] (default " + DEFAULT_URL + ")", ExitCodes.USAGE);
    }
    URI url = parse(args.length == 0 ? DEFAULT_URL : args[0]);
    try {
      HttpURLConnection connection = (HttpURLConnection) url.toURL().openConnection(java.net.Proxy.NO_PROXY);
      connection.setConnectTimeout((int) TIMEOUT.toMillis());
      connection.setReadTimeout((int) TIMEOUT.toMillis());
      connection.setInstanceFollowRedirects(false);
      int status = connection.getResponseCode();
      try (InputStream body = status >= 400 ? connection.getErrorStream() : connection.getInputStream()) {
        if (body != null) {
          body.readNBytes(4096); // drain what a health answer holds, no more
        }
      }
      if (status / 100 == 2) {
        return ExitCodes.OK;
      }
      log.error("probe: " + url + " answered " + status);
    } catch (IOException e) {
      log.error("probe: " + url + ": " + e.getMessage());
    }
    return ExitCodes.FAILURE;
  }

  private static URI parse(String text) throws UsageException {
    try {
      URI url = new URI(text);
      String host = url.getHost();
      if (!"http".equals(url.getScheme()) || host == null
          || host.endsWith(".localhost") || !Hosts.isLoopback(host)) {
        throw new UsageException("probe: only http URLs on loopback are probed, not " + text, ExitCodes.USAGE);
      }
      return url;
    } catch (URISyntaxException e) {
      throw new UsageException("probe: not a URL: " + text, ExitCodes.USAGE);
    }
  }
}
