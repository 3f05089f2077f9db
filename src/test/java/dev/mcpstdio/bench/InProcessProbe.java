package dev.mcpstdio.bench;

import dev.mcpstdio.testing.RelayHarness;
import java.time.Duration;
import java.util.Arrays;

/** Scratch probe: relay overhead in-process (no pipes), against the same fast upstream. */
public final class InProcessProbe {
  public static void main(String[] args) throws Exception {
    try (EchoUpstream up = new EchoUpstream(false);
        RelayHarness relay = RelayHarness.start(up.url(), c -> c.withMode(false, dev.mcpstdio.stdio.Log.Level.WARN, Duration.ofSeconds(1)))) {
      relay.initialize();
      RelayBenchmark.Direct direct = new RelayBenchmark.Direct(up.url());
      for (int round = 0; round < 6; round++) {
        double[] r = new double[5000];
        for (int i = 0; i < r.length; i++) {
          long t = System.nanoTime();
          relay.send(RelayBenchmark.call(i + 10, 64));
          relay.stdout.next(Duration.ofSeconds(5));
          r[i] = (System.nanoTime() - t) / 1e6;
        }
        double[] d = direct.sequential(5000, 64);
        Arrays.sort(r);
        Arrays.sort(d);
        System.out.printf("relay p50 %.3f p90 %.3f | direct p50 %.3f p90 %.3f%n", r[2500], r[4500], d[2500], d[4500]);
      }
    }
    System.exit(0);
  }
}
