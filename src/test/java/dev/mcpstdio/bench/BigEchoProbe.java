package dev.mcpstdio.bench;

import java.nio.file.Files;
import java.nio.file.Path;

/** Scratch probe: RSS of the relay around 1 MiB echoes. */
public final class BigEchoProbe {
  public static void main(String[] args) throws Exception {
    try (EchoUpstream up = new EchoUpstream(false);
        RelayBenchmark.Relayed relay = new RelayBenchmark.Relayed(args.length > 0 ? args[0] : "./mcp-stdio", up.url())) {
      System.err.println("pid " + relay.pid() + " after init rss " + rss(relay.pid()));
      relay.sequential(200, 64);
      System.err.println("after small rss " + rss(relay.pid()));
      for (int round = 0; round < 3; round++) {
        relay.sequential(10, 1 << 20);
        System.err.println("after 10 big rss " + rss(relay.pid()));
      }
      Files.writeString(Path.of("/tmp/probe.pid"), String.valueOf(relay.pid()));
      Thread.sleep(Long.parseLong(System.getProperty("hold", "0")));
    }
    System.exit(0);
  }

  static String rss(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS")) {
        return line.replaceAll("\\s+", " ");
      }
    }
    return "?";
  }
}
