package dev.mcpstdio.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/** An output stream that splits what is written into lines, for tests to wait on. */
public final class LineCollector extends OutputStream {

  private final ByteArrayOutputStream partial = new ByteArrayOutputStream();
  private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
  private final List<String> all = new ArrayList<>();
  private final List<byte[]> rawLines = new ArrayList<>();

  /** Collects everything {@code in} yields until it ends (a process's output), on a virtual thread of its own. */
  public LineCollector collect(java.io.InputStream in) {
    Thread.ofVirtual().name("collect").start(() -> {
      byte[] buffer = new byte[8192];
      try {
        for (int n; (n = in.read(buffer)) > 0; ) {
          write(buffer, 0, n);
        }
      } catch (java.io.IOException ignored) {
        // the process ended
      }
    });
    return this;
  }

  @Override
  public synchronized void write(int b) {
    if (b == '\n') {
      byte[] raw = partial.toByteArray();
      String line = new String(raw, StandardCharsets.UTF_8);
      partial.reset();
      rawLines.add(raw);
      all.add(line);
      lines.add(line);
    } else {
      partial.write(b);
    }
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    for (int i = off; i < off + len; i++) {
      write(b[i]);
    }
  }

  /** The next line not yet taken, waiting up to {@code timeout}; fails when none comes. */
  public String next(Duration timeout) {
    try {
      String line = lines.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
      if (line == null) {
        throw new AssertionError("no line within " + timeout.toMillis() + " ms; so far: " + snapshot());
      }
      return line;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError("interrupted");
    }
  }

  /** Takes lines until one matches, failing after {@code timeout}. */
  public String nextMatching(Predicate<String> predicate, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        throw new AssertionError("no matching line within " + timeout.toMillis() + " ms; so far: " + snapshot());
      }
      String line = next(Duration.ofNanos(left));
      if (predicate.test(line)) {
        return line;
      }
    }
  }

  /** Lines not yet taken (does not take them). */
  public List<String> pending() {
    return List.copyOf(lines);
  }

  public synchronized List<String> snapshot() {
    return List.copyOf(all);
  }

  public synchronized List<byte[]> rawSnapshot() {
    return List.copyOf(rawLines);
  }

  /** Bytes written after the last LF (a well-framed stream leaves none). */
  public synchronized int unterminatedBytes() {
    return partial.size();
  }
}
