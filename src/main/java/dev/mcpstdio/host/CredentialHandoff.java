package dev.mcpstdio.host;

import dev.mcpstdio.jsonrpc.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Set;

/**
 * Hands a credential the host has decrypted to a session-scoped child, the way such children
 * expect it: {@code <workspace>/sources/<slug>/.credential-cache.json} holding
 * {@code {"value": ..., "expiresAt": ...}} (see docs/callbacks.md).
 *
 * <p>The file is written atomically (a temporary file in the same folder, flushed to disk, then
 * renamed over the old one), readable by its owner only (0600, folders 0700), and never through a
 * symbolic link: a link anywhere on the way below the workspace is refused, since a child could
 * otherwise point the host's write at a file of its choosing. The workspace, and so the file, is
 * removed with the session. A child cannot refresh a credential; it treats an expired one as
 * absent and asks again.
 */
public final class CredentialHandoff {

  /** Source slugs: a safe single path segment. */
  private static final java.util.regex.Pattern SLUG = java.util.regex.Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,127}");

  private static final SecureRandom RANDOM = new SecureRandom();

  private CredentialHandoff() {}

  /**
   * Writes the credential for {@code slug} into {@code workspace}.
   *
   * @param value the secret as a JSON string value is written (quoted)
   * @param expiresAt when it stops being valid, or null for no expiry
   * @return the file written
   */
  public static Path write(Path workspace, String slug, String value, Instant expiresAt) throws IOException {
    if (!SLUG.matcher(slug).matches() || slug.contains("..")) {
      throw new IllegalArgumentException("not a source slug: " + slug);
    }
    if (!Files.isDirectory(workspace, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("no workspace at " + workspace + " (or it is a link)");
    }
    Path sources = privateFolder(workspace.resolve("sources"));
    Path folder = privateFolder(sources.resolve(slug));
    Path target = folder.resolve(".credential-cache.json");
    if (Files.isSymbolicLink(target)) {
      throw new IOException("refusing to write through a link: " + target);
    }
    String json = "{\"value\":" + Json.quote(value) + (expiresAt == null ? "" : ",\"expiresAt\":" + Json.quote(expiresAt.toString())) + "}";
    Path temp = folder.resolve(".credential-cache." + HexFormat.of().formatHex(randomBytes()) + ".tmp");
    try {
      try (FileChannel out = FileChannel.open(temp, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")))) {
        out.write(ByteBuffer.wrap(json.getBytes(StandardCharsets.UTF_8)));
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

  /** Removes the credential for {@code slug} (a source was disabled); no error when absent. */
  public static void remove(Path workspace, String slug) throws IOException {
    Path target = workspace.resolve("sources").resolve(slug).resolve(".credential-cache.json");
    Files.deleteIfExists(target); // deletes a link itself, never what it points to
  }

  /** The folder, created 0700 when missing; refused when it is a link or not a folder. */
  private static Path privateFolder(Path dir) throws IOException {
    if (Files.isSymbolicLink(dir)) {
      throw new IOException("refusing to write through a link: " + dir);
    }
    try {
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (FileAlreadyExistsException e) {
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        throw new IOException(dir + " is not a folder");
      }
    }
    return dir;
  }

  private static byte[] randomBytes() {
    byte[] b = new byte[8];
    RANDOM.nextBytes(b);
    return b;
  }
}
