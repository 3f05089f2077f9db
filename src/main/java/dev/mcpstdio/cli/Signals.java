package dev.mcpstdio.cli;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.function.Consumer;

/**
 * SIGTERM and SIGINT handling. A host stops its server with SIGTERM (or Ctrl-C in a terminal);
 * the relay then finishes cleanly and exits 0 instead of dying with 143 or 130.
 *
 * <p>The JDK's only signal API is {@code sun.misc.Signal} (module {@code jdk.unsupported}, open
 * to class-path code). It is reached reflectively so that its absence on some runtime degrades to
 * the JVM's default handling instead of a failure to start.
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
      Class<?> signalType = Class.forName("sun.misc.Signal");
      Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
      Method handle = signalType.getMethod("handle", signalType, handlerType);
      InvocationHandler onSignal =
          (proxy, method, arguments) -> {
            if (method.getName().equals("handle")) {
              first.run();
              String name = (String) signalType.getMethod("getName").invoke(arguments[0]);
              // a platform thread: virtual ones can all be waiting on blocked carriers at that moment
              Thread.ofPlatform().name("signal-" + name).start(() -> handler.accept("SIG" + name));
              return null;
            }
            return method.invoke(handler, arguments); // equals, hashCode, toString
          };
      Object proxy =
          Proxy.newProxyInstance(Signals.class.getClassLoader(), new Class<?>[] {handlerType}, onSignal);
      for (String name : new String[] {"TERM", "INT"}) {
        try {
          handle.invoke(null, signalType.getConstructor(String.class).newInstance(name), proxy);
        } catch (ReflectiveOperationException e) {
          // this platform has no such signal
        }
      }
      return true;
    } catch (ReflectiveOperationException | LinkageError e) {
      return false;
    }
  }
}
