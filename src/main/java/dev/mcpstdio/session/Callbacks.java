package dev.mcpstdio.session;

import dev.mcpstdio.jsonrpc.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;

/**
 * Callbacks from a session-scoped server to its host (protocol v1, docs/callbacks.md): one
 * {@code __CALLBACK__} line on stderr each, and, for decisions, a wait on the host's reply channel.
 *
 * <p>Fails closed: without a reply channel in the environment, {@link #request} refuses rather than
 * pretending the host agreed.
 */
public final class Callbacks {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final String sessionId;
  private final PrintStream stderr;
  private final String url; // null without a reply channel
  private final String token;
  private final HttpClient http = HttpClient.newHttpClient();

  Callbacks(String sessionId, PrintStream stderr, String url, String token) {
    this.sessionId = sessionId;
    this.stderr = stderr;
    this.url = url;
    this.token = token;
  }

  /** The fields every callback has, set by the kit itself. */
  private static final java.util.Set<String> OWN_FIELDS = java.util.Set.of("type", "id", "sessionId");

  /**
   * Announces a callback that needs no answer ({@code notify}, or any type the host only watches).
   *
   * @param fields the type's own fields (see docs/callbacks.md): strings, numbers, booleans, null,
   *     and maps and lists of those, such as a {@code confirm}'s form {@code schema}
   * @return the callback's id
   * @throws IllegalArgumentException for a value that is not JSON, or a field named {@code type},
   *     {@code id} or {@code sessionId}
   */
  public String send(String type, Map<String, ?> fields) {
    String id = "cb-" + HexFormat.of().formatHex(randomBytes());
    StringBuilder json = new StringBuilder("{\"type\":").append(Json.quote(type)).append(",\"id\":")
        .append(Json.quote(id)).append(",\"sessionId\":").append(Json.quote(sessionId));
    for (Map.Entry<String, ?> field : fields.entrySet()) {
      if (OWN_FIELDS.contains(field.getKey())) {
        throw new IllegalArgumentException("the kit sets a callback's " + field.getKey() + " itself");
      }
      json.append(',').append(Json.quote(field.getKey())).append(':');
      JsonFields.write(field.getValue(), json);
    }
    String line = "__CALLBACK__" + json.append('}') + "\n";
    synchronized (stderr) {
      stderr.print(line); // one write: the line never interleaves with other stderr output
      stderr.flush();
    }
    return id;
  }

  /**
   * Announces a callback and waits for the host's decision.
   *
   * @return the reply (an elicitation result as JSON, e.g. {@code {"action":"accept",...}})
   * @throws CallbackTimeoutException when no decision came in time
   * @throws IOException when the reply channel cannot be reached, or there is none
   */
  public String request(String type, Map<String, ?> fields, Duration timeout)
      throws IOException, InterruptedException, CallbackTimeoutException {
    if (url == null || token == null) {
      throw new IOException("no reply channel (MCP_STDIO_CALLBACK_URL and MCP_STDIO_CALLBACK_TOKEN are not set)");
    }
    String id = send(type, fields);
    HttpRequest get = HttpRequest.newBuilder(URI.create(url + "/" + id))
        .header("Authorization", "Bearer " + token)
        .timeout(timeout.plusSeconds(10)) // the host's own wait decides; this only guards a dead host
        .GET().build();
    HttpResponse<String> r;
    try {
      r = http.send(get, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (java.net.http.HttpTimeoutException e) {
      throw new CallbackTimeoutException("the host made no decision on " + type + " in time (and stopped answering)");
    }
    return switch (r.statusCode()) {
      case 200 -> {
        byte[] b = r.body().getBytes(StandardCharsets.UTF_8);
        var reply = Json.field(b, new dev.mcpstdio.jsonrpc.JsonSpan(0, b.length), "reply");
        if (reply == null) {
          throw new IOException("the reply channel answered without a reply");
        }
        yield reply.text(b);
      }
      case 408 -> throw new CallbackTimeoutException("the host made no decision on " + type + " in time");
      default -> throw new IOException("the reply channel answered HTTP " + r.statusCode());
    };
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return b;
  }
}
