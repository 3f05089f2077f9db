package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.process.Child;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A {@link Child} with no process behind it: it records what the session sends it, and exits when
 * a test says so. The test plays the child's stdout and stderr by calling the session's listener
 * methods itself.
 */
final class FakeChild implements Child {

  /** Lines taken by {@link #send} (while the child is alive), in order. */
  final List<String> sent = new CopyOnWriteArrayList<>();
  /** Lines taken by {@link #trySend} (while the child is alive), in order. */
  final List<String> triedSent = new CopyOnWriteArrayList<>();
  final CompletableFuture<Integer> exit = new CompletableFuture<>();
  volatile boolean closed;
  /** The pid it reports (a test may name a real process, for what reads one). */
  volatile long pid = 4711;

  @Override
  public long pid() {
    return pid;
  }

  @Override
  public boolean isAlive() {
    return !exit.isDone() && !closed;
  }

  @Override
  public CompletableFuture<Integer> exited() {
    return exit;
  }

  @Override
  public boolean send(byte[] json) {
    if (!isAlive()) {
      return false;
    }
    sent.add(new String(json, StandardCharsets.UTF_8));
    return true;
  }

  @Override
  public boolean trySend(byte[] json) {
    if (!isAlive()) {
      return false;
    }
    triedSent.add(new String(json, StandardCharsets.UTF_8));
    return true;
  }

  @Override
  public void close() {
    closed = true;
    exit.complete(0);
  }
}
