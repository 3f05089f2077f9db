package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.process.ChildProcess;

/**
 * The listener of a child process spawned before the pooled child it will serve takes it over: it
 * forwards everything to that child from {@link #handOver} on, and until then keeps only whether
 * the child's stdout closed (the process is then of no use). What the process writes on stdout
 * before it is handed over goes to {@link #early}; its stderr is logged as usual.
 *
 * <p>Used twice: by the {@link ChildProbe} (the first process of a pool, asked {@code
 * server/discover}) and by a {@link WarmProcess} (a 2025-era process waiting for its initialize).
 */
class HandOver implements ChildProcess.Listener {

  private volatile ChildProcess.Listener next;
  private volatile boolean stdoutClosed;

  /**
   * From now on the child's lines go to {@code listener}; false when its stdout had closed already
   * ({@code listener} is then never told, and must be told by the caller). Exactly one of the two
   * tells it: the lock orders the hand-over against the close.
   */
  final synchronized boolean handOver(ChildProcess.Listener listener) {
    this.next = listener;
    return !stdoutClosed;
  }

  /** True once the process's stdout closed (whether before or after it was handed over). */
  final boolean stdoutClosed() {
    return stdoutClosed;
  }

  /** A stdout line written before the hand-over: ignored unless a subclass wants it. */
  void early(byte[] line) {}

  /** The process's stdout closed before the hand-over. */
  void closedEarly() {}

  @Override
  public final void onLine(byte[] line) {
    ChildProcess.Listener to = next;
    if (to != null) {
      to.onLine(line);
    } else {
      early(line);
    }
  }

  @Override
  public final void onOversizedLine(long length, byte[] head) {
    ChildProcess.Listener to = next;
    if (to != null) {
      to.onOversizedLine(length, head);
    }
  }

  @Override
  public final void onStdoutClosed() {
    ChildProcess.Listener to;
    synchronized (this) {
      stdoutClosed = true;
      to = next;
    }
    if (to != null) {
      to.onStdoutClosed();
    } else {
      closedEarly();
    }
  }

  @Override
  public final boolean onStderrLine(byte[] line) {
    ChildProcess.Listener to = next;
    return to != null && to.onStderrLine(line);
  }
}
