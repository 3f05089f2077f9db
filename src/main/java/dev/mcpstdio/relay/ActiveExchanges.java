package dev.mcpstdio.relay;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/** The exchanges running right now, so shutdown can wait for them or interrupt them. */
final class ActiveExchanges {

  private final Set<Thread> threads = ConcurrentHashMap.newKeySet();
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition idle = lock.newCondition();

  void enter(Thread thread) {
    threads.add(thread);
  }

  void exit(Thread thread) {
    threads.remove(thread);
    lock.lock();
    try {
      if (threads.isEmpty()) {
        idle.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }

  int count() {
    return threads.size();
  }

  /** Waits until no exchange runs, up to {@code timeout}; true when idle. */
  boolean awaitIdle(Duration timeout) throws InterruptedException {
    long left = timeout.toNanos();
    lock.lock();
    try {
      while (!threads.isEmpty()) {
        if (left <= 0) {
          return false;
        }
        left = idle.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }

  void interruptAll() {
    threads.forEach(Thread::interrupt);
  }
}
