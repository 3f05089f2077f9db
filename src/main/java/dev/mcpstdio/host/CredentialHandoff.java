package dev.mcpstdio.host;

import dev.mcpstdio.jsonrpc.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * Hands a credential the host has decrypted to a session-scoped child, the way such children
 * expect it: {@code <workspace>/sources/<slug>/.credential-cache.json} holding
 * {@code {"value": ..., "expiresAt": ...}} (see docs/callbacks.md).
 *
 * <p>The file is written atomically (a temporary file in the same folder, flushed to disk, then
 * renamed over the old one), readable by its owner only (0600, folders 0700), and never through a
 * symbolic link: a link anywhere on the way below the workspace is refused, since a child could
 * otherwise point the host's write at a file of its choosing. The folders are walked with
 * {@link LinkSafeFolders}, so a child swapping one for a link while the host writes cannot win
 * the race either. The workspace, and so the file, is
 * removed with the session. A child cannot refresh a credential; it treats an expired one as
 * absent and asks again.
 */
public final class CredentialHandoff {

  /** Source slugs: a safe single path segment. */
  private static final java.util.regex.Pattern SLUG = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private static final SecureRandom RANDOM = new SecureRandom();

  /** The file a credential is handed off in, in its source's folder. */
  public static final String FILE = ".credential-cache.json";

  private static final FileAttribute<Set<PosixFilePermission>> PRIVATE_FILE =
      PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));

  private CredentialHandoff() {}

  /**
   * Writes the credential for {@code slug} into {@code workspace}.
   *
   * @param value the secret as a JSON string value is written (quoted)
   * @param expiresAt when it stops being valid, or null for no expiry
   * @return the file written
   */
  public static Path write(Path workspace, String slug, String value, Instant expiresAt) throws IOException {
    if (!isSlug(slug)) {
      throw new IllegalArgumentException("not a source slug: " + slug);
    }
    Path absolute = workspace.toAbsolutePath();
    Path target = absolute.resolve("sources").resolve(slug).resolve(FILE);
    byte[] json = ("{\"value\":" + Json.quote(value) + (expiresAt == null ? "" : ",\"expiresAt\":"
        + Json.quote(expiresAt.toString())) + "}").getBytes(StandardCharsets.UTF_8);
    Path temp = Path.of(".credential-cache." + HexFormat.of().formatHex(randomBytes()) + ".tmp");
    if (!Files.isDirectory(absolute, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("no workspace at " + workspace + " (or it is a link)");
    }
    // the workspace's parent is the host's own folder; from there on every step is link-safe
    try (SecureDirectoryStream<Path> folder = LinkSafeFolders.open(absolute.getParent(),
        List.of(absolute.getFileName().toString()), List.of("sources", slug))) { // never recreates the workspace
      if (folder == null) {
        return writeByPath(absolute, slug, json, temp);
      }
      try {
        try (SeekableByteChannel out = folder.newByteChannel(temp, Set.of(StandardOpenOption.CREATE_NEW,
            StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), PRIVATE_FILE)) {
          out.write(ByteBuffer.wrap(json));
          if (out instanceof FileChannel file) {
            file.force(true);
          }
        }
        folder.move(temp, folder, Path.of(FILE)); // rename(2) in one folder: atomic, replaces a link itself
      } finally {
        try {
          folder.deleteFile(temp);
        } catch (NoSuchFileException moved) {
          // renamed: nothing left behind
        }
      }
    }
    return target;
  }

  /** The same where the platform has no secure directory streams: each step checked for links first. */
  private static Path writeByPath(Path workspace, String slug, byte[] json, Path tempName) throws IOException {
    Path folder = workspace.resolve("sources").resolve(slug);
    for (Path dir : List.of(workspace.resolve("sources"), folder)) {
      if (Files.isSymbolicLink(dir)) {
        throw new IOException("refusing to go through a link: " + dir);
      }
      LinkSafeFolders.createPrivate(dir);
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(dir + " is not a folder");
      }
    }
    Path target = folder.resolve(FILE);
    Path temp = folder.resolve(tempName);
    try {
      try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          LinkOption.NOFOLLOW_LINKS), PRIVATE_FILE)) {
        out.write(ByteBuffer.wrap(json));
        out.force(true);
      }
      try {
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
    return target;
  }

  /** True for a source slug: one safe path segment ({@code [A-Za-z0-9][A-Za-z0-9._-]*}, at most 128, no {@code ..}). */
  public static boolean isSlug(String slug) {
    return slug != null && SLUG.matcher(slug).matches() && !slug.contains("..");
  }

  /** Removes the credential for {@code slug} (a source was disabled); no error when absent. */
  public static void remove(Path workspace, String slug) throws IOException {
    Path target = workspace.resolve("sources").resolve(slug).resolve(FILE);
    Files.deleteIfExists(target); // deletes a link itself, never what it points to
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return b;
  }
}
