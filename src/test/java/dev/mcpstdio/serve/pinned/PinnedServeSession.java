package dev.mcpstdio.serve.pinned;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.serve.ServeConfig;
import dev.mcpstdio.serve.ServeGateway;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scripted conversation with a real {@link ServeGateway} whose whole wire is written down and
 * compared with its golden file under {@code src/test/resources/golden/serve-2025/}: each step's
 * request, byte for byte as the test sent it, and the gateway's response as it arrived (status
 * line, header lines in order and spelling, body; an event stream event by event, in the order the
 * test read them).
 *
 * <p>Children are scripted {@code /bin/sh} programs (see {@link ChildScript}) that read one line per
 * expected message and write fixed lines, so what the gateway receives from its child is the same
 * on every run. A step reads exactly what it records and nothing is read in the background, so
 * the transcript leaves no room for a legitimate reordering.
 *
 * <p>Normalised, because they differ between runs and are no part of the wire's behaviour:
 *
 * <ul>
 *   <li>the gateway's loopback port, wherever it appears: {@code {port}};
 *   <li>session ids (32 random hex digits), wherever they appear: {@code {session-N}}, numbered in
 *       the order they first appear in the transcript. A request the test writes names a session
 *       the same way and is sent with the real id.
 * </ul>
 *
 * Head lines are written with LF instead of the CRLF they arrived with; a head line ending in
 * anything but CRLF would show a visible {@code <bare-LF>} / {@code <bare-CR>} marker. Chunked
 * bodies are recorded de-chunked (the chunk sizes are Jetty's buffering, not the gateway's wire).
 *
 * <p>{@code -Dgolden.update=true} writes the transcripts instead of comparing them.
 */
final class PinnedServeSession implements AutoCloseable {

  static final Path GOLDEN = Path.of("src/test/resources/golden/serve-2025");
  static final Duration WAIT = Duration.ofSeconds(15);
  private static final Pattern SESSION_ID = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern SESSION_NAME = Pattern.compile("\\{session-(\\d+)}");

  private final String name;
  private final ServeGateway gateway;
  private final LogBuffer log = new LogBuffer();
  private final ByteArrayOutputStream transcript = new ByteArrayOutputStream();
  private final Map<String, String> sessionNames = new LinkedHashMap<>(); // real id -> {session-N}
  private final List<RawExchange> open = new ArrayList<>();
  private int steps;

  /**
   * @param name the golden file's name (without {@code .txt})
   * @param title what the conversation shows, the file's first line
   */
  PinnedServeSession(String name, String title, ServeConfig config) {
    this.name = name;
    try {
      this.gateway = new ServeGateway(config.withPort(0), new Log(log, Log.Level.DEBUG, new Redactor()));
      gateway.start();
    } catch (Exception e) {
      throw new IllegalStateException("serve did not start", e);
    }
    text("# " + title + "\n");
    text("# Pinned by issue 14 (the 2025-era and HTTP+SSE wire of serve is frozen): do not edit; see ARCHITECTURE.md, section 6.\n");
    text("# Normalised: the port -> {port}; session ids -> {session-N}. Head lines end in CRLF on the wire; chunked bodies de-chunked.\n");
  }

  /** A step's title: what the client does and why. */
  void step(String what) {
    text("\n== " + ++steps + ". " + what + "\n");
  }

  /** A request and its whole response, recorded; returns the response body. */
  String exchange(String method, String target, String body, String... headers) {
    try (RawExchange exchange = send(method, target, body, headers)) {
      record("-- response\n", exchange.head());
      byte[] bytes = exchange.body();
      writeBody(bytes);
      return new String(bytes, StandardCharsets.UTF_8);
    }
  }

  /** A request whose response stays open (an event stream): its head is recorded now, its events as they are read. */
  Stream open(String label, String method, String target, String body, String... headers) {
    RawExchange exchange = send(method, target, body, headers);
    open.add(exchange);
    record("-- response head (" + label + ")\n", exchange.head());
    return new Stream(label, exchange);
  }

  /** The response of an open request, read one event at a time. */
  final class Stream {
    private final String label;
    private final RawExchange exchange;

    private Stream(String label, RawExchange exchange) {
      this.label = label;
      this.exchange = exchange;
    }

    /** Reads and records the next {@code n} events (fails if the stream ends first); returns them as read. */
    List<String> events(int n) {
      List<String> read = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String event = exchange.nextEvent();
        assertThat(event).as("event %d of %d on %s in step %d of %s; log:\n%s", i + 1, n, label, steps, name, log.text())
            .isNotNull();
        read.add(event);
        learnSessions(event);
        text("-- event (" + label + ")\n" + normalise(event));
      }
      return read;
    }

    /** Reads and records what is left until the body ends. */
    void toEnd() {
      String event;
      while ((event = exchange.nextEvent()) != null) {
        learnSessions(event);
        text("-- event (" + label + ")\n" + normalise(event));
      }
      text("-- end of body (" + label + ")\n");
    }

