package dev.mcpstdio.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/** An in-memory stdin: the test writes lines, the relay reads them; {@link #close()} is EOF. */
public final class TestPipe extends InputStream {

  private static final byte[] EOF = new byte[0];
  private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
  private byte[] current = new byte[0];
  private int position;
  private boolean ended;

  public void write(byte[] bytes) {
    if (bytes.length > 0) {
      chunks.add(bytes.clone());
    }
  }

  public void writeLine(String line) {
    write((line + "\n").getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    chunks.add(EOF);
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xFF;
  }

  @Override
  public int read(byte[] b, int off, int len) throws IOException {
    if (ended) {
      return -1;
    }
    while (position == current.length) {
      try {
        current = chunks.take();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new java.io.InterruptedIOException();
      }
      position = 0;
      if (current == EOF) {
        ended = true;
        return -1;
      }
    }
    int n = Math.min(len, current.length - position);
    System.arraycopy(current, position, b, off, n);
    position += n;
    return n;
  }
}
