package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;

/**
 * A 2025-era child process the pool spawned ahead of need and has not initialized yet: the next
 * child the pool needs, for whatever principal and {@link ClientAsks}, takes it over and sends it
 * the initialize that key calls for, so a new key (a new user, or a client that declares other
 * capabilities) waits for a handshake only, not for a process to start. At most one per pool, and
 * counted in the pool's total cap (see {@link ChildPool}).
 *
 * @param serial the pooled child's serial it becomes (its log lines carry it from the start)
 * @param childLog the log of its stderr, kept by the pooled child it becomes
 * @param listener forwards its output to that pooled child once handed over
 * @param bornNanos when it was spawned ({@link System#nanoTime}), for the idle TTL
 */
record WarmProcess(long serial, ChildLog childLog, ChildProcess process, HandOver listener, long bornNanos) {

  /** False once the process ended (or closed its stdout): it cannot be initialized any more. */
  boolean usable() {
    return !listener.stdoutClosed() && process.isAlive();
  }
}
