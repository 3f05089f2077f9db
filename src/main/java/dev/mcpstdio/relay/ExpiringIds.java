package dev.mcpstdio.relay;

import dev.mcpstdio.jsonrpc.JsonRpcId;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * A set of request ids whose membership lapses after a time-to-live, with a hard size bound.
 *
 * <p>Entries are kept in insertion order, which is also expiry order, so expired entries are swept
 * from the head in amortised constant time, and past the bound the oldest entry goes first.
 */
final class ExpiringIds {

  private final long ttlNanos;
  private final int capacity;
  private final LongSupplier clock;
  private final LinkedHashMap<JsonRpcId, Long> entries = new LinkedHashMap<>();
  private final ReentrantLock lock = new ReentrantLock();

  ExpiringIds(Duration ttl, int capacity, LongSupplier clock) {
    this.ttlNanos = ttl.toNanos();
    this.capacity = capacity;
    this.clock = clock;
  }

  void add(JsonRpcId id) {
    lock.lock();
    try {
      long now = clock.getAsLong();
      sweep(now);
      entries.remove(id); // re-insert at the tail: it now expires last
      entries.put(id, now + ttlNanos);
      while (entries.size() > capacity) {
        Iterator<JsonRpcId> oldest = entries.keySet().iterator();
        oldest.next();
        oldest.remove();
      }
    } finally {
      lock.unlock();
    }
  }

  boolean contains(JsonRpcId id) {
    lock.lock();
    try {
      Long expiry = entries.get(id);
      return expiry != null && expiry - clock.getAsLong() > 0;
    } finally {
      lock.unlock();
    }
  }

  /** Removes the id if present and live; true when it was. */
  boolean consume(JsonRpcId id) {
    lock.lock();
    try {
      Long expiry = entries.remove(id);
      return expiry != null && expiry - clock.getAsLong() > 0;
    } finally {
      lock.unlock();
    }
  }

  void remove(JsonRpcId id) {
    lock.lock();
    try {
      entries.remove(id);
    } finally {
      lock.unlock();
    }
  }

  int size() {
    lock.lock();
    try {
      sweep(clock.getAsLong());
      return entries.size();
    } finally {
      lock.unlock();
    }
  }

  private void sweep(long now) {
    Iterator<Map.Entry<JsonRpcId, Long>> it = entries.entrySet().iterator();
    while (it.hasNext()) {
      if (it.next().getValue() - now > 0) {
        return;
      }
      it.remove();
    }
  }
}
