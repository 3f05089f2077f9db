package dev.mcpstdio.serve.auth;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A map of entries that expire, holding at most {@code cap} of them: a put at the bound first
 * drops every expired entry, then, if still full, the one that expires soonest. Not thread-safe:
 * {@link Grants} holds one lock over all its stores.
 */
final class BoundedStore<V extends BoundedStore.Expiring> {

  /** An entry's expiry, in epoch milliseconds. */
  interface Expiring {
    long expiresAt();
  }

  private final int cap;
  private final Map<String, V> entries = new LinkedHashMap<>();

  BoundedStore(int cap) {
    this.cap = cap;
  }

  void put(String key, V value, long now) {
    if (!entries.containsKey(key) && entries.size() >= cap) {
      entries.values().removeIf(v -> v.expiresAt() <= now);
      if (entries.size() >= cap) {
        String soonest = null;
        long at = Long.MAX_VALUE;
        for (Map.Entry<String, V> e : entries.entrySet()) {
          if (e.getValue().expiresAt() < at) {
            at = e.getValue().expiresAt();
            soonest = e.getKey();
          }
        }
        entries.remove(soonest);
      }
    }
    entries.put(key, value);
  }

  /** The live entry under {@code key}, or null (an expired one is dropped). */
  V live(String key, long now) {
    V v = entries.get(key);
    if (v != null && v.expiresAt() <= now) {
      entries.remove(key);
      return null;
    }
    return v;
  }

  V remove(String key) {
    return entries.remove(key);
  }

  /** Removes every entry {@code which} selects. */
  void removeAll(Predicate<V> which) {
    entries.values().removeIf(which);
  }

  /** Calls {@code action} with every entry that has not expired. */
  void forEachLive(long now, java.util.function.Consumer<V> action) {
    forEachLive(now, (key, v) -> action.accept(v));
  }

  /** Calls {@code action} with the key and value of every entry that has not expired. */
  void forEachLive(long now, java.util.function.BiConsumer<String, V> action) {
    for (Map.Entry<String, V> e : entries.entrySet()) {
      if (e.getValue().expiresAt() > now) {
        action.accept(e.getKey(), e.getValue());
      }
    }
  }

}
