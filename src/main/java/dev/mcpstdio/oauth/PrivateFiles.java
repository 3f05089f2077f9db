package dev.mcpstdio.oauth;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Set;

/**
 * Files that hold secrets (the relay's token store, serve's authorization-server store): kept in
 * a folder only their owner can enter (0700), written owner-only (0600) and atomically (a
 * temporary file in the same folder, forced to disk, renamed into place, the folder forced), and
 * never read or written through a symbolic link.
 */
public final class PrivateFiles {

  private static final SecureRandom RANDOM = new SecureRandom();

  private PrivateFiles() {}

  /** The folder (and missing ancestors) created 0700; an existing one tightened to 0700 when {@code tighten}. */
  public static void folder(Path dir, boolean tighten) throws IOException {
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("refusing to keep secrets in a symbolic link: " + dir);
    }
    try {
      Files.createDirectories(dir, OwnerOnly.folder());
    } catch (FileAlreadyExistsException e) {
      throw new IOException(dir + " is not a folder");
    }
    PosixFileAttributeView view = Files.getFileAttributeView(dir, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (tighten && view != null && !view.readAttributes().permissions().equals(PosixFilePermissions.fromString("rwx------"))) {
      view.setPermissions(PosixFilePermissions.fromString("rwx------"));
    }
  }

  /** A file readable by others is tightened to 0600 (it was written by something else). */
  public static void tighten(Path file) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view != null && !view.readAttributes().permissions().equals(PosixFilePermissions.fromString("rw-------"))) {
      view.setPermissions(PosixFilePermissions.fromString("rw-------"));
    }
  }

  /**
   * The whole of {@code file}, at most {@code maxBytes} (a longer one is an {@link IOException}),
   * tightened to 0600 first; {@link java.nio.file.NoSuchFileException} when it is missing; refused
   * when it is a symbolic link.
   */
  public static byte[] read(Path file, long maxBytes) throws IOException {
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (in.size() > maxBytes) {
        throw new IOException("larger than " + (maxBytes >> 20) + " MiB");
      }
      tighten(file);
      ByteBuffer buffer = ByteBuffer.allocate((int) in.size());
      while (buffer.hasRemaining() && in.read(buffer) >= 0) {
        // read it whole
      }
      return java.util.Arrays.copyOf(buffer.array(), buffer.position());
    } catch (java.nio.file.NoSuchFileException e) {
      throw e;
    } catch (IOException e) {
      if (Files.isSymbolicLink(file)) {
        throw new IOException("refusing to read through a symbolic link");
      }
      throw e;
    }
  }

  /** Replaces {@code file} with {@code content}, atomically and owner-only; a link in its place is replaced, never followed. */
  public static void write(Path file, byte[] content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Path temp = dir.resolve("." + file.getFileName() + "." + HexFormat.of().formatHex(randomBytes()) + ".tmp");
    try {
      try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS), OwnerOnly.file())) {
        ByteBuffer b = ByteBuffer.wrap(content);
        while (b.hasRemaining()) {
          out.write(b);
        }
        out.force(true);
      }
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
      syncFolder(dir);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /**
   * Takes the lock of {@code lockFile} (created 0600, never through a link) without waiting;
   * null when another process holds it. The lock lasts until the returned lock is released or
   * the process ends.
   */
  public static java.nio.channels.FileLock lock(Path lockFile) throws IOException {
    FileChannel channel = FileChannel.open(lockFile, Set.of(StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        LinkOption.NOFOLLOW_LINKS), OwnerOnly.file());
    try {
      java.nio.channels.FileLock lock = channel.tryLock();
      if (lock == null) {
        channel.close();
      }
      return lock;
    } catch (java.nio.channels.OverlappingFileLockException e) { // this process holds it already
      channel.close();
      return null;
    } catch (IOException | RuntimeException e) {
      channel.close();
      throw e;
    }
  }

  /** Makes a rename durable; where a folder cannot be opened for that (Windows), the rename stands alone. */
  private static void syncFolder(Path dir) {
    try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
      d.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      // not supported here
    }
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return b;
  }
}
