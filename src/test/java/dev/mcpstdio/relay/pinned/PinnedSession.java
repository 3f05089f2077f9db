package dev.mcpstdio.relay.pinned;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.Version;
import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.FakeMcpServer;
import dev.mcpstdio.testing.RelayHarness;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * One scripted relay session whose whole wire is written down step by step and compared with its
 * golden file under {@code src/test/resources/golden/relay-2025/}: for each step, what the host
 * wrote to stdin (or what the test made the server do), every HTTP request the relay then made
 * (request line, header lines in the order and spelling received, body byte for byte, as the
 * {@link WireTap} saw them), and every stdout line the relay wrote, byte for byte, in order.
 *
 * <p>A step waits until the relay has made the requests and written the lines the step expects,
 * and only then does the next step begin; whatever else the relay does shows up in a later step
 * (or at the end of input) and so fails the comparison. The count a step waits for is only a
 * point to synchronise on: the transcript, not the count, is what is pinned.
 *
 * <p>Normalised, because they differ between runs or builds and are no part of the wire's
 * behaviour (each is replaced in the head only, and only where written):
 *
 * <ul>
 *   <li>the tap's loopback port in the {@code Host} header: {@code Host: 127.0.0.1:{port}};
 *   <li>the project's version in {@code User-Agent: mcp-stdio/<version>} (it changes with every
 *       release): {@code mcp-stdio/{version}}.
 * </ul>
 *
 * Everything else is compared as received. Header lines are written with LF instead of the CRLF
 * they arrived with; a head line ending in anything but CRLF would be written with a visible
 * {@code <bare-LF>} / {@code <bare-CR>} marker instead. Bodies are written as their bytes.
 *
 * <p>{@code -Dgolden.update=true} writes the transcripts instead of comparing them (then review
 * the diff: the files are the frozen 2025-era and HTTP+SSE wire).
 */
final class PinnedSession implements AutoCloseable {

  static final Path GOLDEN = Path.of("src/test/resources/golden/relay-2025");
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(10);

  private final String name;
  private final FakeMcpServer server;
  private final WireTap tap;
  private final RelayHarness relay;
  private final ByteArrayOutputStream transcript = new ByteArrayOutputStream();
  private int steps;
  private int requestsSeen;
  private int linesSeen;

  /**
   * @param name the golden file's name (without {@code .txt})
   * @param title what the session shows, the file's first line
   * @param customize the relay's settings beyond the test defaults (transport, -H headers)
   */
  PinnedSession(String name, String title, FakeMcpServer server, String path, UnaryOperator<RelayConfig> customize) {
    this.name = name;
    this.server = server;
    try {
      this.tap = new WireTap(server.port());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    URI url = URI.create("http://127.0.0.1:" + tap.port() + path);
    this.relay = RelayHarness.start(url, customize);
    text("# " + title + "\n");
    text("# Pinned by issue 13 (the 2025-era and HTTP+SSE wire is frozen): do not edit; see ARCHITECTURE.md, section 6.\n");
    text("# Normalised: Host port -> {port}; User-Agent version -> {version}. Head lines end in CRLF on the wire.\n");
  }

  FakeMcpServer server() {
    return server;
  }

  RelayHarness relay() {
    return relay;
  }

  /** The host writes {@code line}; the step ends once {@code requests} requests and {@code lines} stdout lines came. */
  void send(String line, int requests, int lines) {
    step("host sends\n" + line);
    relay.send(line);
    collect(requests, lines);
  }

  /** Something the test made happen (said by {@code what}) and its effects, as for {@link #send}. */
  void happens(String what, Runnable action, int requests, int lines) {
    step(what);
    action.run();
    collect(requests, lines);
  }

  /** The host closes stdin: the relay ends (exit code 0) after {@code requests} more requests. */
  void endOfInput(int requests) {
    step("host closes stdin");
    assertThat(relay.closeAndAwait()).as("exit code").isZero();
    collect(requests, 0);
    assertThat(relay.stdout.unterminatedBytes()).as("bytes after the last newline on stdout").isZero();
    assertThat(tap.problems()).as("framing the tap could not follow").isEmpty();
  }

  private void step(String what) {
    text("\n== " + ++steps + ". " + what + "\n");
  }

  private void collect(int requests, int lines) {
    int wantRequests = requestsSeen + requests;
    int wantLines = linesSeen + lines;
    Await.until(
        "step " + steps + " of " + name + ": " + requests + " request(s) and " + lines + " stdout line(s); so far "
            + (tap.count() - requestsSeen) + " and " + (relay.stdout.snapshot().size() - linesSeen)
            + "; server saw:\n" + server.describe() + "\nstdout: " + relay.stdout.snapshot() + "\nlog:\n" + relay.log(),
        STEP_TIMEOUT,
        () -> tap.count() >= wantRequests && relay.stdout.snapshot().size() >= wantLines);
    List<WireTap.Recorded> recorded = tap.requests();
    for (int i = requestsSeen; i < recorded.size(); i++) {
      text("-- request " + (i + 1) + "\n");
      text(head(recorded.get(i).headText()));
      text("\n");
      byte[] body = recorded.get(i).body();
      if (body.length > 0) { // an empty body leaves the head's blank line as the block's last
        transcript.writeBytes(body);
        text("\n");
      }
    }
    requestsSeen = recorded.size();
    List<byte[]> out = relay.stdout.rawSnapshot();
    if (out.size() > linesSeen) {
      text("-- stdout\n");
      for (int i = linesSeen; i < out.size(); i++) {
        transcript.writeBytes(out.get(i));
        text("\n");
      }
    }
    linesSeen = out.size();
  }

  /** The head with its documented normalisations, one header line per line. */
  private String head(String raw) {
    StringBuilder b = new StringBuilder();
    String[] lines = raw.split("\r\n", -1);
    for (int i = 0; i < lines.length; i++) {
      String line = lines[i].replace("\n", "<bare-LF>").replace("\r", "<bare-CR>");
      if (i == lines.length - 1 && line.isEmpty()) {
        continue; // what follows the head's last CRLF
      }
      String lower = line.toLowerCase(java.util.Locale.ROOT);
      if (lower.startsWith("host:")) {
        line = line.replace(":" + tap.port(), ":{port}");
      } else if (lower.startsWith("user-agent:")) {
        line = line.replace("mcp-stdio/" + Version.get(), "mcp-stdio/{version}");
      }
      b.append(line).append('\n');
    }
    return b.toString();
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
      assertThat(new String(actual, StandardCharsets.UTF_8)).as("the wire of " + name + " against " + file).isEqualTo(expected);
      assertThat(actual).as("byte for byte").isEqualTo(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    relay.close();
    tap.close();
    server.close();
  }
}
