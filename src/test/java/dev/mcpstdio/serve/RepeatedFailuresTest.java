package dev.mcpstdio.serve;

import dev.mcpstdio.testing.SyncBuffer;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** One line per run of failures and per interval, each a single line whatever the failure's text. */
class RepeatedFailuresTest {

  private final SyncBuffer out = new SyncBuffer();
  private final AtomicLong now = new AtomicLong(5_000);
  private final Log log = new Log(out, Log.Level.INFO, new Redactor());
  private final RepeatedFailures failures = new RepeatedFailures(log::error, log, now::get);

  private List<String> lines() {
    return out.text().lines().toList();
  }

  @Test
  void aMultiLineMessageIsLoggedAsItsFirstLineWithControlCharactersEscaped() {
    failures.failed("could not start sh: Cannot run program \"sh\": error=24, Too many open files\nPossible reasons:\n"
        + "  1. ...\n\u001b[2J[mcp-stdio] forged");

    assertThat(lines()).containsExactly(
        "[mcp-stdio] error: could not start sh: Cannot run program \"sh\": error=24, Too many open files [...]");
    assertThat(RepeatedFailures.oneLine("a\u001b[31mb\rc")).isEqualTo("a\\x1b[31mb [...]");
  }

  @Test
  void repeatsAreCountedInOneLinePerIntervalAndTheRunEndsInOneLine() {
    for (int i = 0; i < 30; i++) {
      failures.failed("could not start sh: boom");
      now.addAndGet(500); // 30 failures over 15 s: a line at once, one after 10 s
    }
    assertThat(lines()).containsExactly("[mcp-stdio] error: could not start sh: boom",
        "[mcp-stdio] error: could not start sh: boom (20 failures since the last report)");

    failures.succeeded("started a child again");
    failures.succeeded("started a child again"); // nothing failed since
    failures.failed("could not start sh: boom"); // a new run: told at once

    assertThat(lines()).hasSize(4).endsWith("[mcp-stdio] started a child again after 30 failed attempt(s)",
        "[mcp-stdio] error: could not start sh: boom");
  }
}
