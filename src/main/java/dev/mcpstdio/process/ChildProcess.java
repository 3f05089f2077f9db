package dev.mcpstdio.process;

import dev.mcpstdio.stdio.Log;
import dev.mcpstdio.wire.LineReader;
import dev.mcpstdio.wire.Ndjson;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;

/**
 * One stdio child process, owned from spawn to reaping.
 *
 * <p>The child is started from an argv list, never through a shell, as the leader of a process
 * group of its own where the platform allows ({@link ProcessGroups}), watched by the gateway's
 * {@link Watchdog} so that the group ends with the gateway however the gateway ends. Its stdout is
 * read line by line (bounded by the maximum message size) and every line handed to the
 * {@link Listener}; its stderr is read line by line and logged as the child's output
 * ({@link Log#output}: marked, so it can never pass for a gateway line), within a budget of bytes
 * per second ({@link StderrLimit}, kept by its {@link ChildLog}): a chatty child never blocks on a
 * full pipe, and a flooding one costs the log a bounded rate and one line per
 * {@link ChildLog#REPORT_INTERVAL} saying how much was dropped. Lines for its stdin go through a bounded queue to one writer thread: a child
 * that stops reading fills the queue and further sends are refused at once, rather than blocking
 * whoever sends.
 *
 * <p>The three pumps are platform threads: a blocking pipe read or write holds its carrier, and
 * a few hundred idle children would otherwise starve every virtual thread in the gateway.
 *
 * <p>{@link #close()} runs the shutdown ladder: close stdin, wait, SIGTERM to the whole process
 * tree (the child's process group, every process carrying the child's cookie in its environment,
 * {@link ProcessTree}, and whatever {@link ProcessHandle#descendants()} shows besides), wait,
 * SIGKILL to whatever is left, and returns once the child has been reaped and none of its tree is
 * left.
 */
public final class ChildProcess implements Child {

  /** What to do with what the child says. Called on the child's stdout pump thread. */
  public interface Listener {
    /** One line of the child's stdout, without its terminator. */
    void onLine(byte[] line);

    /**
     * A stdout line longer than the bound; it was skipped.
     *
     * @param head its first bytes (at most {@link LineReader#HEAD_BYTES}), enough to read an id
     *     written before the bulk of the message
     */
    default void onOversizedLine(long length, byte[] head) {}

    /** The child's stdout ended: it exited or closed it. Called once. */
    void onStdoutClosed();

    /**
     * One line of the child's stderr (at most {@link #STDERR_LINE_BYTES}), before it is logged.
     * Called on the stderr pump for every line, also past the stderr budget (a structured callback
     * is never dropped); must not block.
     *
     * @return true when the line was consumed (a structured callback) and must not be logged
     */
    default boolean onStderrLine(byte[] line) {
      return false;
    }
  }

  /** The waits of the shutdown ladder. */
  public record Ladder(Duration afterStdinClosed, Duration afterTerm) {
    public static final Ladder DEFAULT = new Ladder(Duration.ofSeconds(2), Duration.ofSeconds(2));
  }

  /**
   * How much of a child's stderr reaches the log: {@code bytesPerSecond} on average, with bursts of
   * up to {@link #burstBytes()}; the rest is read (the child never blocks) and dropped, and counted.
   */
  public record StderrLimit(long bytesPerSecond) {
    /** 16 KiB/s per child: a chatty server's lines, not a flood (100 sessions: 1.6 MiB/s at most). */
    public static final StderrLimit DEFAULT = new StderrLimit(16 * 1024);

    /** A burst may spend this many seconds' worth at once (a start-up banner, a stack trace). */
    public static final int BURST_SECONDS = 16;

    public StderrLimit {
      if (bytesPerSecond < 1) {
        throw new IllegalArgumentException("a stderr limit must be at least 1 byte per second");
      }
    }

    public long burstBytes() {
      return Math.multiplyExact(bytesPerSecond, BURST_SECONDS);
    }
  }

  /**
   * Stderr lines longer than this are skipped past their head (logged truncated); it is also the
   * largest structured callback line a listener can receive (64 KiB, see docs/callbacks.md).
   */
  public static final int STDERR_LINE_BYTES = 64 * 1024;

