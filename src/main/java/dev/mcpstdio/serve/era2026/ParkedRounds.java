package dev.mcpstdio.serve.era2026;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The MRTR rounds serve has asked a client and waits on (mcp-stdio.md 4.8): one entry per
 * transaction, the round it is at, and what the bridge keeps for it ({@code T}: the child's open
 * requests). It makes each round single-use: a retry {@link #peek peeks} to validate, then {@link
 * #consume consumes}, which succeeds once per round however many retries race.
 *
 * <p>Bounds: at most {@code capacity} transactions parked ({@link #DEFAULT_CAPACITY}); {@link
 * #park} refuses one more (the bridge then answers 503 and the child an error). Each entry lives
 * {@code parkFor} ({@link #DEFAULT_PARK}, half the backend timeout of 120 s) from when it was
 * parked; an expired entry is never peeked or consumed, and {@link #sweep} hands it back so the
 * caller can answer the child (the client did not return in time). Time comes from the injected
 * clock. Thread-safe.
 */
public final class ParkedRounds<T> {

  /** Default bound on parked transactions. */
  public static final int DEFAULT_CAPACITY = 256;

  /** Default life of a parked round (the inventory's 60 s). */
  public static final Duration DEFAULT_PARK = Duration.ofSeconds(60);

  private final int capacity;
  private final Duration parkFor;
  private final InstantSource clock;
  private final Map<String, Parked<T>> parked = new LinkedHashMap<>();

  public ParkedRounds(int capacity, Duration parkFor, InstantSource clock) {
    if (capacity < 1 || parkFor.isNegative() || parkFor.isZero()) {
      throw new IllegalArgumentException("capacity and parkFor must be positive");
    }
    this.capacity = capacity;
    this.parkFor = parkFor;
    this.clock = clock;
  }

  /**
   * One parked round.
   *
   * @param deadline when it expires
   */
  public record Parked<T>(String txn, int round, Instant deadline, T value) {}

  /**
   * Parks {@code value} as round {@code round} of {@code txn}: false when the registry is full, or
   * when {@code txn} already waits on a round (a transaction is at one round at a time).
   */
  public synchronized boolean park(String txn, int round, T value) {
    if (parked.size() >= capacity || parked.containsKey(txn)) {
      return false;
    }
    parked.put(txn, new Parked<>(txn, round, clock.instant().plus(parkFor), value));
    return true;
  }

  /** The round {@code txn} waits on, unless none or expired. Does not consume it. */
  public synchronized Optional<Parked<T>> peek(String txn) {
    Parked<T> p = parked.get(txn);
    return p == null || expired(p) ? Optional.empty() : Optional.of(p);
  }

  /**
   * Takes round {@code round} of {@code txn} out: its value the first time, empty when it is not
   * parked, at another round, already consumed or expired (an expired one stays for {@link
   * #sweep}).
   */
  public synchronized Optional<T> consume(String txn, int round) {
    Parked<T> p = parked.get(txn);
    if (p == null || p.round() != round || expired(p)) {
      return Optional.empty();
    }
    parked.remove(txn);
    return Optional.of(p.value());
  }

  /** Removes and returns the oldest parked round whose value passes {@code which}, expired or not. */
  public synchronized Optional<Parked<T>> takeOldest(java.util.function.Predicate<T> which) {
    for (Iterator<Parked<T>> it = parked.values().iterator(); it.hasNext(); ) {
      Parked<T> p = it.next();
      if (which.test(p.value())) {
        it.remove();
        return Optional.of(p);
      }
    }
    return Optional.empty();
  }

  /** Removes every expired round and returns them, oldest first, for the caller to answer. */
  public synchronized List<Parked<T>> sweep() {
    List<Parked<T>> gone = new ArrayList<>();
    for (Iterator<Parked<T>> it = parked.values().iterator(); it.hasNext(); ) {
      Parked<T> p = it.next();
      if (expired(p)) {
        gone.add(p);
        it.remove();
      }
    }
    return gone;
  }

  /** Removes everything (shutdown), for the caller to answer each child. */
  public synchronized List<Parked<T>> drain() {
    List<Parked<T>> all = new ArrayList<>(parked.values());
    parked.clear();
    return all;
  }

  /** Transactions parked, expired ones not yet swept included. */
  public synchronized int size() {
    return parked.size();
  }

  private boolean expired(Parked<T> p) {
    return !clock.instant().isBefore(p.deadline());
  }
}
