package dev.mcpstdio.net;

import java.util.concurrent.Flow;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subscription a response body's subscriber holds: demand and cancellation, which the
 * exchange's thread waits on before it reads more from the socket (so a slow subscriber slows the
 * reading, and nothing piles up). {@code request} and {@code cancel} may come from any thread,
 * from inside {@code onNext} included; a lock, not a monitor, so that a waiting virtual thread
 * never pins its carrier.
 */
final class Http1BodyFeed implements Flow.Subscription {

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private final Runnable onCancel;
  private long demand; // guarded by lock
  private boolean cancelled; // guarded by lock
  private Throwable misuse; // a non-positive request (Reactive Streams rule 3.9); guarded by lock
  private java.io.IOException aborted; // the exchange was given up; guarded by lock

  Http1BodyFeed(Runnable onCancel) {
    this.onCancel = onCancel;
  }

  @Override
  public void request(long n) {
    lock.lock();
    try {
      if (n <= 0) {
        misuse = new IllegalArgumentException("non-positive request: " + n);
      } else {
        demand = demand + n < 0 ? Long.MAX_VALUE : demand + n;
      }
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void cancel() {
    lock.lock();
    try {
      if (cancelled) {
        return;
      }
      cancelled = true;
      changed.signal();
    } finally {
      lock.unlock();
    }
    onCancel.run();
  }

  /** The exchange was given up: a read waiting for demand ends with {@code why}. */
  void abort(java.io.IOException why) {
    lock.lock();
    try {
      if (aborted == null) {
        aborted = why;
      }
      changed.signal();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits until the subscriber wants one more piece, and takes it from the demand.
   *
   * @return false when the subscription was cancelled
   * @throws IllegalArgumentException when the subscriber made a non-positive request
   * @throws java.io.IOException when the exchange was given up ({@link #abort})
   */
  boolean awaitDemand() throws InterruptedException, java.io.IOException {
    lock.lock();
    try {
      while (demand == 0 && !cancelled && misuse == null && aborted == null) {
        changed.await();
      }
      if (cancelled) {
        return false;
      }
      if (aborted != null) {
        throw aborted;
      }
      if (misuse != null) {
        throw (IllegalArgumentException) misuse;
      }
      if (demand != Long.MAX_VALUE) {
        demand--;
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  boolean cancelled() {
    lock.lock();
    try {
      return cancelled;
    } finally {
      lock.unlock();
    }
  }
}
