package dev.mcpstdio.process;

import java.util.ArrayList;
import java.util.List;

/**
 * What one {@link ProcessTree#members} scan costs, with and without the cookie, with {@code args[0]} extra processes running
 * (each a {@code sleep} with a cookie of its own), over {@code args[1]} scans. A measurement for
 * docs/reliability.md, not a test: {@code java -cp target/classes:target/test-classes
 * dev.mcpstdio.process.TreeScanCost 300 200}.
 */
public final class TreeScanCost {

  private TreeScanCost() {}

  private static String time(int scans, Runnable scan) {
    for (int i = 0; i < Math.min(scans, 50); i++) {
      scan.run(); // warm-up
    }
    long[] times = new long[scans];
    for (int i = 0; i < scans; i++) {
      long t0 = System.nanoTime();
      scan.run();
      times[i] = System.nanoTime() - t0;
    }
    java.util.Arrays.sort(times);
    return String.format(java.util.Locale.ROOT, "p50 %.1f ms, p99 %.1f ms", times[scans / 2] / 1e6,
        times[(int) (scans * 0.99)] / 1e6);
  }

  public static void main(String[] args) throws Exception {
    int extra = Integer.parseInt(args[0]);
    int scans = Integer.parseInt(args[1]);
    List<Process> sleepers = new ArrayList<>();
    try {
      for (int i = 0; i < extra; i++) {
        ProcessBuilder b = new ProcessBuilder("sleep", "600");
        b.environment().put(ProcessTree.VARIABLE, ProcessTree.newCookie());
        sleepers.add(b.start());
      }
      String sought = ProcessTree.newCookie();
      long procs;
      try (var dirs = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc"), "[0-9]*")) {
        procs = java.util.stream.StreamSupport.stream(dirs.spliterator(), false).count();
      }
      System.out.printf("%d processes in /proc: group only (stat) %s; group and cookie (stat + environ) %s%n", procs,
          time(scans, () -> ProcessTree.members(1, null)), time(scans, () -> ProcessTree.members(1, sought)));
    } finally {
      sleepers.forEach(Process::destroyForcibly);
    }
  }
}
