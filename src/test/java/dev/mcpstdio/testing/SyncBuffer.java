package dev.mcpstdio.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** A log sink a test may read while other threads write to it. */
public final class SyncBuffer extends OutputStream {
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

  @Override
  public synchronized void write(int b) {
    bytes.write(b);
  }

  @Override
  public synchronized void write(byte[] b, int off, int len) {
    bytes.write(b, off, len);
  }

  public synchronized String text() {
    return bytes.toString(StandardCharsets.UTF_8);
  }
}
