package dev.mcpstdio.process;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.stdio.Redactor;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * A stand-in gateway for {@link ChildContainmentTest}: starts {@code args[0]} children running the
 * {@code /bin/sh -c} script {@code args[1]}, prints every stdout line they write as
 * {@code line <text>}, then {@code ready} once each has printed {@code done}, and waits to be
 * killed.
 */
public final class ContainmentProbe {

  private ContainmentProbe() {}

  public static void main(String[] args) throws Exception {
    int children = Integer.parseInt(args[0]);
    CountDownLatch done = new CountDownLatch(children);
    Log log = Log.stderr(Log.Level.INFO, new Redactor());
    for (int i = 0; i < children; i++) {
      ChildProcess.start(new ChildSpec(List.of("/bin/sh", "-c", args[1])), 1 << 20, log, ChildProcess.Ladder.DEFAULT,
          new ChildProcess.Listener() {
            @Override
            public void onLine(byte[] line) {
              String text = new String(line, StandardCharsets.UTF_8);
              synchronized (System.out) {
                System.out.println("line " + text);
                System.out.flush();
              }
              if (text.equals("done")) {
                done.countDown();
              }
            }

            @Override
            public void onStdoutClosed() {}
          });
    }
    done.await();
    System.out.println("ready");
    System.out.flush();
    while (System.in.read() >= 0) {
      // held until killed (or until the test closes stdin)
    }
  }
}
