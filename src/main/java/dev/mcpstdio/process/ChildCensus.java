package dev.mcpstdio.process;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many child processes one owner (a gateway) has started, and how many of them are alive: a
 * child counts as alive from its start until its process has exited (reaped), whoever ended it.
 * Counting costs two atomic updates per child, none per message.
 */
public final class ChildCensus {

  private final LongAdder started = new LongAdder();
  private final AtomicInteger alive = new AtomicInteger();

  /** Counts {@code child}, started just now, until it exits. */
  public void track(Child child) {
    started.increment();
    alive.incrementAndGet();
    child.exited().whenComplete((code, failure) -> alive.decrementAndGet());
  }

  /** Children started since this census began. */
  public long started() {
    return started.sum();
  }

  /** Children started and not yet exited. */
  public int alive() {
    return alive.get();
  }
}
