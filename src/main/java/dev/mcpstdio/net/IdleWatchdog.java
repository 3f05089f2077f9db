package dev.mcpstdio.net;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Fires once when nothing has happened for a whole timeout: the read timeout of a streaming body,
 * which an HTTP request timeout does not cover (it ends when the headers arrive), and the request
 * deadline of {@link Http1Client} (a watchdog never touched).
 *
 * <p>Watchdogs cost nothing per chunk ({@link #touch()} is one volatile write) and nothing per
 * exchange beyond a set insertion: no timer task is scheduled, because scheduling wakes a timer
 * thread, and a wake-up per request is measurable on a relay. One {@link Sweeper} thread looks
 * at every live watchdog a few times a second instead, and sleeps for good once none has been live
 * for a while. A timeout therefore fires up to one sweep late (at most 250 ms).
 */
public final class IdleWatchdog {

  private final Sweeper sweeper;
  private final Runnable onIdle;
  private volatile long timeoutNanos;
  private volatile long lastActivity;
  private volatile boolean stopped;

  private IdleWatchdog(Sweeper sweeper, Duration timeout, Runnable onIdle) {
    this.sweeper = sweeper;
    this.timeoutNanos = timeout.toNanos();
    this.onIdle = onIdle;
  }

  /** Starts watching; a zero or negative timeout watches nothing until {@link #shorten}. */
  public void start() {
    lastActivity = System.nanoTime();
    if (timeoutNanos > 0 && !stopped) {
      sweeper.add(this);
    }
  }

  public void touch() {
    lastActivity = System.nanoTime();
  }

  /** Lowers the timeout to {@code timeout}, counted from now (never raises it). */
  public void shorten(Duration timeout) {
    long nanos = timeout.toNanos();
    if (stopped || (timeoutNanos > 0 && nanos >= timeoutNanos)) {
      return;
    }
    timeoutNanos = nanos;
    lastActivity = System.nanoTime();
    sweeper.add(this);
  }

  public void stop() {
    stopped = true;
    sweeper.remove(this);
  }

  private void check(long now) {
    if (stopped) {
      sweeper.remove(this); // stopped while start() was adding it
      return;
    }
    if (now - lastActivity < timeoutNanos) {
      return;
    }
    stopped = true;
    sweeper.remove(this);
    try {
      Thread.ofVirtual().name("mcp-stdio-idle").start(onIdle);
    } catch (OutOfMemoryError e) { // no thread for it now: the next sweep tries again
      stopped = false;
      sweeper.live.add(this);
    }
  }

  /** The thread that checks every live watchdog. */
  public static final class Sweeper implements AutoCloseable {

    public static final long MAX_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(250);
    private static final long MIN_TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final long PARK_AFTER_IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final Set<IdleWatchdog> live = ConcurrentHashMap.newKeySet();
    private final Thread thread;
    private volatile long tickNanos = MAX_TICK_NANOS;
    private volatile boolean parked;
    private volatile boolean closed;

    public Sweeper(String name) {
      thread = Thread.ofPlatform().daemon().name(name).start(this::run);
    }

    public IdleWatchdog watch(Duration timeout, Runnable onIdle) {
      return new IdleWatchdog(this, timeout, onIdle);
    }

    private void add(IdleWatchdog w) {
      long quarter = Math.max(MIN_TICK_NANOS, w.timeoutNanos / 4);
      if (quarter < tickNanos) {
        tickNanos = quarter; // a short timeout needs closer looks (the next sweep widens again)
      }
      live.add(w);
      if (parked) {
        parked = false;
        LockSupport.unpark(thread);
      }
    }

    private void remove(IdleWatchdog w) {
      live.remove(w);
    }

    private void run() {
      long emptySince = System.nanoTime();
      while (!closed) {
        if (live.isEmpty() && System.nanoTime() - emptySince > PARK_AFTER_IDLE_NANOS) {
          parked = true;
          if (live.isEmpty() && !closed) {
            LockSupport.park(this);
          }
          parked = false;
          continue;
        }
        LockSupport.parkNanos(this, tickNanos);
        long now = System.nanoTime();
        if (live.isEmpty()) {
          continue;
        }
        emptySince = now;
        long tick = MAX_TICK_NANOS;
        try {
          for (IdleWatchdog w : live) {
            w.check(now);
            tick = Math.min(tick, Math.max(MIN_TICK_NANOS, w.timeoutNanos / 4));
          }
        } catch (RuntimeException | Error e) {
          // The sweeper outlives any one pass (an out-of-memory error, say): were it to die, no
          // deadline would fire again and requests would wait for ever. The next pass goes on.
        }
        tickNanos = tick; // as close as the shortest live timeout needs, no closer
      }
    }

    @Override
    public void close() {
      closed = true;
      LockSupport.unpark(thread);
    }
  }
}
