package dev.mcpstdio.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.stdio.StdoutWire;
import dev.mcpstdio.testing.LineCollector;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The demo server driven over its stdio wire, in this JVM: what a gateway test relies on. */
class DemoServerTest {

  private static final Duration WAIT = Duration.ofSeconds(10);

  private final LineCollector out = new LineCollector();
  private final PipedOutputStream in = new PipedOutputStream();
  private final CompletableFuture<Integer> exit;

  DemoServerTest() throws IOException {
    PipedInputStream stdin = new PipedInputStream(in, 1 << 16);
    DemoServer server = new DemoServer(new StdoutWire(out), new Log(new ByteArrayOutputStream(), Log.Level.OFF, new Redactor()));
    exit = CompletableFuture.supplyAsync(() -> {
      try {
        return server.run(stdin);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, dev.mcpstdio.testing.Threads.VIRTUAL);
  }

  @AfterEach
  void close() throws Exception {
    in.close();
    assertThat(exit.get(10, TimeUnit.SECONDS)).isZero();
  }

  private void send(String line) throws IOException {
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  private String call(String id, String tool, String arguments) throws IOException {
    send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"method\":\"tools/call\",\"params\":{\"name\":\"" + tool
        + "\",\"arguments\":" + arguments + "}}");
    return out.next(WAIT);
  }

  @Test
  void initializeAcceptsAKnownVersionAndOffersTheNewestOtherwise() throws IOException {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\"}}");
    assertThat(out.next(WAIT)).contains("\"protocolVersion\":\"2025-06-18\"");
    send("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2099-01-01\"}}");
    assertThat(out.next(WAIT)).contains("\"protocolVersion\":\"2025-11-25\"");
  }

  @Test
  void toolsAnswerAndBadArgumentsAreInvalidParams() throws IOException {
    assertThat(call("1", "echo", "{\"text\":\"hi\"}")).isEqualTo(
        "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]}}");
    assertThat(call("2", "add", "{\"a\":0.1,\"b\":0.2}")).contains("\"text\":\"0.3\"");
    assertThat(call("3", "add", "{\"a\":\"1\",\"b\":2}")).contains("\"code\":-32602").contains("'a' must be a number");
    assertThat(call("4", "add", "{\"a\":1e999999999,\"b\":2}")).contains("\"code\":-32602").contains("out of range");
    assertThat(call("5", "echo", "{}")).contains("\"code\":-32602");
    assertThat(call("6", "nope", "{}")).contains("unknown tool: nope");
    assertThat(call("7", "slow", "{\"steps\":0}")).contains("between 1 and 100");
  }

  @Test
  void unknownMethodsMalformedLinesAndBatchesAreAnsweredNotFatal() throws IOException {
    send("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"nope\"}");
    assertThat(out.next(WAIT)).contains("\"id\":1").contains("-32601");
    send("{not json");
    assertThat(out.next(WAIT)).contains("\"id\":null").contains("-32700");
    send("[{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}]");
    assertThat(out.next(WAIT)).contains("batches are not supported");
    send("{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}");
    assertThat(out.next(WAIT)).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}");
  }

  @Test
  void slowReportsProgressAndStopsWhenCancelled() throws IOException {
    send("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"tools/call\",\"params\":{\"name\":\"slow\",\"arguments\":"
        + "{\"steps\":100,\"delayMs\":50},\"_meta\":{\"progressToken\":\"p\"}}}");
    assertThat(out.next(WAIT)).contains("notifications/progress").contains("\"progressToken\":\"p\"").contains("\"progress\":1");
    send("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":\"a\"}}");
    send("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"method\":\"ping\"}");
    // the cancelled call is never answered: the next answer is the ping's, after at most one more progress step
    String next = out.nextMatching(l -> !l.contains("notifications/progress"), WAIT);
    assertThat(next).isEqualTo("{\"jsonrpc\":\"2.0\",\"id\":\"b\",\"result\":{}}");
  }

  @Test
  void askSendsAnElicitationAndReportsTheAnswer() throws IOException {
    send("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"ask\",\"arguments\":{\"question\":\"Q?\"}}}");
    String request = out.next(WAIT);
    assertThat(request).contains("\"method\":\"elicitation/create\"").contains("\"message\":\"Q?\"").contains("\"id\":\"demo-");
    String id = request.replaceAll(".*\"id\":(\"demo-[0-9]+\").*", "$1");
    send("{\"jsonrpc\":\"2.0\",\"id\":" + id + ",\"error\":{\"code\":-1,\"message\":\"no UI\"}}");
    assertThat(out.next(WAIT)).contains("\"id\":9").contains("\"isError\":true").contains("refused the elicitation");
  }
}
