package dev.mcpstdio.serve.era2026;

import dev.mcpstdio.process.ChildLog;
import dev.mcpstdio.process.ChildProcess;

/**
 * A child process the pool spawned ahead of need: a 2025-era one not yet initialized, which the
 * next child the pool needs, for whatever principal and {@link ClientAsks}, takes over and sends
 * the initialize that key calls for, so a new key (a new user, or a client that declares other
 * capabilities) waits for a handshake only, not for a process to start; or the process that
 * probed the command and proved a 2026-era server, with its discover answer, which the first child
 * takes over. At most one per pool, and counted in the pool's total cap (see {@link ChildPool}).
 *
 * @param serial the pooled child's serial it becomes (its log lines carry it from the start)
 * @param childLog the log of its stderr, kept by the pooled child it becomes
 * @param listener forwards its output to that pooled child once handed over
 * @param bornNanos when it was spawned ({@link System#nanoTime}), for the idle TTL
 * @param discovered the probe's answer line to {@code server/discover} (a 2026-era server); null
 *     for a 2025-era process, which has been asked nothing
 */
record WarmProcess(long serial, ChildLog childLog, ChildProcess process, HandOver listener, long bornNanos, byte[] discovered) {

  /** False once the process ended (or closed its stdout): it cannot be initialized any more. */
  boolean usable() {
    return !listener.stdoutClosed() && process.isAlive();
  }
}
