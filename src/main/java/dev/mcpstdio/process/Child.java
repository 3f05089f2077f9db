package dev.mcpstdio.process;

import java.util.concurrent.CompletableFuture;

/**
 * What the gateway needs of a running stdio child, whichever era's session or pool owns it: a way
 * to queue lines for its stdin, its identity and liveness, and the shutdown ladder. What the child
 * writes comes back through a {@link ChildProcess.Listener}, which whoever starts the child passes
 * in.
 *
 * <p>{@link ChildProcess} is the real one; tests put a fake in its place to drive the routing of a
 * child's output without spawning processes. Implementations are thread-safe: HTTP threads send,
 * pump threads and reapers ask after liveness, a closer thread closes.
 */
public interface Child extends AutoCloseable {

  /** The operating system's id of the child process (for the log). */
  long pid();

  boolean isAlive();

  /** Completes with the exit code once the child has exited and been reaped. */
  CompletableFuture<Integer> exited();

  /**
   * Queues one message for the child's stdin, as one line, waiting a bounded time for room when
   * the child is slow to read.
   *
   * @return false when the child cannot take it (stdin closed, the child stopped reading, an
   *     earlier write failed)
   */
  boolean send(byte[] json);

  /** Like {@link #send} but never waits: for messages that must not hold up their sender. */
  boolean trySend(byte[] json);

  /**
   * Ends the child and its whole process tree with the shutdown ladder, and returns once it is
   * reaped; idempotent (a later call waits for the first).
   */
  @Override
  void close();
}
