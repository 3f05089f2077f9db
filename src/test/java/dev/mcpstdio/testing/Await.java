package dev.mcpstdio.testing;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Bounded waiting on a condition: the test-side replacement for sleeps. */
public final class Await {

  public static final Duration DEFAULT = Duration.ofSeconds(15);

  private Await() {}

  /** Polls {@code condition} until it holds or {@code timeout} passes; fails with {@code what}. */
  public static void until(String what, Duration timeout, BooleanSupplier condition) {
    long deadline = System.nanoTime() + timeout.toNanos();
    long pause = 1;
    while (!condition.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting for " + what);
      }
      LockSupport.parkNanos(pause * 1_000_000L); // poll interval inside a bounded wait
      if (Thread.interrupted()) {
        throw new AssertionError("interrupted waiting for " + what);
      }
      pause = Math.min(pause * 2, 20);
    }
  }

  public static void until(String what, BooleanSupplier condition) {
    until(what, DEFAULT, condition);
  }

  /** Polls until {@code supplier} yields non-null, and returns it. */
  public static <T> T value(String what, Duration timeout, Supplier<T> supplier) {
    Object[] holder = new Object[1];
    until(what, timeout, () -> (holder[0] = supplier.get()) != null);
    @SuppressWarnings("unchecked")
    T value = (T) holder[0];
    return value;
  }
}
