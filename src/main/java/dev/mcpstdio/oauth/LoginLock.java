package dev.mcpstdio.oauth;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.Semaphore;

/**
 * One login per server across processes: hosts start two to four copies of the same server at
 * once, and only one of them may run the interactive flow or spend a rotating refresh token. The
 * holder of a server's lock logs in (or refreshes) and stores the result; the others wait for the
 * lock, then find the stored login and use it.
 *
 * <p>The lock is an OS file lock ({@code fcntl} on Linux and macOS, {@code LockFileEx} on Windows,
 * released by the OS if the holder dies) on {@code <store folder>/locks/<hash of the server key>.lock},
 * taken after an in-process permit for the same server, since one process cannot take one file lock
 * twice. It is not reentrant, and any thread may close it. Nothing is written into the file: PKCE
 * state and tokens never touch it.
 */
public final class LoginLock implements AutoCloseable {

  /** How often a waiter tries the lock again. */
  static final Duration RETRY = Duration.ofMillis(50);

  private static final Map<String, Semaphore> IN_PROCESS = new ConcurrentHashMap<>();

  private final Semaphore local; // not owned by a thread: a login may be finished by another
  private final FileChannel channel;
  private final FileLock lock;

  private LoginLock(Semaphore local, FileChannel channel, FileLock lock) {
    this.local = local;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock for {@code serverUrl}'s login, waiting up to {@code timeout} for another process
   * (or thread) that holds it.
   *
   * @throws IOException when it is still held at the timeout, or the lock file cannot be used
   */
  public static LoginLock acquire(Path storeFolder, String serverUrl, Duration timeout)
      throws IOException, InterruptedException {
    return acquire(storeFolder, serverUrl, timeout, () -> { });
  }

  /** The same; {@code blocked} runs once if another process holds the lock (a seam for tests). */
  static LoginLock acquire(Path storeFolder, String serverUrl, Duration timeout, Runnable blocked)
      throws IOException, InterruptedException {
    String key = ServerKey.of(serverUrl);
    Path folder = storeFolder.resolve("locks");
    Files.createDirectories(folder, OwnerOnly.folder());
    Path file = folder.resolve(hash(key) + ".lock");
    long deadline = System.nanoTime() + timeout.toNanos();
    Semaphore local = IN_PROCESS.computeIfAbsent(file.toAbsolutePath().toString(), k -> new Semaphore(1));
    if (!local.tryAcquire(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new IOException("another login to " + key + " in this process is still running after " + timeout.toSeconds() + " s");
    }
    FileChannel channel = null;
    try {
      channel = FileChannel.open(file, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS),
          OwnerOnly.file());
      boolean toldBlocked = false;
      while (true) {
        FileLock lock;
        try {
          lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          lock = null; // cannot happen behind the in-process lock; treated as held
        }
        if (lock != null) {
          return new LoginLock(local, channel, lock);
        }
        if (!toldBlocked) {
          toldBlocked = true;
          blocked.run();
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new IOException("another process is still logging in to " + key + " after " + timeout.toSeconds() + " s");
        }
        Thread.sleep(Math.min(RETRY.toMillis(), Math.max(1, left / 1_000_000)));
      }
    } catch (IOException | InterruptedException | RuntimeException e) {
      if (channel != null) {
        channel.close();
      }
      local.release();
      throw e;
    }
  }

  @Override
  public void close() throws IOException {
    try (channel) { // closing the channel releases the lock even when release() fails
      lock.release();
    } finally {
      local.release();
    }
  }

  /** The lock file's name for a server key: fixed length, safe on every file system. */
  static String hash(String key) {
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(digest, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e); // every JDK has SHA-256
    }
  }
}
