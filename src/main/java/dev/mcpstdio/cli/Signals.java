package dev.mcpstdio.cli;

import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handling. A host stops its server with SIGTERM (or Ctrl-C in a terminal);
 * the relay then finishes cleanly and exits 0 instead of dying with 143 or 130.
 *
 * <p>The JDK's only signal API is {@code sun.misc.Signal} (module {@code jdk.unsupported}, open
 * to class-path code). Only the nested {@link Handler} names it, so that a runtime without it
 * fails to link that class alone, which degrades to the JVM's default handling instead of a
 * failure to start. (It was reached through a reflective {@code Proxy} before: generating the
 * proxy class at every start cost the JVM's class-file library, some 130 classes, on the relay's
 * start-up path; see docs/performance.md.)
 */
final class Signals {

  private Signals() {}

  /**
   * Runs {@code handler} (with the signal's name) on its own thread at SIGTERM or SIGINT.
   *
   * @return false when signals cannot be intercepted on this runtime
   */
  static boolean onTermination(Consumer<String> handler) {
    return onTermination(() -> {}, handler);
  }

  /**
   * As {@link #onTermination(Consumer)}, with {@code first} run before anything else at the
   * signal, on the JVM's signal thread: for what must happen even when nothing can be allocated
   * (built before the signal, it allocates nothing itself).
   */
  static boolean onTermination(Runnable first, Consumer<String> handler) {
    try {
      Handler.install(first, handler);
      return true;
    } catch (LinkageError e) {
      return false;
    }
  }

  @SuppressWarnings("sunapi") // no other API handles signals
  private static final class Handler implements sun.misc.SignalHandler {
    private final Runnable first;
    private final Consumer<String> handler;

    private Handler(Runnable first, Consumer<String> handler) {
      this.first = first;
      this.handler = handler;
    }

    static void install(Runnable first, Consumer<String> handler) {
      Handler h = new Handler(first, handler);
      for (String name : new String[] {"TERM", "INT"}) {
        try {
          sun.misc.Signal.handle(new sun.misc.Signal(name), h);
        } catch (IllegalArgumentException e) {
          // this platform has no such signal, or the JVM keeps it for itself
        }
      }
    }

    @Override
    public void handle(sun.misc.Signal signal) {
      first.run();
      String name = signal.getName();
      // a platform thread: virtual ones can all be waiting on blocked carriers at that moment
      Thread.ofPlatform().name("signal-" + name).start(() -> handler.accept("SIG" + name));
    }
  }
}