  /** How much of a stderr line is logged. */
  static final int LOGGED_LINE_BYTES = 8 * 1024;

  /** Lines waiting for the child's stdin at most; past it {@link #send} waits, then refuses. */
  static final int STDIN_QUEUE = 1024;

  /** Bytes waiting for the child's stdin at most (a single larger line still goes, alone). */
  static final int STDIN_QUEUE_BYTES = 16 << 20;

  /** How long {@link #send} waits for room in a full stdin queue. */
  static final Duration SEND_WAIT = Duration.ofSeconds(2);

  /** Stack for the pump threads: they only read, scan and hand over lines. */
  private static final long PUMP_STACK = 256 * 1024;

  /** Put on the stdin queue to make the writer close the child's stdin. */
  private static final byte[] EOF = new byte[0];

  private final Process process;
  private final Optional<Instant> childStart; // to tell the child from a process that reused its pid
  /** The child's process group, which it leads; -1 when the platform gives it none. */
  private final long group;
  /** The child's {@link ProcessTree} cookie; null where no {@code /proc} shows environments. */
  private final String cookie;
  private final OutputStream stdin;
  private final LinkedBlockingQueue<byte[]> outbox = new LinkedBlockingQueue<>(STDIN_QUEUE);
  private final Semaphore room = new Semaphore(STDIN_QUEUE_BYTES); // bytes the queue may still take
  private final Log log;
  private final Ladder ladder;
  private final CompletableFuture<Void> closed = new CompletableFuture<>();
  private volatile boolean stdinOpen = true;
  private volatile boolean closing;

  private ChildProcess(Process process, long group, String cookie, Log log, Ladder ladder) {
    this.process = process;
    this.childStart = process.toHandle().info().startInstant();
    this.group = group;
    this.cookie = cookie;
    this.stdin = process.getOutputStream();
    this.log = log;
    this.ladder = ladder;
  }

  /** Starts {@code spec} with the default stderr limit; see the full form. */
  public static ChildProcess start(ChildSpec spec, long maxLineBytes, Log log, Ladder ladder, Listener listener)
      throws IOException {
    return start(spec, maxLineBytes, log, ladder, StderrLimit.DEFAULT, listener);
  }

  /** Starts {@code spec} with a log budget of its own of {@code stderrLimit}; see the full form. */
  public static ChildProcess start(ChildSpec spec, long maxLineBytes, Log log, Ladder ladder, StderrLimit stderrLimit,
      Listener listener) throws IOException {
    return start(spec, maxLineBytes, new ChildLog(log, stderrLimit), ladder, listener);
  }

  /**
   * Starts {@code spec} and its pumps.
   *
   * @param maxLineBytes the longest stdout line delivered; longer ones are skipped and reported
   * @param childLog where the gateway's lines about this child, and the child's stderr, go, and the
   *     budget the child's stderr is logged within (shared with the gateway's lines about what it
   *     does at will, such as callbacks)
   * @throws IOException when the program cannot be started (not found, not executable)
   */
  public static ChildProcess start(ChildSpec spec, long maxLineBytes, ChildLog childLog, Ladder ladder,
      Listener listener) throws IOException {
    Log log = childLog.log();
    boolean grouped = ProcessGroups.available();
    ProcessBuilder builder = new ProcessBuilder(grouped
        ? ProcessGroups.leaderArgv(spec.argv(), spec.workingDirectory()) : spec.argv());
    builder.environment().keySet().removeAll(spec.removedEnv());
    builder.environment().putAll(spec.extraEnv());
    String cookie = ProcessTree.available() ? ProcessTree.newCookie() : null;
    if (cookie != null) {
      builder.environment().put(ProcessTree.VARIABLE, cookie); // last: neither the spec nor an outer gateway's wins
    }
    if (spec.workingDirectory() != null) {
      builder.directory(spec.workingDirectory().toFile());
    }
    Process process = builder.start();
    if (grouped && !Watchdog.get().watch(process.pid())) {
      log.warn("cannot start the process watchdog: child " + process.pid()
          + " and its descendants may outlive a gateway that is killed");
    }
    ChildProcess child = new ChildProcess(process, grouped ? process.pid() : -1, cookie, log, ladder);
    childLog.name("child " + process.pid());
    child.pump("stdout", () -> child.readStdout(maxLineBytes, listener));
    child.pump("stderr", () -> child.readStderr(listener, childLog));
    child.pump("stdin", child::writeStdin);
    return child;
  }

