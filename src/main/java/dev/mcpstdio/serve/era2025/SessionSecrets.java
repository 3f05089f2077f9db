package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.stdio.Redactor;
import java.util.HashSet;
import java.util.Set;

/**
 * The secrets of one session the gateway's log must never show (its reply channel's token, the
 * credentials handed off to its child): registered with the log's redactor while the session
 * lives, given back when it ends. Bounded: at most {@link #MAX} per session.
 */
final class SessionSecrets {

  /** Secrets one session may register, at most: its channel token and 32 handed-off credentials. */
  static final int MAX = 33;

  private final Redactor redactor;
  private final Set<String> secrets = new HashSet<>(); // guarded by this
  private boolean forgotten; // guarded by this

  SessionSecrets(Redactor redactor) {
    this.redactor = redactor;
  }

  /** Keeps {@code secret} out of the log; false (nothing kept) once forgotten, or when full. */
  synchronized boolean add(String secret) {
    if (forgotten || (!secrets.contains(secret) && secrets.size() >= MAX)) {
      return false;
    }
    if (secrets.add(secret)) {
      redactor.addSecret(secret);
    }
    return true;
  }

  /** The session ended: the log may forget them (unless someone else registered the same value). */
  synchronized void forget() {
    forgotten = true;
    secrets.forEach(redactor::removeSecret);
    secrets.clear();
  }
}
