package dev.mcpstdio.serve;

import static dev.mcpstdio.serve.ServeHarness.shAfterInit;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.testing.Await;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What a session's child, or its client, can make serve log: bounded, and what was dropped told in time. */
class ServeLogBudgetTest {

  private static final String CALL = "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"x\",\"arguments\":{}}}";
  private static final String ANSWER = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"ok\":true}}";
  private static final ChildProcess.StderrLimit TIGHT = new ChildProcess.StderrLimit(1024); // bursts of 16 KiB
  private static final Duration WAIT = Duration.ofSeconds(20);

  private static ServeHarness start(ChildSpec child) throws Exception {
    return ServeHarness.start(ServeHarness.config(child).withLaunch(new ServeConfig.SessionLaunch(List.of(), null, false,
        ServeConfig.SessionLaunch.DEFAULT_CALLBACK_TIMEOUT, TIGHT)));
  }

  /** The budget's report for child {@code pid}: stderr lines, gateway lines. */
  private static Matcher report(String log, long pid) {
    return Pattern.compile("child " + pid + " went over its log budget \\(1024 bytes/s\\): dropped (\\d+) stderr lines"
        + " \\(\\d+ bytes\\)(?: and (\\d+) gateway lines about it)? over \\d+ ms").matcher(log);
  }

  @Test
  void callbacksInALoopCostTheLogNoMoreThanTheChildsBudgetAndTheRestIsCounted() throws Exception {
    int callbacks = 2000;
    String loop = "i=0; while [ $i -lt " + callbacks + " ]; do echo \"__CALLBACK__{\\\"type\\\":\\\"notify\\\",\\\"id\\\":\\\"n$i\\\","
        + "\\\"sessionId\\\":\\\"s\\\",\\\"message\\\":\\\"m\\\"}\" >&2; i=$((i+1)); done; ";
    try (ServeHarness serve = start(shAfterInit("read n; read call; " + loop + "echo '" + ANSWER + "'; cat >/dev/null"))) {
      String session = serve.initialize();
      long pid = serve.childPid(session);
      assertThat(serve.post(session, CALL, false).body()).isEqualTo(ANSWER);
      assertThat(serve.delete(session).statusCode()).isEqualTo(200);

      Await.until("every callback logged or counted; log:\n" + serve.log(), WAIT, () -> {
        long counted = 0;
        for (Matcher m = report(serve.log(), pid); m.find(); ) {
          counted += m.group(2) == null ? 0 : Long.parseLong(m.group(2));
        }
        return logged(serve.log()) + counted == callbacks;
      });
      assertThat(logged(serve.log())).as("callback lines logged").isPositive().isLessThan(callbacks / 2);
    }
  }

  private static long logged(String log) {
    return log.lines().filter(l -> l.contains("] callback notify (id n")).count();
  }

  @Test
  void aFloodIsReportedWhenItsSessionEndsAndWhenServeStopsThoughADescendantHoldsStderrOpen() throws Exception {
    // the ( setsid ... & ) grandchild leaves the child's process group and line of descent, and keeps stderr open
    ChildSpec child = shAfterInit("( setsid sleep 120 & echo \"escaped $!\" >&2 ); read n; read call;"
        + " i=0; while [ $i -lt 5000 ]; do echo \"noise-line-$i\" >&2; i=$((i+1)); done; echo '" + ANSWER + "';"
        + " cat >/dev/null");
    List<Long> escaped = new ArrayList<>();
    ServeHarness serve = start(child);
    try {
      String a = serve.initialize();
      String b = serve.initialize();
      Await.until("both grandchildren named", WAIT, () -> escaped(serve.log()).size() == 2);
      escaped.addAll(escaped(serve.log()));
      long pidA = serve.childPid(a);
      long pidB = serve.childPid(b);
      assertThat(serve.post(a, CALL, false).body()).isEqualTo(ANSWER);
      assertThat(serve.post(b, CALL, false).body()).isEqualTo(ANSWER);

      assertThat(serve.delete(a).statusCode()).isEqualTo(200);
      Await.until("the report for the ended session's child; log:\n" + tail(serve.log()), WAIT,
          () -> report(serve.log(), pidA).find());
      assertThat(report(serve.log(), pidB).find()).as("the other session is still running").isFalse();

      serve.close();
      Await.until("the report for the child of the session serve's stop ended", WAIT, () -> report(serve.log(), pidB).find());
      Matcher m = report(serve.log(), pidB);
      assertThat(m.find()).isTrue();
      assertThat(Long.parseLong(m.group(1))).isPositive();
    } finally {
      serve.close();
      escaped.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
    }
  }

  private static List<Long> escaped(String log) {
    List<Long> pids = new ArrayList<>();
    for (Matcher m = Pattern.compile("stderr> escaped (\\d+)").matcher(log); m.find(); ) {
      pids.add(Long.parseLong(m.group(1)));
    }
    return pids;
  }

  private static String tail(String log) {
    return log.length() > 3000 ? "..." + log.substring(log.length() - 3000) : log;
  }

  @Test
  void aChildThatCannotStartCostsOneLineNotOnePerInitialize() throws Exception {
    int attempts = 20;
    long began = System.nanoTime();
    try (ServeHarness serve = start(new ChildSpec(List.of("/nonexistent/mcp-server")))) {
      for (int i = 0; i < attempts; i++) {
        HttpResponse<String> init = serve.post(null, ServeHarness.INIT, false);
        assertThat(init.statusCode()).isEqualTo(503);
        assertThat(init.body()).contains("could not be started");
      }
      long intervals = Duration.ofNanos(System.nanoTime() - began).toMillis() / RepeatedFailures.REPORT_INTERVAL_MILLIS;
      List<String> lines = serve.log().lines().filter(l -> l.contains("could not start")).toList();
      assertThat(lines.getFirst()).contains("error: could not start /nonexistent/mcp-server: Cannot run program");
      assertThat(lines).as("one line, then at most one per interval").hasSizeBetween(1, (int) (1 + intervals));
    }
  }
}
