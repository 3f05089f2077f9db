package dev.mcpstdio.host;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;

/**
 * Folder operations on a tree a child process can change while the host works in it (a session's
 * workspace), safe against a folder being swapped for a symbolic link half-way: each step opens or
 * uses the next entry relative to the folder already open ({@code openat} with {@code O_NOFOLLOW}, through
 * {@link SecureDirectoryStream}), so checking a name and using it cannot be told apart by a race.
 * A link met on the way is refused (when writing) or removed as a link (when deleting); what it
 * points to is never touched.
 *
 * <p>Where the platform offers no secure directory streams, the same operations fall back to
 * checking each path for links first, which is still right unless a concurrent process races it.
 */
public final class LinkSafeFolders {

  private LinkSafeFolders() {}

  /**
   * Opens {@code base} (not itself checked: the caller's trusted folder), then each of
   * {@code existing} below it, then each of {@code created} below those, creating missing ones
   * 0700. Null where the platform has no secure directory streams. The caller closes the returned
   * stream; the ones on the way are closed here.
   *
   * <p>A missing folder is made by path ({@code mkdir} never follows a link in its last place; a
   * folder swapped for a link above it can at most get an empty 0700 folder where the link points,
   * which the relative open then refuses to use).
   *
   * @throws NoSuchFileException when one of {@code existing} is missing
   * @throws IOException when a name on the way is a link or not a folder
   */
  public static SecureDirectoryStream<Path> open(Path base, List<String> existing, List<String> created)
      throws IOException {
    List<String> names = new ArrayList<>(existing);
    names.addAll(created);
    DirectoryStream<Path> top = Files.newDirectoryStream(base);
    if (!(top instanceof SecureDirectoryStream<Path> current)) {
      top.close();
      return null;
    }
    Path path = base;
    try {
      for (int i = 0; i < names.size(); i++) {
        String name = names.get(i);
        path = path.resolve(name);
        if (i >= existing.size()) {
          createPrivate(path);
        }
        SecureDirectoryStream<Path> next;
        try {
          next = current.newDirectoryStream(Path.of(name), LinkOption.NOFOLLOW_LINKS);
        } catch (NoSuchFileException e) {
          throw e;
        } catch (IOException e) { // ELOOP (a link, refused by NOFOLLOW_LINKS) or ENOTDIR
          throw new IOException("refusing to go through a link (or a non-folder): " + path, e);
        }
        current.close();
        current = next;
      }
      return current;
    } catch (IOException | RuntimeException e) {
      current.close();
      throw e;
    }
  }

  /** Creates {@code dir} 0700 unless it exists (as anything: opening it decides whether it is usable). */
  public static void createPrivate(Path dir) throws IOException {
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (FileAlreadyExistsException e) {
      // a link or a file here is refused when it is opened
    } catch (UnsupportedOperationException e) {
      try {
        Files.createDirectory(dir); // not a POSIX file system
      } catch (FileAlreadyExistsException ignored) {
        // as above
      }
    }
  }

  /** Folders held open at once while deleting, at most: deeper ones are moved up first. */
  static final int MAX_DEPTH = 64;

  /**
   * Deletes {@code folder} and everything in it; a link inside is deleted as a link. A link at
   * {@code folder} itself is deleted, not followed. No error when it is absent. However deep the
   * tree (a child may build one to defeat the clean-up), at most {@link #MAX_DEPTH} folders are
   * open at once: a folder that deep is moved up to the top of the tree under a fresh name and
   * deleted from there.
   */
  public static void deleteTree(Path folder) throws IOException {
    Path parent = folder.toAbsolutePath().getParent();
    SecureDirectoryStream<Path> base;
    try {
      base = open(parent, List.of(), List.of());
    } catch (NoSuchFileException e) {
      return;
    }
    if (base == null) {
      if (Files.exists(folder, LinkOption.NOFOLLOW_LINKS)) {
        deleteTreeByPath(folder);
      }
      return;
    }
    try (base) {
      Path name = folder.getFileName();
      SecureDirectoryStream<Path> top = openOrDelete(base, name);
      if (top == null) {
        return;
      }
      try (top) {
        Deque<Path> left = new ArrayDeque<>(names(top));
        while (!left.isEmpty()) {
          deleteEntry(top, left.pop(), 1, top, left);
        }
      }
      base.deleteDirectory(name);
    }
  }

  /**
   * Deletes {@code name} in {@code dir}, {@code depth} folders below {@code top}; a folder at
   * {@link #MAX_DEPTH} is moved into {@code top} instead and its new name added to {@code left}.
   */
  private static void deleteEntry(SecureDirectoryStream<Path> dir, Path name, int depth, SecureDirectoryStream<Path> top,
      Deque<Path> left) throws IOException {
    SecureDirectoryStream<Path> sub = openOrDelete(dir, name);
    if (sub == null) {
      return;
    }
    try (sub) {
      if (depth >= MAX_DEPTH) {
        Path moved = Path.of(".deep-" + java.util.HexFormat.of().formatHex(randomBytes()));
        dir.move(name, top, moved);
        left.add(moved);
        return;
      }
      for (Path entry : names(sub)) {
        deleteEntry(sub, entry, depth + 1, top, left);
      }
    }
    dir.deleteDirectory(name);
  }

  /** The folder {@code name} in {@code dir}, opened; null after deleting it when it is a file or a link. */
  private static SecureDirectoryStream<Path> openOrDelete(SecureDirectoryStream<Path> dir, Path name) throws IOException {
    BasicFileAttributes attrs;
    try {
      attrs = dir.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS).readAttributes();
    } catch (NoSuchFileException e) {
      return null;
    }
    if (!attrs.isDirectory()) {
      dir.deleteFile(name); // a file, or a link: the link itself
      return null;
    }
    try {
      return dir.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      return null;
    } catch (IOException e) {
      dir.deleteFile(name); // swapped for a link since it was read: the link goes, never its target
      return null;
    }
  }

  private static List<Path> names(SecureDirectoryStream<Path> dir) {
    List<Path> names = new ArrayList<>();
    for (Path entry : dir) {
      names.add(entry.getFileName());
    }
    return names;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    new java.security.SecureRandom().nextBytes(b);
    return b;
  }

  private static void deleteTreeByPath(Path folder) throws IOException {
    Files.walkFileTree(folder, new java.nio.file.SimpleFileVisitor<>() { // does not follow links
      @Override
      public java.nio.file.FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
        Files.delete(file);
        return java.nio.file.FileVisitResult.CONTINUE;
      }

      @Override
      public java.nio.file.FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
        Files.delete(dir);
        return java.nio.file.FileVisitResult.CONTINUE;
      }
    });
  }
}
