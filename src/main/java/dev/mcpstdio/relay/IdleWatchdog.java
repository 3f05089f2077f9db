package dev.mcpstdio.relay;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Fires once when nothing has happened for a whole timeout: the read timeout of a streaming body,
 * which the JDK client does not offer (its request timeout ends when the headers arrive).
 *
 * <p>{@link #touch()} is a volatile write, cheap enough for every chunk; the timer re-arms itself
 * lazily for the remaining time instead of being rescheduled on each touch.
 */
final class IdleWatchdog {

  private final ScheduledExecutorService timer;
  private volatile long timeoutNanos;
  private final Runnable onIdle;
  private volatile long lastActivity;
  private volatile boolean stopped;
  private ScheduledFuture<?> pending;

  /** A zero or negative timeout disables the watchdog. */
  IdleWatchdog(ScheduledExecutorService timer, Duration timeout, Runnable onIdle) {
    this.timer = timer;
    this.timeoutNanos = timeout.toNanos();
    this.onIdle = onIdle;
  }

  synchronized void start() {
    lastActivity = System.nanoTime();
    if (timeoutNanos > 0 && !stopped) {
      pending = timer.schedule(this::check, timeoutNanos, TimeUnit.NANOSECONDS);
    }
  }

  void touch() {
    lastActivity = System.nanoTime();
  }

  /** Lowers the timeout to {@code timeout} from now on (never raises it). */
  synchronized void shorten(Duration timeout) {
    long nanos = timeout.toNanos();
    if (stopped || (timeoutNanos > 0 && nanos >= timeoutNanos)) {
      return;
    }
    timeoutNanos = nanos;
    lastActivity = System.nanoTime();
    if (pending != null) {
      pending.cancel(false);
    }
    pending = timer.schedule(this::check, nanos, TimeUnit.NANOSECONDS);
  }

  synchronized void stop() {
    stopped = true;
    if (pending != null) {
      pending.cancel(false);
    }
  }

  private void check() {
    long idle = System.nanoTime() - lastActivity;
    synchronized (this) {
      if (stopped) {
        return;
      }
      if (idle < timeoutNanos) {
        pending = timer.schedule(this::check, timeoutNanos - idle, TimeUnit.NANOSECONDS);
        return;
      }
      stopped = true;
    }
    onIdle.run();
  }
}
