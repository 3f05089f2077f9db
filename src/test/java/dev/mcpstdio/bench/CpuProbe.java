package dev.mcpstdio.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** Scratch probe: relay CPU time per call at concurrency 16. */
public final class CpuProbe {
  public static void main(String[] args) throws Exception {
    try (EchoUpstream up = new EchoUpstream(false);
        RelayBenchmark.Relayed relay = new RelayBenchmark.Relayed(args.length > 0 ? args[0] : "./mcp-stdio", up.url())) {
      relay.throughput(16, 5, 64);
      for (int round = 0; round < Integer.getInteger("rounds", 3); round++) {
        long cpu0 = cpuMillis(relay.pid());
        long self0 = cpuMillis(ProcessHandle.current().pid());
        double rate = relay.throughput(16, 4, 64);
        long cpu = cpuMillis(relay.pid()) - cpu0;
        long self = cpuMillis(ProcessHandle.current().pid()) - self0;
        double calls = rate * 4;
        System.err.printf("c16 %.0f calls/s, relay cpu %.1f us/call, bench+upstream cpu %.1f us/call%n", rate, cpu * 1000.0 / calls, self * 1000.0 / calls);
      }
    }
    System.exit(0);
  }

  static long cpuMillis(long pid) throws Exception {
    String[] f = Files.readString(Path.of("/proc/" + pid + "/stat")).split("\\) ")[1].split(" ");
    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime + stime
    return ticks * 10; // USER_HZ = 100
  }
}