    /** The client goes away: closes the connection without reading on. */
    void drop() {
      exchange.close();
      text("-- client closes the connection (" + label + ")\n");
    }
  }

  /** Waits until the gateway's log contains {@code text} (a point to synchronise on; not recorded). */
  void awaitLog(String text) {
    Await.until("the gateway log to contain '" + text + "' in step " + steps + " of " + name + "; log:\n" + log.text(),
        WAIT, () -> log.text().contains(text));
  }

  int logCount(String text) {
    return log.text().split(Pattern.quote(text), -1).length - 1;
  }

  private RawExchange send(String method, String target, String body, String... headers) {
    StringBuilder head = new StringBuilder(method + " " + target + " HTTP/1.1\r\n");
    if (java.util.Arrays.stream(headers).noneMatch(h -> h.regionMatches(true, 0, "Host:", 0, 5))) {
      head.append("Host: 127.0.0.1:{port}\r\n"); // unless the step sends a Host of its own
    }
    for (String h : headers) {
      head.append(h).append("\r\n");
    }
    byte[] bodyBytes = body == null ? new byte[0] : body.getBytes(StandardCharsets.UTF_8);
    if (body != null) {
      head.append("Content-Type: application/json\r\n");
      head.append("Content-Length: ").append(bodyBytes.length).append("\r\n");
    }
    head.append("\r\n");
    text("-- request\n" + head.toString().replace("\r\n", "\n"));
    if (bodyBytes.length > 0) {
      transcript.writeBytes(bodyBytes);
      text("\n");
    }
    ByteArrayOutputStream wire = new ByteArrayOutputStream();
    wire.writeBytes(realise(head.toString()).getBytes(StandardCharsets.ISO_8859_1));
    wire.writeBytes(realise(body == null ? "" : body).getBytes(StandardCharsets.UTF_8));
    return RawExchange.send(gateway.port(), wire.toByteArray());
  }

  private void record(String marker, String head) {
    learnSessions(head);
    StringBuilder b = new StringBuilder(marker);
    String[] lines = head.split("\r\n", -1);
    for (int i = 0; i < lines.length; i++) {
      if (i >= lines.length - 2 && lines[i].isEmpty()) {
        continue; // the blank line that ends the head, and what follows its CRLF
      }
      b.append(lines[i].replace("\n", "<bare-LF>").replace("\r", "<bare-CR>")).append('\n');
    }
    text(normalise(b.toString()));
  }

  private void writeBody(byte[] bytes) {
    if (bytes.length == 0) {
      text("-- (no body)\n");
      return;
    }
    String body = new String(bytes, StandardCharsets.UTF_8);
    learnSessions(body);
    text(normalise(body) + "\n");
  }

  private void learnSessions(String text) {
    Matcher m = SESSION_ID.matcher(text);
    while (m.find()) {
      sessionNames.computeIfAbsent(m.group(), id -> "{session-" + (sessionNames.size() + 1) + "}");
    }
  }

  /** The real session id of {@code {session-N}}. */
  String session(int n) {
    String wanted = "{session-" + n + "}";
    return sessionNames.entrySet().stream().filter(e -> e.getValue().equals(wanted)).map(Map.Entry::getKey)
        .findFirst().orElseThrow(() -> new AssertionError(wanted + " has not appeared yet"));
  }

  private String realise(String text) {
    Matcher m = SESSION_NAME.matcher(text);
    StringBuilder b = new StringBuilder();
    while (m.find()) {
      m.appendReplacement(b, session(Integer.parseInt(m.group(1))));
    }
    m.appendTail(b);
    return b.toString().replace("{port}", Integer.toString(gateway.port()));
  }

  private String normalise(String text) {
    String out = text;
    for (Map.Entry<String, String> e : sessionNames.entrySet()) {
      out = out.replace(e.getKey(), e.getValue());
    }
    return out.replace(":" + gateway.port(), ":{port}");
  }

  private void text(String s) {
    transcript.writeBytes(s.getBytes(StandardCharsets.UTF_8));
  }

  /** Compares the transcript with its golden file (or writes it under {@code -Dgolden.update=true}). */
  void verify() {
    Path file = GOLDEN.resolve(name + ".txt");
    byte[] actual = transcript.toByteArray();
    try {
      if (Boolean.getBoolean("golden.update")) {
        Files.createDirectories(GOLDEN);
        Files.write(file, actual);
        return;
      }
      assertThat(file).as("golden file (create it with -Dgolden.update=true)").exists();
      String expected = Files.readString(file, StandardCharsets.UTF_8);
      assertThat(new String(actual, StandardCharsets.UTF_8)).as("the wire of " + name + " against " + file + "; log:\n" + log.text())
          .isEqualTo(expected);
      assertThat(actual).as("byte for byte").isEqualTo(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() throws Exception {
    open.forEach(RawExchange::close);
    gateway.close();
  }

  /** The gateway's log, kept for waiting on (never part of the transcript). */
  private static final class LogBuffer extends OutputStream {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

    @Override
    public synchronized void write(int b) {
      bytes.write(b);
    }

    @Override
    public synchronized void write(byte[] b, int off, int len) {
      bytes.write(b, off, len);
    }

    synchronized String text() {
      return bytes.toString(StandardCharsets.UTF_8);
    }
  }
}
