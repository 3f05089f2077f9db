package dev.mcpstdio.relay;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The upstream session as the relay knows it: the {@code Mcp-Session-Id} the server assigned, the
 * protocol version it chose, and a generation that changes whenever the session is replaced.
 *
 * <p>Readers take an immutable {@link Snapshot}; writers replace it under the lock. The generation
 * lets a request that failed with 404 tell whether someone already re-initialized after it was
 * sent.
 */
final class SessionState {

  /** An immutable view of the session. */
  record Snapshot(String sessionId, String protocolVersion, long generation) {}

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  private volatile Snapshot current = new Snapshot(null, null, 0);

  /** Serialises re-initialization; held across the re-initialize exchange. */
  final ReentrantLock recovery = new ReentrantLock();

  Snapshot current() {
    return current;
  }

  /** Adopts a session id from a successful response (the server may assign or rotate it). */
  void adoptSessionId(String sessionId) {
    lock.lock();
    try {
      Snapshot s = current;
      if (!sessionId.equals(s.sessionId())) {
        current = new Snapshot(sessionId, s.protocolVersion(), s.generation() + 1);
        changed.signalAll();
      }
    } finally {
      lock.unlock();
    }
  }


  /** Replaces the whole session (after re-initialization). */
  void replace(String sessionId, String version) {
    lock.lock();
    try {
      current = new Snapshot(sessionId, version, current.generation() + 1);
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits until the generation differs from {@code generation}, up to {@code millis}. */
  boolean awaitChange(long generation, long millis) throws InterruptedException {
    long deadline = System.nanoTime() + millis * 1_000_000L;
    lock.lock();
    try {
      while (current.generation() == generation) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        changed.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
