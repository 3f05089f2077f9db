package dev.mcpstdio.cli;

import java.math.BigDecimal;

/**
 * Runs, on a daemon thread of its own at start, the one JDK static initializer on the path of a
 * first message that takes tens of milliseconds: {@link BigDecimal}'s. Since JDK 25 it computes
 * 5^(2^16) (a table for {@code stripTrailingZeros}), 25-40 ms of interpreted big-number squaring,
 * and Jackson's parser base class creates BigDecimal constants in its own initializer, so the first
 * message the gateway parses (a host's {@code initialize}) waited for it. On a thread of its own it
 * runs beside the JVM's and the gateway's start-up instead (docs/performance.md, issue 15). A
 * class being initialized blocks only the threads that need it, which then wait no longer than
 * they would have taken themselves.
 */
final class SlowInitializers {

  private SlowInitializers() {}

  static void startInBackground() {
    Thread.ofPlatform().daemon().name("mcp-stdio-init").start(() -> BigDecimal.ONE.signum());
  }
}
