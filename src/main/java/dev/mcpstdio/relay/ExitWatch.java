package dev.mcpstdio.relay;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Ends the process in bounded time once the relay starts to shut down, whatever state it is in:
 * if the orderly shutdown (in-flight work given its grace, open requests answered, the session
 * ended) has not finished within its deadline, the JVM is halted with exit code 1.
 *
 * <p>The watching thread is started before any work arrives ({@link #arm}) and, once started,
 * allocates nothing and loads no class: a relay whose heap is exhausted must still exit when stdin
 * closes or SIGTERM arrives. {@link #done} tells it that the orderly way finished.
 */
final class ExitWatch {

  /** What the orderly shutdown may take beyond its grace (the DELETE, answering the rest). */
  static final Duration MARGIN = Duration.ofSeconds(3);

  private final long deadlineNanos;
  private final CountDownLatch begun = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private final Runnable onDeadline;

  ExitWatch(Duration deadline) {
    this(deadline, null);
  }

  /** @param onDeadline what happens when the deadline passes; null halts the JVM (tests pass their own) */
  ExitWatch(Duration deadline, Runnable onDeadline) {
    this.deadlineNanos = deadline.toNanos();
    this.onDeadline = onDeadline;
  }

  /** Starts the watching thread; it waits, doing nothing, until {@link #begin}. */
  void arm() {
    Runtime runtime = Runtime.getRuntime(); // resolved now, not when the heap may be full
    Runnable action = onDeadline;
    Thread.ofPlatform().daemon().name("mcp-stdio-exit-watch").start(() -> {
      try {
        begun.await();
        if (!finished.await(deadlineNanos, TimeUnit.NANOSECONDS)) {
          if (action != null) {
            action.run();
          } else {
            runtime.halt(1);
          }
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  /** The shutdown began: the deadline runs from now. */
  void begin() {
    begun.countDown();
  }

  /** The shutdown finished in time. */
  void done() {
    finished.countDown();
  }
}
