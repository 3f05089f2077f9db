package dev.mcpstdio.bench;

/** Scratch probe: can the relay carry default-maximum (10 MiB) messages with its heap? */
public final class TenMebibyteProbe {
  public static void main(String[] args) throws Exception {
    int size = Integer.getInteger("size", 10 * 1024 * 1024 - 200);
    try (EchoUpstream up = new EchoUpstream(false);
        RelayBenchmark.Relayed relay = new RelayBenchmark.Relayed(args.length > 0 ? args[0] : "./mcp-stdio", up.url())) {
      double[] ms = relay.sequential(5, size);
      System.err.printf("5 echoes of %d bytes: ok, p50 %.1f ms, peak RSS %d MiB%n", size, RelayBenchmark.percentile(ms, 50), relay.peakRssKb() / 1024);
    }
    System.exit(0);
  }
}