  private void pump(String stream, Runnable body) {
    Thread.ofPlatform().daemon().stackSize(PUMP_STACK).name("child-" + process.pid() + "-" + stream).start(body);
  }

  @Override
  public long pid() {
    return process.pid();
  }

  @Override
  public boolean isAlive() {
    return process.isAlive();
  }

  @Override
  public CompletableFuture<Integer> exited() {
    return process.onExit().thenApply(Process::exitValue);
  }

  /**
   * Queues one message for the child's stdin, as one line, waiting at most {@link #SEND_WAIT} for
   * room when the child is slow to read.
   *
   * @return false when stdin is closed, the child stopped reading (the queue stayed full), or an
   *     earlier write failed (the child is gone or going)
   */
  @Override
  public boolean send(byte[] json) {
    if (!stdinOpen) {
      return false;
    }
    byte[] line = Ndjson.frame(json);
    long deadline = System.nanoTime() + SEND_WAIT.toNanos();
    try {
      if (!room.tryAcquire(cost(line), SEND_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
        return false;
      }
      if (!outbox.offer(line, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
        room.release(cost(line));
        return false;
      }
      return stdinOpen;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /** Like {@link #send} but never waits: for messages that must not hold up their sender. */
  @Override
  public boolean trySend(byte[] json) {
    if (!stdinOpen) {
      return false;
    }
    byte[] line = Ndjson.frame(json);
    if (!room.tryAcquire(cost(line))) {
      return false;
    }
    if (!outbox.offer(line)) {
      room.release(cost(line));
      return false;
    }
    return true;
  }

  private static int cost(byte[] line) {
    return Math.min(line.length, STDIN_QUEUE_BYTES);
  }

  private void writeStdin() {
    try {
      while (true) {
        byte[] line = outbox.take();
        if (line == EOF) {
          break;
        }
        stdin.write(line);
        room.release(cost(line));
        if (outbox.isEmpty()) {
          stdin.flush(); // a burst of lines leaves in few writes
        }
      }
    } catch (IOException | InterruptedException e) {
      // the child closed its stdin or exited: nothing more can reach it
    } finally {
      stdinOpen = false;
      discardQueued();
      try {
        stdin.close();
      } catch (IOException e) {
        // already gone
      }
    }
  }

  /** Empties the stdin queue, giving its bytes back. */
  private void discardQueued() {
    List<byte[]> dropped = new ArrayList<>();
    outbox.drainTo(dropped);
    for (byte[] line : dropped) {
      if (line != EOF) {
        room.release(cost(line));
      }
    }
  }

  private void readStdout(long maxLineBytes, Listener listener) {
    try (InputStream out = process.getInputStream()) {
      LineReader reader = new LineReader(out, maxLineBytes);
      for (LineReader.Line line; (line = reader.next()) != null; ) {
        switch (line) {
          case LineReader.Line.Text text -> {
            if (text.bytes().length > 0) {
              deliver(() -> listener.onLine(text.bytes()));
            }
          }
          case LineReader.Line.Oversized big -> deliver(() -> listener.onOversizedLine(big.length(), big.head()));
        }
      }
    } catch (IOException e) {
      if (!closing) {
        log.debug("child stdout: " + e.getMessage());
      }
    } finally {
      listener.onStdoutClosed();
    }
  }

  /** A listener that fails on one line must not stop the pump: the child would block on a full pipe. */
  private void deliver(Runnable delivery) {
    try {
      delivery.run();
    } catch (RuntimeException e) {
      log.error("handling a line from the child failed: " + e);
    }
  }

  /**
   * Logs the child's stderr, one marked line per line, within {@code budget}. A line the listener
   * consumes (a structured callback) is charged but never dropped; a line past the budget is read
   * and counted, and the count is logged {@link ChildLog#REPORT_INTERVAL} after dropping began,
   * and when stderr closes.
   */
  private void readStderr(Listener listener, ChildLog budget) {
    String source = "child " + process.pid();
    try (InputStream err = process.getErrorStream()) {
      LineReader reader = new LineReader(err, STDERR_LINE_BYTES);
      for (LineReader.Line line; (line = reader.next()) != null; ) {
        switch (line) {
          case LineReader.Line.Text text -> {
            boolean consumed = false;
            try {
              consumed = listener.onStderrLine(text.bytes());
            } catch (RuntimeException e) {
              log.error("handling a stderr line from the child failed: " + e);
            }
            int shown = Math.min(text.bytes().length, LOGGED_LINE_BYTES);
            if (consumed) {
              budget.charge(shown + 1L);
            } else if (budget.admit(shown + 1L, text.bytes().length + 1L)) {
              log.output(source, shown == text.bytes().length ? decode(text.bytes(), shown)
                  : decode(text.bytes(), shown) + " [... " + text.bytes().length + " bytes in all]");
            }
          }
          case LineReader.Line.Oversized big -> {
            int shown = Math.min(big.head().length, LOGGED_LINE_BYTES);
            if (budget.admit(shown + 1L, big.length() + 1)) {
              log.output(source, decode(big.head(), shown) + " [... " + big.length() + " bytes in all]");
            }
          }
        }
      }
    } catch (IOException e) {
      // the child closed stderr or exited: nothing more to log
    } finally {
      budget.flush();
    }
  }

  /** Text for the log: invalid UTF-8 replaced, control characters (ESC above all) made visible. */
  static String decode(byte[] bytes, int length) {
    return Log.visible(new String(bytes, 0, length, StandardCharsets.UTF_8));
  }

  /**
   * Ends the child: close stdin, wait, SIGTERM the process tree, wait, SIGKILL what is left.
   * Returns once the child is reaped and nothing of its tree is seen alive. Safe to call more than
   * once and from several threads; the later calls wait for the first.
   *
   * <p>The tree is the child's process group (which keeps double-forked descendants that have
   * left the child's line of descent), every process that carries the child's cookie (which keeps
   * descendants that left the group too, by setsid(2) or setpgid(2): {@link ProcessTree}), and
   * whatever {@link ProcessHandle#descendants()} shows (where neither is available). A group is
   * signalled as a whole, through the {@link Watchdog}, and each member seen is signalled too. The
   * SIGKILL step ends with sweeps of {@code /proc} until none is left (bounded by the ladder's
   * second wait), since a member may fork between a scan and its signal.
   */
  @Override
  public void close() {
    synchronized (this) {
      if (closing) {
        closed.join();
        return;
      }
      closing = true;
    }
    try {
      // Taken first: once the child exits, its descendants are re-parented and out of sight.
      List<ProcessHandle> tree = tree();
      closeStdin();
      if (await(process, ladder.afterStdinClosed()) && tree.stream().noneMatch(ProcessHandle::isAlive)
          && members().isEmpty()) {
        return;
      }
      tree.addAll(tree()); // anything spawned meanwhile, while the child still lives
      tree.addAll(members());
      log.info("child " + process.pid() + (process.isAlive() ? "" : "'s descendants") + " still running "
          + ladder.afterStdinClosed().toMillis() + " ms after stdin closed; sending SIGTERM");
      signalGroup(false);
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroy);
      if (awaitAll(tree, ladder.afterTerm()) && members().isEmpty()) {
        return;
      }
      log.warn("child " + process.pid() + " (or a descendant) ignored SIGTERM for " + ladder.afterTerm().toMillis()
          + " ms; sending SIGKILL");
      tree.addAll(tree());
      tree.addAll(members());
      signalGroup(true);
      tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
      if (!process.waitFor(ladder.afterTerm().toMillis(), TimeUnit.MILLISECONDS)) {
        log.error("child " + process.pid() + " survived SIGKILL (stuck in the kernel?); giving up on it");
      }
      awaitAll(tree, ladder.afterTerm()); // SIGKILL cannot be ignored: only the kernel can delay it
      if (!sweep(ladder.afterTerm())) {
        log.error("child " + process.pid() + "'s descendants still appear after SIGKILL; giving up on them");
      }
    } catch (InterruptedException e) {
      signalGroup(true);
      process.descendants().forEach(ProcessHandle::destroyForcibly);
      members().forEach(ProcessHandle::destroyForcibly);
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      if (group > 0) {
        Watchdog.get().forget(group);
      }
      closed.complete(null);
    }
  }

  /**
   * The live carriers of the child's cookie, and the live members of its process group while that
   * group is still the child's ({@link #groupIsOurs}).
   */
  private List<ProcessHandle> members() {
    if (group <= 0 && cookie == null) {
      return List.of();
    }
    ProcessTree.Scan scan = ProcessTree.scan(group, cookie);
    return groupIsOurs() ? scan.all() : scan.carriers();
  }

  /**
   * Whether the group id still names the child's group. The kernel hands out no pid number while a
   * process still uses it as its group id, so while a member of the child's group lives, no other
   * process can have that pid. Once the child is reaped and its group emptied, the number may go
   * to a new process, which may lead a group of its own with it (pid_max is 32768 on many systems,
   * and a busy machine wraps it in minutes): then a live process has that pid and is not the child.
   * So: the child's group while the child lives, or while no process has its pid, or the one that
   * has it is the child itself (the same start time: exited, not yet reaped).
   */
  private boolean groupIsOurs() {
    if (group <= 0 || process.isAlive()) {
      return group > 0;
    }
    Optional<ProcessHandle> holder = ProcessHandle.of(group);
    return holder.isEmpty() || holder.get().info().startInstant().equals(childStart);
  }

  /**
   * SIGKILL to every member still seen, scanning again until a scan finds none (a member may have
   * forked after the last scan) or {@code wait} has passed.
   *
   * @return true when the last scan found none
   */
  private boolean sweep(Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    for (List<ProcessHandle> left; !(left = members()).isEmpty(); ) {
      left.forEach(ProcessHandle::destroyForcibly);
      long remaining = deadline - System.nanoTime();
      if (remaining <= 0 || !awaitAll(left, Duration.ofNanos(remaining))) {
        return members().isEmpty();
      }
    }
    return true;
  }

  /** SIGTERM, or SIGKILL with {@code kill}, to the child's whole process group at once, while it is the child's ({@link #groupIsOurs}). */
  private void signalGroup(boolean kill) {
    if (groupIsOurs()) {
      Watchdog.get().signal(group, kill);
    }
  }

  /** Waits until every process in {@code tree} has ended, at most {@code wait}. */
  private static boolean awaitAll(List<ProcessHandle> tree, Duration wait) throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    for (ProcessHandle p : tree) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        return tree.stream().noneMatch(ProcessHandle::isAlive);
      }
      try {
        p.onExit().get(left, TimeUnit.NANOSECONDS);
      } catch (java.util.concurrent.TimeoutException e) {
        return false;
      } catch (java.util.concurrent.ExecutionException e) {
        // cannot watch it; the final check below decides
      }
    }
    return tree.stream().noneMatch(ProcessHandle::isAlive);
  }

  /**
   * Closes the child's stdin once the lines already queued are written: the polite way to ask a
   * stdio server to finish. Never blocks; a child that does not read keeps its stdin until the
   * ladder's signals end it.
   */
  public void closeStdin() {
    stdinOpen = false;
    if (!outbox.offer(EOF)) {
      discardQueued(); // a child that stopped reading will not get these anyway
      outbox.offer(EOF);
    }
  }

  /** The child and its descendants, descendants first (a parent may respawn a killed child); mutable. */
  private List<ProcessHandle> tree() {
    List<ProcessHandle> all = new ArrayList<>(process.descendants().toList());
    all.add(process.toHandle());
    return all;
  }

  private static boolean await(Process process, Duration wait) throws InterruptedException {
    return process.waitFor(wait.toMillis(), TimeUnit.MILLISECONDS);
  }
}
