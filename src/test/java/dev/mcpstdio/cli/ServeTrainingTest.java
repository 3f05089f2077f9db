package dev.mcpstdio.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import dev.mcpstdio.testing.SyncBuffer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code mcp-stdio train serve} (the serve role's AOT training, cli.ServeTraining) goes through a
 * real gateway in front of the built-in demo, in both eras, checking every answer; it writes
 * nothing to stdout, and the children it started are gone once it returns (the JVM's process
 * watchdog apart, which lives as long as the JVM).
 */
@org.junit.jupiter.api.parallel.Isolated("it counts this JVM's child processes, which concurrent test classes would add to")
class ServeTrainingTest {

  @Test
  void trainsOnARealGatewayAndLeavesNoChildBehind() throws Exception {
    // other tests of this JVM may still be closing children of their own: only the training's count
    java.util.Set<Long> before = ProcessHandle.current().descendants().map(ProcessHandle::pid)
        .collect(java.util.stream.Collectors.toSet());
    SyncBuffer said = new SyncBuffer();
    Log report = new Log(said, Log.Level.INFO, new Redactor());
    PrintStream stdout = System.out;
    ByteArrayOutputStream written = new ByteArrayOutputStream();
    int code;
    System.setOut(new PrintStream(written, true, StandardCharsets.UTF_8));
    try {
      code = ServeTraining.run(report);
    } finally {
      System.setOut(stdout);
    }
    assertThat(code).as("what it said: %s", said.text()).isEqualTo(ExitCodes.OK);
    assertThat(written.size()).as("bytes written to stdout").isZero();
    try {
      Await.until("the training's children gone", Duration.ofSeconds(15), () -> children(before).isEmpty());
    } catch (AssertionError e) {
      throw new AssertionError(e.getMessage() + "; still alive: " + children(before), e);
    }
  }

  /** This JVM's live descendants but those in {@code before} and the process watchdog (one per JVM, for its whole life). */
  private static List<String> children(java.util.Set<Long> before) {
    return ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).filter(h -> !before.contains(h.pid()))
        .map(h -> h.info().commandLine().orElse("pid " + h.pid()))
        .filter(line -> !line.contains("mcp-stdio-watchdog")).toList();
  }
}
