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

  /** The budget's report line: child pid, stderr lines and bytes dropped. */
  private static final Pattern REPORT = Pattern.compile("child (\\d+) went over its log budget \\(\\d+ bytes/s\\):"
      + " dropped (\\d+) stderr lines \\((\\d+) bytes\\)(?: and \\d+ gateway lines about it)? over \\d+ ms");

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
    Matcher reports = REPORT.matcher(text);
    long dropped = 0;
    long droppedBytes = 0;
    int reportLines = 0;
    while (reports.find()) {
      assertThat(reports.group(1)).isEqualTo(String.valueOf(child.pid()));
      dropped += Long.parseLong(reports.group(2));
      droppedBytes += Long.parseLong(reports.group(3));
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

  @Test
  void aFloodThatStopsIsReportedOneIntervalAfterDroppingBeganWhileTheChildLivesOnInSilence() throws Exception {
    Listener out = new Listener();
    int lines = 5_000; // 17 bytes each, 85 KB: far past the 16 KiB burst
    ChildLog childLog = new ChildLog(log, TIGHT, Duration.ofMillis(500));
    ChildProcess child = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", "i=10000; while [ $i -lt "
        + (10_000 + lines) + " ]; do echo \"noise-line-$i\" >&2; i=$((i+1)); done; echo flooded; exec cat >/dev/null")),
        1 << 20, childLog, SHORT, out);
    started.add(child);

    Await.until("the flood to end", WAIT, () -> out.lines.contains("flooded"));
    Await.until("the drop report, with stderr still open", WAIT, () -> REPORT.matcher(logText()).find());

    assertThat(child.isAlive()).as("reported while the child lives, not at its end").isTrue();
    Matcher report = REPORT.matcher(logText());
    assertThat(report.find()).isTrue();
    long logged = logText().lines().filter(l -> l.contains(" stderr> noise-line-")).count();
    assertThat(logged + Long.parseLong(report.group(2))).as("all of the flood is logged or counted by then")
        .isEqualTo(lines);
    assertThat(report.find()).as("one report for one flood").isFalse();
  }

  @Test
  void theGatewaysLinesAboutTheChildShareItsBudgetAndAreCountedPastIt() throws Exception {
    ChildLog childLog = new ChildLog(log, new ChildProcess.StderrLimit(100), Duration.ofDays(1)); // bursts of 1600 B
    for (int i = 0; i < 1000; i++) {
      childLog.info("callback confirm (id c" + i + ")");
    }
    childLog.flush();

    long logged = logText().lines().filter(l -> l.contains("callback confirm (id c")).count();
    Matcher report = Pattern.compile("the child went over its log budget \\(100 bytes/s\\): dropped 0 stderr lines"
        + " \\(0 bytes\\) and (\\d+) gateway lines about it over \\d+ ms").matcher(logText());
    assertThat(report.find()).isTrue();
    assertThat(logged).as("what fits a burst, and what refilled meanwhile").isBetween(40L, 100L);
    assertThat(logged + Long.parseLong(report.group(1))).isEqualTo(1000);
  }
}
