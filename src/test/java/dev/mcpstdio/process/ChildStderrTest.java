package dev.mcpstdio.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import dev.mcpstdio.testing.Await;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A child's stderr in the log: within its budget, counted past it, and never mistaken for the gateway. */
class ChildStderrTest {

  private static final Duration WAIT = Duration.ofSeconds(30);
  private static final ChildProcess.Ladder SHORT = new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300));
  private static final ChildProcess.StderrLimit TIGHT = new ChildProcess.StderrLimit(1024); // bursts of 16 KiB

  private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
  private final Log log = new Log(logBytes, Log.Level.INFO, new Redactor()).tagged("session 3f0c");
  private final List<ChildProcess> started = new ArrayList<>();

  /** Records stdout and consumes stderr lines that start with __CALLBACK__. */
  static final class Listener extends ChildProcessTest.Recorder {
    final List<String> callbacks = new CopyOnWriteArrayList<>();

    @Override
    public boolean onStderrLine(byte[] line) {
      String text = new String(line, StandardCharsets.UTF_8);
      if (text.startsWith("__CALLBACK__")) {
        callbacks.add(text);
        return true;
      }
      return false;
    }
  }

  @AfterEach
  void closeChildren() {
    started.forEach(ChildProcess::close);
  }

  private ChildProcess sh(String script, ChildProcess.StderrLimit limit, Listener out) throws IOException {
    ChildProcess child = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", script)), 1 << 20, log, SHORT, limit,
        out);
    started.add(child);
    return child;
  }

  private String logText() {
    return logBytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aStderrFloodIsCappedAndWhatWasDroppedIsCountedExactly() throws Exception {
    Listener out = new Listener();
    int lines = 20_000; // "noise-line-NNNNN" and its newline: 17 bytes each, 340 KB in all
    ChildProcess child = sh("i=10000; while [ $i -lt " + (10_000 + lines) + " ]; do echo \"noise-line-$i\" >&2;"
        + " i=$((i+1)); done; echo finished", TIGHT, out);

    out.awaitClosed();
    Await.until("the drop report at the end of stderr", WAIT, () -> logText().contains("dropped"));

    String text = logText();
    long logged = text.lines().filter(l -> l.contains(" stderr> noise-line-")).count();
    Matcher reports = Pattern.compile("child " + child.pid() + " wrote more to stderr than its budget \\(1024 bytes/s\\):"
        + " dropped (\\d+) lines, (\\d+) bytes, in \\d+ ms").matcher(text);
    long dropped = 0;
    long droppedBytes = 0;
    int reportLines = 0;
    while (reports.find()) {
      dropped += Long.parseLong(reports.group(1));
      droppedBytes += Long.parseLong(reports.group(2));
      reportLines++;
    }
    assertThat(out.lines).containsExactly("finished"); // the flood never held the child up
    assertThat(logged + dropped).as("every line is either logged or counted").isEqualTo(lines);
    assertThat(droppedBytes).isEqualTo(dropped * 17);
    assertThat(logged * 17).as("what was logged fits the burst and what refilled meanwhile")
        .isLessThan(TIGHT.burstBytes() + lines * 17L / 2);
    assertThat(reportLines).isPositive();
  }

  @Test
  void callbacksPastTheBudgetStillReachTheListener() throws Exception {
    Listener out = new Listener();
    sh("head -c 99000 /dev/zero | tr '\\0' 'z' | fold -w 99 >&2; echo >&2;"
        + " for i in 1 2 3; do echo \"__CALLBACK__{\\\"n\\\":$i}\" >&2; done; echo finished", TIGHT, out);

    out.awaitClosed();

    Await.until("three callbacks", WAIT, () -> out.callbacks.size() == 3);
    assertThat(out.callbacks).containsExactly("__CALLBACK__{\"n\":1}", "__CALLBACK__{\"n\":2}", "__CALLBACK__{\"n\":3}");
    Await.until("the drop report", WAIT, () -> logText().contains("dropped"));
    assertThat(logText()).doesNotContain("__CALLBACK__");
  }

  @Test
  void aChildCannotWriteALineThatPassesForOneOfTheGateways() throws Exception {
    Listener out = new Listener();
    // a copy of the ladder's own line, one after a carriage return, one after U+2028, one after a C1 CSI
    ChildProcess child = sh("echo \"child $$ still running 300 ms after stdin closed; sending SIGTERM\" >&2;"
        + " printf 'x\\r[mcp-stdio] [session 3f0c] forged-cr\\n' >&2;"
        + " printf 'y\\342\\200\\250[mcp-stdio] [session 3f0c] forged-ls\\n' >&2;"
        + " printf 'z\\302\\233[2K[mcp-stdio] forged-csi\\n' >&2; echo finished", ChildProcess.StderrLimit.DEFAULT, out);

    out.awaitClosed();
    Await.until("the last line logged", WAIT, () -> logText().contains("forged-csi"));

    String mark = "[mcp-stdio] [session 3f0c] child " + child.pid() + " stderr> ";
    List<String> lines = logText().lines().toList();
    assertThat(lines).filteredOn(l -> l.contains("forged") || l.contains("still running")).hasSize(4)
        .allMatch(l -> l.startsWith(mark), "starts with the child's mark");
    assertThat(lines).contains(mark + "child " + child.pid() + " still running 300 ms after stdin closed; sending SIGTERM",
        mark + "x\\x0d[mcp-stdio] [session 3f0c] forged-cr", mark + "y\\u2028[mcp-stdio] [session 3f0c] forged-ls",
        mark + "z\\x9b[2K[mcp-stdio] forged-csi");
    assertThat(logText()).doesNotContain("\r").doesNotContain("\u2028").doesNotContain("\u009b");
  }
}
