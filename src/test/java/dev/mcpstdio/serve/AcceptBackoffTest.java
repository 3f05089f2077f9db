package dev.mcpstdio.serve;

import dev.mcpstdio.testing.SyncBuffer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The acceptor's back-off: bounded pauses, and a log line per interval instead of a trace per failure. */
class AcceptBackoffTest {

  private final SyncBuffer out = new SyncBuffer();
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final AcceptBackoff backoff = new AcceptBackoff(new Log(out, Log.Level.DEBUG, new Redactor()), now::get);
  private final IOException exhausted = new IOException("Too many open files");

  private List<String> lines() {
    List<String> lines = new ArrayList<>();
    for (String line : out.text().split("\n")) {
      if (!line.isBlank()) {
        lines.add(line);
      }
    }
    return lines;
  }

  @Test
  void pausesDoubleUpToTheBoundAndEndWhenAnAcceptWorks() {
    List<Long> pauses = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pauses.add(backoff.failed(exhausted));
    }
    assertThat(pauses).containsExactly(10L, 20L, 40L, 80L, 160L, 320L, 640L, 1000L, 1000L, 1000L);
    backoff.succeeded();
    assertThat(backoff.failed(exhausted)).isEqualTo(AcceptBackoff.FIRST_PAUSE_MILLIS);
  }

  @Test
  void failuresAreReportedOncePerIntervalWithACountAndNoStackTrace() {
    for (int i = 0; i < 50; i++) {
      backoff.failed(exhausted);
      now.addAndGet(100); // 50 failures over 5 s: one line
    }
    assertThat(lines()).hasSize(1);
    assertThat(lines().getFirst()).contains("cannot accept connections: IOException: Too many open files")
        .contains("out of file descriptors").contains("--max-connections");
    now.addAndGet(RepeatedFailures.REPORT_INTERVAL_MILLIS);
    backoff.failed(exhausted);
    assertThat(lines()).hasSize(2);
    assertThat(lines().get(1)).contains("(50 failures since the last report)");
    backoff.succeeded();
    assertThat(lines()).hasSize(3);
    assertThat(lines().get(2)).contains("accepting connections again after 51 failed attempt(s)");
    assertThat(out.text()).doesNotContain("\tat ");
    backoff.succeeded(); // nothing to report while accepting works
    assertThat(lines()).hasSize(3);
  }
}
