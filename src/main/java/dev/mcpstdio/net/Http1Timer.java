package dev.mcpstdio.net;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The one timer thread of the outbound HTTP client: request deadlines and the pool's sweep.
 * Started on first use, a daemon (it never keeps the process alive); a cancelled deadline leaves
 * its queue at once, so the queue holds at most one entry per exchange under way, plus the sweep.
 * Tasks are short: each closes sockets or flips a flag.
 */
final class Http1Timer {

  private volatile ScheduledThreadPoolExecutor executor;

  private ScheduledThreadPoolExecutor executor() {
    ScheduledThreadPoolExecutor e = executor;
    if (e == null) {
      synchronized (this) {
        e = executor;
        if (e == null) {
          e = new ScheduledThreadPoolExecutor(1, Thread.ofPlatform().daemon().name("http-timer").factory());
          e.setRemoveOnCancelPolicy(true);
          e.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
          executor = e;
        }
      }
    }
    return e;
  }

  ScheduledFuture<?> after(long delay, TimeUnit unit, Runnable task) {
    return executor().schedule(task, delay, unit);
  }

  ScheduledFuture<?> every(long period, TimeUnit unit, Runnable task) {
    return executor().scheduleWithFixedDelay(task, period, period, unit);
  }

  void shutdown() {
    ScheduledThreadPoolExecutor e = executor;
    if (e != null) {
      e.shutdownNow();
    }
  }
}
