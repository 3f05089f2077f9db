package dev.mcpstdio.cli;

import dev.mcpstdio.wire.Swar;

/**
 * A workload for {@link RelayJitTest}, run in a JVM of its own: a method of a class the relay lets
 * C2 compile ({@link Swar#indexOf}) and one of a class it does not ({@link #unlisted}), each
 * called often enough for C2 to be asked for both.
 */
public final class JitProbe {

  private JitProbe() {}

  static int unlisted(byte[] bytes, int from) {
    int sum = 0;
    for (int i = from; i < bytes.length; i++) {
      sum += bytes[i];
    }
    return sum;
  }

  public static void main(String[] args) {
    byte[] bytes = new byte[256];
    bytes[200] = '\n';
    long total = 0;
    for (int i = 0; i < 200_000; i++) {
      total += Swar.indexOf(bytes, (byte) '\n', i & 7, bytes.length);
      total += unlisted(bytes, i & 7);
    }
    System.err.println("done " + total); // stderr: stdout carries the JVM's compilation log
  }
}
