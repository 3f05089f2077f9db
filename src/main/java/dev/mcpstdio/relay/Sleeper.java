package dev.mcpstdio.relay;

import java.time.Duration;

/** Waits between attempts; tests substitute one that records instead of sleeping. */
@FunctionalInterface
public interface Sleeper {

  Sleeper REAL = d -> Thread.sleep(d.toMillis(), (int) (d.toNanos() % 1_000_000));

  void sleep(Duration duration) throws InterruptedException;
}
