package dev.mcpstdio.testing;

import java.util.concurrent.Executor;

/** Executors for tests that block. */
public final class Threads {

  /**
   * A virtual thread per task. Tests block (HTTP calls, child processes); on the common pool, one
   * worker on a 2-core machine, a blocked task from one test class would hold up another's.
   */
  public static final Executor VIRTUAL = task -> Thread.ofVirtual().start(task);

  private Threads() {}
}
