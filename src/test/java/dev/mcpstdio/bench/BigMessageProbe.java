package dev.mcpstdio.bench;

import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.wire.LineReader;
import dev.mcpstdio.wire.Ndjson;
import dev.mcpstdio.wire.Utf8;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;

/** Scratch probe: per-stage cost of one 1 MiB message. */
public final class BigMessageProbe {
  public static void main(String[] args) throws Exception {
    byte[] msg = RelayBenchmark.call(7, 1 << 20).getBytes(StandardCharsets.UTF_8);
    byte[] line = (RelayBenchmark.call(7, 1 << 20) + "\n").getBytes(StandardCharsets.UTF_8);
    for (int round = 0; round < 5; round++) {
      long t0 = System.nanoTime();
      for (int i = 0; i < 20; i++) new LineReader(new ByteArrayInputStream(line), 0).next();
      long t1 = System.nanoTime();
      for (int i = 0; i < 20; i++) Utf8.isValid(msg);
      long t2 = System.nanoTime();
      for (int i = 0; i < 20; i++) JsonRpcCodec.parse(msg);
      long t3 = System.nanoTime();
      for (int i = 0; i < 20; i++) Ndjson.needsRewrite(msg);
      long t4 = System.nanoTime();
      System.out.printf("per MiB: lineReader %.2f ms, utf8 %.2f ms, parse %.2f ms, needsRewrite %.2f ms%n",
          (t1 - t0) / 20e6, (t2 - t1) / 20e6, (t3 - t2) / 20e6, (t4 - t3) / 20e6);
    }
  }
}
