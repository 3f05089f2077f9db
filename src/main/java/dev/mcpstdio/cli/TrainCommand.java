package dev.mcpstdio.cli;

import dev.mcpstdio.relay.RelayConfig;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.stdio.StdoutWire;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.SequenceInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * {@code mcp-stdio train}: a short, self-contained relay session used by the launcher to build the
 * JVM's ahead-of-time cache (or class-data archive). It runs the code a real start runs, through
 * the same entry ({@code Main.relay}: argument parsing, the HTTP client, the era probe and the era
 * remembered in a state folder, signal handlers, JSON classification, event-stream decoding, the
 * relay's exchange path) against an in-process loopback server that answers as a 2025-era server
 * does ({@link TrainingServer}), so those classes and their lambdas come pre-loaded and linked on every later start. The
 * state folder is a temporary one, removed afterwards. It writes nothing to stdout.
 */
final class TrainCommand {

  private TrainCommand() {}

  /**
   * A new folder of the training's own in the temporary folder, owner-only where the file system
   * has POSIX permissions. Not {@code Files.createTempDirectory}: its name comes from SecureRandom,
   * which brings up the JDK's security providers, and the cache would then load them at every start
   * though no relay needs them. A name that exists (one planted there, say) fails the training
   * rather than being used.
   */
  private static Path newStateFolder() throws IOException {
    Path state = Path.of(System.getProperty("java.io.tmpdir"), "mcp-stdio-train-" + ProcessHandle.current().pid()
        + "-" + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong()));
    try {
      return Files.createDirectory(state, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
          java.nio.file.attribute.PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException notPosix) {
      return Files.createDirectory(state);
    }
  }

  static int run() throws IOException, InterruptedException {
    Path state = newStateFolder();
    TrainingServer server = new TrainingServer();
    try {
      String url = server.url();
      Log log = new Log(OutputStream.nullOutputStream(), Log.Level.OFF, new Redactor());
      Map<String, String> env = Map.of("XDG_STATE_HOME", state.toString());
      RelayCommand.Parsed parsed =
          RelayCommand.parse(
              new String[] {"--timeout-read", "30", "-H", "X-Train: 1", url},
              env,
              log,
              new PrintWriter(new StringWriter()));
      RelayConfig config = parsed.config();
      // initialize, tools/list, the call's progress and its answer, ping, the parse error: 6 lines
      CountDownLatch answers = new CountDownLatch(6);
      OutputStream out =
          new OutputStream() {
            @Override
            public void write(int b) {
              if (b == '\n') {
                answers.countDown();
              }
            }
          };
      String script =
          String.join(
              "\n",
              "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"train\",\"version\":\"1\"}}}",
              "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}",
              "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}",
              "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":null}}",
              "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}",
              "not json",
              "");
      InputStream stdin = new HoldOpen(script.getBytes(StandardCharsets.UTF_8), answers);
      int code = Main.relay(config, new StdoutWire(out), log, env, stdin); // ends at the script's end of input
      // A training cut short (a signal, an answer missing) must not be stamped as a good cache.
      return code == ExitCodes.OK && answers.getCount() == 0 ? ExitCodes.OK : ExitCodes.FAILURE;
    } catch (UsageException e) {
      throw new IllegalStateException(e);
    } finally {
      server.close();
      deleteQuietly(state);
    }
  }

  private static void deleteQuietly(Path folder) {
    try (var paths = Files.walk(folder)) {
      paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // a temporary folder left behind is the system's to clean
    }
  }

  /** The script's bytes, then no EOF until every answer arrived (EOF would start shutdown). */
  private static final class HoldOpen extends SequenceInputStream {
    HoldOpen(byte[] script, CountDownLatch answers) {
      super(new ByteArrayInputStream(script), new InputStream() {
        @Override
        public int read() throws IOException {
          try {
            answers.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          return -1;
        }
      });
    }
  }
}
