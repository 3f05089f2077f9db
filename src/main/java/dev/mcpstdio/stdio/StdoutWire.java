package dev.mcpstdio.stdio;

import dev.mcpstdio.wire.Ndjson;
import java.io.BufferedOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The single writer of the JSON-RPC wire.
 *
 * <p>Each message leaves as one complete LF-terminated line, written and flushed under one lock,
 * so concurrent writers never interleave bytes. When claimed for the real process, the wire takes
 * file descriptor 1 for itself and points {@code System.out} at stderr: a stray {@code println}
 * anywhere in the process (ours or a library's) then cannot corrupt the wire.
 *
 * <p>A failed write (the host closed its end) marks the wire broken; later writes are refused and
 * the owner is told once, so it can shut down.
 */
public final class StdoutWire {

  /** Messages at least this long are written without a framing copy. */
  static final int LARGE = 64 * 1024;

  private final OutputStream out;
  private final ReentrantLock lock = new ReentrantLock();
  private byte[] scratch; // a rewritten slice of a large message; guarded by lock
  private volatile boolean broken;
  private volatile Runnable onBroken = () -> {};

  public StdoutWire(OutputStream out) {
    this.out = out;
  }

  /** Takes the process's stdout for the wire and redirects {@code System.out} to stderr. */
  public static StdoutWire claimProcessStdout() {
    OutputStream fd1 = new FileOutputStream(FileDescriptor.out);
    System.setOut(System.err);
    return new StdoutWire(new BufferedOutputStream(fd1, 1 << 16));
  }

  public void onBroken(Runnable callback) {
    this.onBroken = callback;
  }

  public boolean isBroken() {
    return broken;
  }

  /**
   * Writes one message as one line.
   *
   * @param json one well-formed JSON value, without a line terminator
   * @return false when the wire is broken and the message was not written
   */
  public boolean write(byte[] json) {
    // A small message is framed into one array (one write, one syscall). A large one goes out in
    // slices, each checked just before it is written and rewritten only if it needs it: no copy
    // of a megabyte just to add the LF, and the host reads the first slice while the next is checked.
    byte[] line = json.length < LARGE ? Ndjson.frame(json) : null;
    boolean failed = false;
    lock.lock();
    try {
      if (broken) {
        return false;
      }
      if (line != null) {
        out.write(line);
      } else {
        writeSlices(json);
      }
      out.flush();
      return true;
    } catch (IOException e) {
      broken = true;
      failed = true;
      return false;
    } finally {
      lock.unlock();
      if (failed) {
        onBroken.run();
      }
    }
  }

  /**
   * A large message in slices of at least {@link #LARGE} bytes (so none waits in a buffer of that
   * size), each ending where a character starts, then the LF. One write of the whole would first
   * copy all of it into a native buffer of its size. A rewritten slice goes through one buffer
   * allocated before the first byte leaves; should anything still fail once part of the line is
   * out, the line cannot be completed or taken back, so the wire is broken.
   */
  private void writeSlices(byte[] json) throws IOException {
    if (scratch == null) {
      scratch = new byte[Ndjson.maxRewrittenLength(LARGE + 3)];
    }
    try {
      for (int at = 0, end; at < json.length; at = end) {
        end = Ndjson.characterBoundary(json, Math.min(json.length, at + LARGE));
        if (Ndjson.needsRewrite(json, at, end)) {
          out.write(scratch, 0, Ndjson.rewriteInto(json, at, end, scratch));
        } else {
          out.write(json, at, end - at);
        }
      }
      out.write('\n');
    } catch (RuntimeException | Error e) {
      throw new IOException("stdout write failed mid-message: " + e, e);
    }
  }

  /** Flushes and closes the underlying stream; later writes are refused. */
  public void close() {
    lock.lock();
    try {
      broken = true;
      out.close();
    } catch (IOException ignored) {
      // nothing left to tell the host
    } finally {
      lock.unlock();
    }
  }
}
