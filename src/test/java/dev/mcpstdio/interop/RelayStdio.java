package dev.mcpstdio.interop;

import io.modelcontextprotocol.client.transport.StdioClientTransport;
import java.lang.reflect.Field;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** The relay process behind the Java SDK's stdio transport, for the test hosts that spawn it ({@link RelayHost}, {@link SdkHost}). */
final class RelayStdio {

  private RelayStdio() {}

  /** The relay's OS process (the SDK keeps it private; tests need its exit code). */
  static Process process(StdioClientTransport transport) {
    try {
      Field f = StdioClientTransport.class.getDeclaredField("process");
      f.setAccessible(true);
      return (Process) f.get(transport);
    } catch (ReflectiveOperationException e) {
      throw new AssertionError("cannot reach StdioClientTransport.process (SDK changed?): " + e);
    }
  }

  /** The relay's exit code once it has exited, within 15 s of the host closing; fails (and kills it) otherwise. */
  static int awaitExit(Process p, Supplier<String> stderr) {
    try {
      if (!p.waitFor(15, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new AssertionError("relay did not exit within 15 s of the host closing; stderr:\n" + stderr.get());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
    return p.exitValue();
  }

  /** Kills the relay if it still runs and waits (at most 10 s) for it to end. */
  static void end(Process p) {
    if (p != null && p.isAlive()) {
      p.destroyForcibly();
      try {
        p.waitFor(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
