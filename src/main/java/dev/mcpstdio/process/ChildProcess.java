package dev.mcpstdio.process;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.wire.LineReader;
import dev.mcpstdio.wire.Ndjson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * One stdio child process, owned from spawn to reaping.
 *
 * <p>The child is started from an argv list, never through a shell. Its stdout is read line by line
 * (bounded by the maximum message size) and every line handed to the {@link Listener}; its stderr
 * is read line by line and logged with this child's tag, so a chatty child can never block on a
 * full pipe and never reaches the gateway's own output unprefixed. Lines for its stdin go through a
 * bounded queue to one writer thread: a child that stops reading fills the queue and further
 * sends are refused at once, rather than blocking whoever sends.
 *
 * <p>The three pumps are platform threads: a blocking pipe read or write holds its carrier, and
 * a few hundred idle children would otherwise starve every virtual thread in the gateway.
 *
 * <p>{@link #close()} runs the shutdown ladder: close stdin, wait, SIGTERM to the whole process
 * tree, wait, SIGKILL to whatever is left, and returns once the child has been reaped.
 */
public final class ChildProcess implements AutoCloseable {

  /** What to do with what the child says. Called on the child's stdout pump thread. */
  public interface Listener {
    /** One line of the child's stdout, without its terminator. */
    void onLine(byte[] line);

    /** A stdout line longer than the bound; it was skipped. */
    default void onOversizedLine(long length) {}

    /** The child's stdout ended: it exited or closed it. Called once. */
    void onStdoutClosed();

    /**
     * One line of the child's stderr (at most {@link #STDERR_LINE_BYTES}), before it is logged.
     * Called on the stderr pump; must not block.
     *
     * @return true when the line was consumed (a structured callback) and must not be logged
     */
    default boolean onStderrLine(byte[] line) {
      return false;
    }
  }

  /** The waits of the shutdown ladder. */
  public record Ladder(Duration afterStdinClosed, Duration afterTerm) {
    public static final Ladder DEFAULT = new Ladder(Duration.ofSeconds(2), Duration.ofSeconds(2));
  }

  /**
   * Stderr lines longer than this are skipped past their head (logged truncated); it is also the
   * largest structured callback line a listener can receive (64 KiB, see docs/callbacks.md).
   */
  public static final int STDERR_LINE_BYTES = 64 * 1024;

  /** How much of a stderr line is logged. */
  static final int LOGGED_LINE_BYTES = 8 * 1024;

  /** Lines waiting for the child's stdin at most; past it {@link #send} waits, then refuses. */
  static final int STDIN_QUEUE = 1024;

  /** Bytes waiting for the child's stdin at most (a single larger line still goes, alone). */
  static final int STDIN_QUEUE_BYTES = 16 << 20;

  /** How long {@link #send} waits for room in a full stdin queue. */
  static final Duration SEND_WAIT = Duration.ofSeconds(2);

  /** Stack for the pump threads: they only read, scan and hand over lines. */
  private static final long PUMP_STACK = 256 * 1024;

  /** Put on the stdin queue to make the writer close the child's stdin. */
  private static final byte[] EOF = new byte[0];

  private final Process process;
  private final OutputStream stdin;
  private final LinkedBlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>(STDIN_QUEUE);
  private final Semaphore room = new Semaphore(STDIN_QUEUE_BYTES); // bytes the queue may still take
  private final Log log;
  private final Ladder ladder;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private volatile boolean stdinOpen = true;
  private volatile boolean closing;

  private ChildProcess(Process process, Log log, Ladder ladder) {
    this.process = process;
    this.stdin = process.getOutputStream();
    this.log = log;
    this.ladder = ladder;
  }

  /**
   * Starts {@code spec} and its pumps.
   *
   * @param maxLineBytes the longest stdout line delivered; longer ones are skipped and reported
   * @throws IOException when the program cannot be started (not found, not executable)
   */
  public static ChildProcess start(ChildSpec spec, long maxLineBytes, Log log, Ladder ladder, Listener listener)
      throws IOException {
    ProcessBuilder builder = new ProcessBuilder(spec.argv());
    builder.environment().keySet().removeAll(spec.removedEnv());
    builder.environment().putAll(spec.extraEnv());
    if (spec.workingDirectory() != null) {
      builder.directory(spec.workingDirectory().toFile());
    }
    ChildProcess child = new ChildProcess(builder.start(), log, ladder);
    child.pump("stdout", () -> child.readStdout(maxLineBytes, listener));
    child.pump("stderr", () -> child.readStderr(listener));
    child.pump("stdin", child::writeStdin);
    return child;
  }

  private void pump(String stream, Runnable body) {
    Thread.ofPlatform().daemon().stackSize(PUMP_STACK).name("child-" + process.pid() + "-" + stream).start(body);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /** Completes with the exit code once the child has exited and been reaped. */
  public CompletableFuture<Integer> exited() {
    return process.onExit().thenApply(Process::exitValue);
  }

  /**
   * Queues one message for the child's stdin, as one line, waiting at most {@link #SEND_WAIT} for
   * room when the child is slow to read.
   *
   * @return false when stdin is closed, the child stopped reading (the queue stayed full), or an
   *     earlier write failed (the child is gone or going)
   */
  public boolean send(byte[] json) {
    if (!stdinOpen) {
      return false;
    }
    byte[] line = Ndjson.frame(json);
    long deadline = System.nanoTime() + SEND_WAIT.toNanos();
    try {
      if (!room.tryAcquire(cost(line), SEND_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
        return false;
      }
      if (!outbox.offer(line, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        room.release(cost(line));
        return false;
      }
      return stdinOpen;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Like {@link #send} but never waits: for messages that must not hold up their sender. */
  public boolean trySend(byte[] json) {
    if (!stdinOpen) {
      return false;
    }
    byte[] line = Ndjson.frame(json);
    if (!room.tryAcquire(cost(line))) {
      return false;
    }
    if (!outbox.offer(line)) {
      room.release(cost(line));
      return false;
    }
    return true;
  }

  private static int cost(byte[] line) {
    return Math.min(line.length, STDIN_QUEUE_BYTES);
  }

  private void writeStdin() {
    try {
      while (true) {
        byte[] line = outbox.take();
        if (line == EOF) {
          break;
        }
        stdin.write(line);
        room.release(cost(line));
        if (outbox.isEmpty()) {
          stdin.flush(); // a burst of lines leaves in few writes
        }
      }
    } catch (IOException | InterruptedException e) {
      // the child closed its stdin or exited: nothing more can reach it
    } finally {
      stdinOpen = false;
      discardQueued();
      try {
        stdin.close();
      } catch (IOException e) {
        // already gone
      }
    }
  }

  /** Empties the stdin queue, giving its bytes back. */
  private void discardQueued() {
    List<byte[]> dropped = new ArrayList<>();
    outbox.drainTo(dropped);
    for (byte[] line : dropped) {
      if (line != EOF) {
        room.release(cost(line));
      }
    }
  }

  private void readStdout(long maxLineBytes, Listener listener) {
    try (InputStream out = process.getInputStream()) {
      LineReader reader = new LineReader(out, maxLineBytes);
      for (LineReader.Line line; (line = reader.next()) != null; ) {
        switch (line) {
          case LineReader.Line.Text text -> {
            if (text.bytes().length > 0) {
              deliver(() -> listener.onLine(text.bytes()));
            }
          }
          case LineReader.Line.Oversized big -> deliver(() -> listener.onOversizedLine(big.length()));
        }
      }
    } catch (IOException e) {
      if (!closing) {
        log.debug("child stdout: " + e.getMessage());
      }
    } finally {
      listener.onStdoutClosed();
    }
  }

  /** A listener that fails on one line must not stop the pump: the child would block on a full pipe. */
  private void deliver(Runnable delivery) {
    try {
      delivery.run();
    } catch (RuntimeException e) {
      log.error("handling a line from the child failed: " + e);
    }
  }

  private void readStderr(Listener listener) {
    try (InputStream err = process.getErrorStream()) {
      LineReader reader = new LineReader(err, STDERR_LINE_BYTES);
      for (LineReader.Line line; (line = reader.next()) != null; ) {
        switch (line) {
          case LineReader.Line.Text text -> {
            boolean consumed = false;
            try {
              consumed = listener.onStderrLine(text.bytes());
            } catch (RuntimeException e) {
              log.error("handling a stderr line from the child failed: " + e);
            }
            if (!consumed) {
              log.info(text.bytes().length <= LOGGED_LINE_BYTES ? decode(text.bytes(), text.bytes().length)
                  : decode(text.bytes(), LOGGED_LINE_BYTES) + " [... " + text.bytes().length + " bytes in all]");
            }
          }
          case LineReader.Line.Oversized big ->
              log.info(decode(big.head(), Math.min(big.head().length, LOGGED_LINE_BYTES))
                  + " [... " + big.length() + " bytes in all]");
        }
      }
    } catch (IOException e) {
      // the child closed stderr or exited: nothing more to log
    }
  }

  /** Text for the log: invalid UTF-8 replaced, control characters (ESC above all) made visible. */
  static String decode(byte[] bytes, int length) {
    String text = new String(bytes, 0, length, StandardCharsets.UTF_8);
    StringBuilder out = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < 0x20 && c != '\t' || c == 0x7f) {
        if (out == null) {
          out = new StringBuilder(text.length() + 16).append(text, 0, i);
        }
        out.append(String.format("\\x%02x", (int) c));
      } else if (out != null) {
        out.append(c);
      }
    }
    return out == null ? text : out.toString();
  }

  /**
   * Ends the child: close stdin, wait, SIGTERM the process tree, wait, SIGKILL what is left.
   * Returns once the child is reaped. Safe to call more than once and from several threads; the
   * later calls wait for the first.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closing) {
        closed.join();
        return;
      }
      closing = true;
    }
    try {
      // Taken first: once the child exits, its descendants are re-parented and out of sight.
      List<ProcessHandle> tree = tree();
      closeStdin();
      if (await(process, ladder.afterStdinClosed()) && tree.stream().noneMatch(ProcessHandle::isAlive)) {
        return;
      }
      tree.addAll(tree()); // anything spawned meanwhile, while the child still lives
      log.info("child " + process.pid() + (process.isAlive() ? "" : "'s descendants") + " still running "
          + ladder.afterStdinClosed().toMillis() + " ms after stdin closed; sending SIGTERM");
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
      if (awaitAll(tree, ladder.afterTerm())) {
        return;
      }
      log.warn("child " + process.pid() + " (or a descendant) ignored SIGTERM for " + ladder.afterTerm().toMillis()
          + " ms; sending SIGKILL");
      tree.addAll(tree());
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      if (!process.waitFor(ladder.afterTerm().toMillis(), TimeUnit.MILLISECONDS)) {
        log.error("child " + process.pid() + " survived SIGKILL (stuck in the kernel?); giving up on it");
      }
    } catch (InterruptedException e) {
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      closed.complete(null);
    }
  }

  /** Waits until every process in {@code tree} has ended, at most {@code wait}. */
  private static boolean awaitAll(List<ProcessHandle> tree, Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    for (ProcessHandle p : tree) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return tree.stream().noneMatch(ProcessHandle::isAlive);
      }
      try {
        p.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return false;
      } catch (java.util.concurrent.ExecutionException e) {
        // cannot watch it; the final check below decides
      }
    }
    return tree.stream().noneMatch(ProcessHandle::isAlive);
  }

  /**
   * Closes the child's stdin once the lines already queued are written: the polite way to ask a
   * stdio server to finish. Never blocks; a child that does not read keeps its stdin until the
   * ladder's signals end it.
   */
  public void closeStdin() {
    stdinOpen = false;
    if (!outbox.offer(EOF)) {
      discardQueued(); // a child that stopped reading will not get these anyway
      outbox.offer(EOF);
    }
  }

  /** The child and its descendants, descendants first (a parent may respawn a killed child); mutable. */
  private List<ProcessHandle> tree() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    return all;
  }

  private static boolean await(Process process, Duration wait) throws InterruptedException {
    return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
  }
}
