package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bound on the gateway's own requests in flight on one child (one that never answers them). */
class PooledChildOwnRequestsTest {

  @Test
  void aChildThatNeverAnswersTheGatewaysOwnRequestsIsSentNoMoreThanTheBound() throws Exception {
    ByteArrayOutputStream logged = new ByteArrayOutputStream();
    Log log = new Log(logged, Log.Level.DEBUG, new Redactor());
    PooledChild child = new PooledChild("alice", ClientAsks.ALL, 1, new ChildLog(log, ChildProcess.StderrLimit.DEFAULT),
        Msgs.NO_EVENTS);
    ChildProcess process = ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", "cat > /dev/null")), 1 << 20,
        new ChildLog(log, ChildProcess.StderrLimit.DEFAULT), new ChildProcess.Ladder(Duration.ofMillis(300), Duration.ofMillis(300)),
        child);
    try {
      assertThat(child.attach(process, null)).isTrue();
      for (int i = 0; i < PooledChild.MAX_OWN; i++) {
        assertThat(child.requestOwn("tools/list", null, answer -> {})).as("request " + i).isNotNull();
      }
      assertThat(child.requestOwn("tools/list", null, answer -> {})).as("past the bound").isNull();
      child.childLog.flush();
      assertThat(logged.toString(StandardCharsets.UTF_8)).contains("leaves " + PooledChild.MAX_OWN
          + " of the gateway's own requests unanswered");
      var first = dev.mcpstdio.jsonrpc.JsonRpcId.relayOwned("mcp-stdio/serve/own/1-1");
      child.cancelOwn(first, "test");
      assertThat(child.requestOwn("tools/list", null, answer -> {})).as("room again once one is cancelled").isNotNull();
    } finally {
      process.close();
    }
  }
}
