package dev.mcpstdio.serve.era2026;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;

/** A clock a test moves by hand. */
final class MutableClock implements InstantSource {

  private Instant now = Instant.parse("2026-07-28T12:00:00Z");

  @Override
  public synchronized Instant instant() {
    return now;
  }

  synchronized void advance(Duration d) {
    now = now.plus(d);
  }
}
