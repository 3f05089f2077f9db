package dev.mcpstdio.cli;

import java.math.BigDecimal;

/**
 * Runs, on a daemon thread of its own as serve starts, the one JDK static initializer on the path
 * of its first requests that takes tens of milliseconds: {@link BigDecimal}'s. Since JDK 25 it
 * computes 5^(2^16) (a table for {@code stripTrailingZeros}), 25-40 ms of interpreted big-number
 * squaring, and serve's 2026-era checks (numeric parameter headers, {@code ParamHeaders}) and
 * Jackson's parser base class, where serve still uses one, create BigDecimals. On a thread of its
 * own it runs beside the gateway's start-up instead of in a client's first request. A class being
 * initialized blocks only the threads that need it, which then wait no longer than they would
 * have taken themselves. The relay does not start it: its 2025-era path touches no BigDecimal
 * (the span helpers of {@code jsonrpc.Json} run on the gateway's own scanner), and a relay's CPU
 * from its first call is what its users feel (docs/performance.md, issue 15).
 */
final class SlowInitializers {

  private SlowInitializers() {}

  static void startInBackground() {
    Thread.ofPlatform().daemon().name("mcp-stdio-init").start(() -> BigDecimal.ONE.signum());
  }
}
