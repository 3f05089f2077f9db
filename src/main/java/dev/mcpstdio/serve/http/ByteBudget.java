package dev.mcpstdio.serve.http;

import java.util.concurrent.atomic.AtomicLong;

/**
 * A shared allowance of bytes held in memory for one purpose (request bodies being served, or
 * messages from children waiting for slow clients). Taking never waits: a caller that finds the
 * budget spent refuses or drops, and says so. Every byte taken is given back exactly once.
 */
public final class ByteBudget {

  private final long limit;
  private final AtomicLong used = new AtomicLong();

  public ByteBudget(long limit) {
    this.limit = limit;
  }

  /** Takes {@code bytes}; false (taking nothing) when that would pass the limit. */
  public boolean tryTake(long bytes) {
    while (true) {
      long now = used.get();
      if (now + bytes > limit && now > 0) { // one item larger than the whole budget still fits alone
        return false;
      }
      if (used.compareAndSet(now, now + bytes)) {
        return true;
      }
    }
  }

  /** Takes {@code bytes} even past the limit: for what must not be dropped (a legacy answer). */
  public void take(long bytes) {
    used.addAndGet(bytes);
  }

  public void giveBack(long bytes) {
    used.addAndGet(-bytes);
  }

  public long used() {
    return used.get();
  }

  public long limit() {
    return limit;
  }
}
