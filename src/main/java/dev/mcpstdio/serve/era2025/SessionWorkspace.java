package dev.mcpstdio.serve.era2025;

import dev.mcpstdio.host.CredentialHandoff;
import dev.mcpstdio.host.LinkSafeFolders;
import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.ServeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a session-scoped child gets for its session: a workspace folder of its own (created 0700
 * under {@code --workspace-root}, with a {@code plans} folder inside) and its session config on
 * argv from the {@code --session-arg} templates. Session config is not secret (it shows in
 * {@code ps}, which helps debugging); secrets never go on argv.
 *
 * <p>The workspace is removed with the session unless {@code --keep-workspaces}; removal never
 * follows a symbolic link out of it.
 */
final class SessionWorkspace {

  /** The placeholders a template may use. */
  static final List<String> PLACEHOLDERS = List.of("{sessionId}", "{workspaceRoot}", "{plansFolder}");

  private final Path folder; // null without --workspace-root
  private final boolean keep;
  private boolean removed; // guarded by this: no credential is written once the session is over

  private SessionWorkspace(Path folder, boolean keep) {
    this.folder = folder;
    this.keep = keep;
  }

  /** Creates the session's folders (when configured) and the child spec with its arguments. */
  static Launched prepare(ServeConfig.SessionLaunch launch, ChildSpec child, String sessionId) throws IOException {
    Path folder = null;
    Path plans = null;
    if (launch.workspaceRoot() != null) {
      folder = createPrivate(launch.workspaceRoot().resolve(sessionId));
      plans = createPrivate(folder.resolve("plans"));
    }
    Map<String, String> values = Map.of(
        "{sessionId}", sessionId,
        "{workspaceRoot}", folder == null ? "" : folder.toString(),
        "{plansFolder}", plans == null ? "" : plans.toString());
    List<String> argv = new ArrayList<>(child.argv());
    for (String template : launch.argTemplates()) {
      String arg = template;
      for (Map.Entry<String, String> v : values.entrySet()) {
        arg = arg.replace(v.getKey(), v.getValue());
      }
      argv.add(arg);
    }
    ChildSpec spec = new ChildSpec(argv, child.extraEnv(), child.removedEnv(), child.workingDirectory());
    return new Launched(spec, new SessionWorkspace(folder, launch.keepWorkspaces()));
  }

  /** A child spec for one session and the workspace to clean up after it. */
  record Launched(ChildSpec child, SessionWorkspace workspace) {}

  Path folder() {
    return folder;
  }

  private static Path createPrivate(Path dir) throws IOException {
    if (Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      throw new IOException("workspace " + dir + " already exists");
    }
    try {
      if (!Files.exists(dir.getParent())) { // the root, when serve makes it: private too
        Files.createDirectories(dir.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
      }
      Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } catch (UnsupportedOperationException e) {
      Files.createDirectory(dir); // not a POSIX file system
    }
    return dir;
  }

  /**
   * Hands a credential off to the session's child ({@link CredentialHandoff}); never after the
   * workspace was removed (or, kept, given up with its session), so nothing is left behind.
   *
   * @throws NoSuchFileException when the session is over
   */
  synchronized Path handOff(String slug, String value, java.time.Instant expiresAt) throws IOException {
    if (removed || folder == null) {
      throw new NoSuchFileException(String.valueOf(folder), null, "the session's workspace is gone");
    }
    return CredentialHandoff.write(folder, slug, value, expiresAt);
  }

  /** Removes the workspace (unless kept), never following a link out of it, even one made mid-way. */
  synchronized void remove() throws IOException {
    removed = true;
    if (folder != null && !keep) {
      LinkSafeFolders.deleteTree(folder);
    }
  }
}
