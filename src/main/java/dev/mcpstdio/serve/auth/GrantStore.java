package dev.mcpstdio.serve.auth;

import dev.mcpstdio.oauth.PrivateFiles;
import dev.mcpstdio.serve.http.RepeatedFailures;
import dev.mcpstdio.stdio.Log;
import java.io.IOException;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The embedded authorization server's state on disk ({@code --token-store FILE}), so that a
 * restart signs nobody out. The file holds clients, and codes and tokens only as their SHA-256
 * keys ({@link GrantState}): stolen, it lets nobody in.
 *
 * <p>At start-up ({@link #open}): the file must not be a symbolic link; its folder is created 0700
 * when missing; {@code FILE.lock} is locked for the process's life (a second gateway on the same
 * store is refused); the file is read and every record checked ({@link GrantStateCodec}), what was
 * dropped is reported; a file that is not a store of this version is reported, moved aside to
 * {@code FILE.unreadable-<ms>} (never overwritten: a newer version's store stays for it) and the
 * server starts empty; then the state is written back at once, so that a store that cannot be
 * written stops the start, not a later sign-in.
 *
 * <p>After that, every change ({@link Grants#onChange}) marks the state dirty and one writer thread
 * writes it (atomically, 0600, never through a link): changes that come while it writes are
 * coalesced into the next write, so a burst of sign-ins costs a few writes, not one each, and no
 * request waits for the disk. A write that fails is logged (one line, then counted at most every
 * 10 s) and the server goes on in memory. {@link #close} writes what is dirty (waiting 10 s at most)
 * and releases the lock once the writer has ended.
 * What changed in the last moment before a crash (a write not yet done) is lost: at worst a code
 * or a rotation, and the client signs in again.
 */
public final class GrantStore implements AutoCloseable {

  /** A store file larger than this is not read (the stores' bounds make a few MiB at most). */
  static final long MAX_BYTES = 64L << 20;

  private final Path file;
  private final Grants grants;
  private final Log log;
  private final FileLock lock;
  private final RepeatedFailures failures;
  private final Thread writer;
  private boolean dirty; // guarded by this
  private boolean closed; // guarded by this

  private GrantStore(Path file, Grants grants, Log log, FileLock lock) {
    this.file = file;
    this.grants = grants;
    this.log = log;
    this.lock = lock;
    this.failures = new RepeatedFailures(log::warn, log, () -> System.nanoTime() / 1_000_000);
    this.writer = Thread.ofPlatform().daemon().name("token-store").unstarted(this::writeLoop);
  }

  /** Opens the store at {@code file} for {@code grants}: locked, read, checked, written back. */
  public static GrantStore open(Path file, Grants grants, Log log) throws IOException {
    Path absolute = file.toAbsolutePath();
    if (Files.isSymbolicLink(absolute)) {
      throw new IOException("the token store " + absolute + " is a symbolic link; refusing to read or write through it");
    }
    if (Files.exists(absolute, LinkOption.NOFOLLOW_LINKS) && !Files.isRegularFile(absolute, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("the token store " + absolute + " is not a regular file");
    }
    PrivateFiles.folder(absolute.getParent(), false);
    java.nio.file.attribute.PosixFileAttributeView folder = Files.getFileAttributeView(absolute.getParent(),
        java.nio.file.attribute.PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (folder != null && folder.readAttributes().permissions().stream().anyMatch(p -> p.name().startsWith("GROUP") || p.name().startsWith("OTHERS"))) {
      log.warn("the token store's folder " + absolute.getParent() + " is open to its group or others ("
          + java.nio.file.attribute.PosixFilePermissions.toString(folder.readAttributes().permissions()) + "); 0700 is safer");
    }
    Path lockFile = absolute.resolveSibling(absolute.getFileName() + ".lock");
    FileLock lock = PrivateFiles.lock(lockFile);
    if (lock == null) {
      throw new IOException("the token store " + absolute + " is in use by another process (" + lockFile + " is locked)");
    }
    GrantStore store = new GrantStore(absolute, grants, log, lock);
    try {
      store.load();
      PrivateFiles.write(absolute, GrantStateCodec.encode(grants.state())); // fail now, not at the first sign-in
    } catch (IOException | RuntimeException e) {
      store.release();
      throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
    }
    grants.onChange(store::changed);
    store.writer.start();
    return store;
  }

  private void load() throws IOException {
    byte[] bytes;
    try {
      bytes = PrivateFiles.read(file, MAX_BYTES);
    } catch (NoSuchFileException e) {
      log.info("token store " + file + ": new");
      return;
    } catch (IOException e) {
      if (e.getMessage() == null || !e.getMessage().startsWith("larger than")) {
        throw new IOException("the token store " + file + " cannot be read: " + e.getMessage(), e);
      }
      setAside(e.getMessage());
      return;
    }
    GrantStateCodec.Decoded decoded;
    try {
      decoded = GrantStateCodec.decode(bytes, System.currentTimeMillis(), grants.allowedRedirects());
    } catch (GrantStateCodec.Unreadable e) {
      setAside(e.getMessage());
      return;
    }
    grants.restore(decoded.state());
    GrantState s = decoded.state();
    log.info("token store " + file + ": " + s.clients().size() + " clients, " + s.families().size() + " grants, "
        + s.accessTokens().size() + " access tokens, " + s.codes().size() + " codes"
        + (decoded.expired() == 0 ? "" : "; " + decoded.expired() + " expired dropped")
        + (decoded.malformed() == 0 ? "" : "; " + decoded.malformed() + " malformed records dropped")
        + (decoded.orphaned() == 0 ? "" : "; " + decoded.orphaned() + " records of clients or grants that are gone dropped"));
    if (!decoded.droppedClients().isEmpty()) {
      log.warn("token store: dropped " + decoded.droppedClients().size() + " client(s) whose redirect URIs this server no longer"
          + " allows, with their grants: " + String.join(", ", decoded.droppedClients().stream().limit(20).toList()));
    }
  }

  /** Moves an unreadable store aside (never lost, never overwritten) and says so; the server starts empty. */
  private void setAside(String why) throws IOException {
    Path aside = file.resolveSibling(file.getFileName() + ".unreadable-" + System.currentTimeMillis());
    Files.move(file, aside, StandardCopyOption.ATOMIC_MOVE);
    log.warn("the token store " + file + " is not a store this version can read (" + why + "); moved it to " + aside
        + " and starting with no clients or grants");
  }

  private synchronized void changed() {
    dirty = true;
    notifyAll();
  }

  private void writeLoop() {
    while (true) {
      synchronized (this) {
        while (!dirty && !closed) {
          try {
            wait();
          } catch (InterruptedException e) {
            return;
          }
        }
        if (!dirty) {
          return; // closed, nothing left to write
        }
        dirty = false;
      }
      writeNow();
    }
  }

  private void writeNow() {
    try {
      PrivateFiles.write(file, GrantStateCodec.encode(grants.state()));
      failures.succeeded("token store " + file + " written again");
    } catch (IOException | RuntimeException e) {
      failures.failed("token store " + file + " not written (going on in memory): " + e.getMessage());
    }
  }

  /** Writes what is not written yet, stops the writer and releases the lock. */
  @Override
  public void close() throws InterruptedException {
    synchronized (this) {
      closed = true;
      notifyAll();
    }
    writer.join(10_000);
    if (writer.isAlive()) { // a write that hangs (a dead disk): the lock stays ours until the process ends
      log.warn("token store " + file + ": the last write has not finished; the lock is kept until the process exits");
      return;
    }
    release();
  }

  private void release() {
    try {
      lock.release();
      lock.channel().close();
    } catch (IOException e) {
      log.debug("token store lock: " + e.getMessage());
    }
  }
}
