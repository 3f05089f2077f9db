package dev.mcpstdio.serve.era2025;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where one session is in its life, read by all of its parts: whether its child died (and why),
 * whether it ended, and when it was last used (for the idle reaper). Only {@link Session} moves
 * it on ({@link #die}, {@link #end}); each flag is a volatile set once and never cleared.
 *
 * <p>The parts rely on the order: {@link Session#end} sets the ended flag first and only then
 * forgets, drains and fails what the parts hold, so a part that adds something and then reads the
 * flag as false knows the drain that follows will see it (see {@link ExchangeTable#admit} and
 * {@link SessionGetStream}).
 */
final class SessionLife {

  private final AtomicLong lastActivityNanos = new AtomicLong(System.nanoTime());
  private volatile boolean dead;
  private volatile String deathReason;
  private volatile boolean ended;

  void touch() {
    lastActivityNanos.set(System.nanoTime());
  }

  long idleNanos() {
    return System.nanoTime() - lastActivityNanos.get();
  }

  /** The child's stdout closed: the session can no longer answer. The reason is set before the flag. */
  void die(String reason) {
    deathReason = reason;
    dead = true;
  }

  /** The session ended for good: nothing new is accepted. */
  void end() {
    ended = true;
  }

  boolean dead() {
    return dead;
  }

  String deathReason() {
    return deathReason;
  }

  boolean ended() {
    return ended;
  }

  /** Dead or ended: no new request is admitted and no stream stays open. */
  boolean over() {
    return ended || dead;
  }
}
