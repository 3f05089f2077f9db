package dev.mcpstdio.serve.era2025;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.process.ChildSpec;
import dev.mcpstdio.serve.ServeConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-session folders and arguments for session-scoped children. */
class SessionWorkspaceTest {

  private static final ChildSpec CHILD = new ChildSpec(List.of("server", "--stdio"), Map.of("A", "1"), Set.of("SECRET"), null);

  @Test
  void theTemplatesGetTheSessionsValuesAndTheFoldersArePrivate(@TempDir Path root) throws IOException {
    ServeConfig.SessionLaunch launch = new ServeConfig.SessionLaunch(
        List.of("--session-id", "{sessionId}", "--workspace-root={workspaceRoot}", "--plans-folder", "{plansFolder}"), root, false);
    SessionWorkspace.Launched launched = SessionWorkspace.prepare(launch, CHILD, "abc123");
    Path folder = root.resolve("abc123");
    assertThat(launched.child().argv()).containsExactly("server", "--stdio", "--session-id", "abc123",
        "--workspace-root=" + folder, "--plans-folder", folder.resolve("plans").toString());
    assertThat(launched.child().extraEnv()).containsEntry("A", "1");
    assertThat(launched.child().removedEnv()).contains("SECRET");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.resolve("plans")))).isEqualTo("rwx------");
  }

  @Test
  void removalTakesTheWholeFolderButNeverFollowsALinkOutOfIt(@TempDir Path root, @TempDir Path outside) throws IOException {
    Path precious = Files.writeString(outside.resolve("precious.txt"), "keep me");
    SessionWorkspace.Launched launched = SessionWorkspace.prepare(
        new ServeConfig.SessionLaunch(List.of(), root, false), CHILD, "s1");
    Path folder = launched.workspace().folder();
    Files.writeString(folder.resolve("plans").resolve("plan.md"), "# plan");
    Files.createSymbolicLink(folder.resolve("link-to-outside"), outside);
    Files.createSymbolicLink(folder.resolve("link-to-file"), precious);
    launched.workspace().remove();
    assertThat(folder).doesNotExist();
    assertThat(precious).exists().hasContent("keep me");
  }

  @Test
  void keptWorkspacesStayAndNoRootMeansNoFolders(@TempDir Path root) throws IOException {
    SessionWorkspace.Launched kept = SessionWorkspace.prepare(new ServeConfig.SessionLaunch(List.of(), root, true), CHILD, "s2");
    kept.workspace().remove();
    assertThat(root.resolve("s2")).isDirectory();
    SessionWorkspace.Launched none = SessionWorkspace.prepare(ServeConfig.SessionLaunch.NONE, CHILD, "s3");
    assertThat(none.workspace().folder()).isNull();
    assertThat(none.child()).isEqualTo(CHILD);
    none.workspace().remove(); // nothing to do
  }

  @Test
  void anExistingFolderIsNeverReused(@TempDir Path root) throws IOException {
    Files.createDirectory(root.resolve("taken"));
    assertThatThrownBy(() -> SessionWorkspace.prepare(new ServeConfig.SessionLaunch(List.of(), root, false), CHILD, "taken"))
        .isInstanceOf(IOException.class).hasMessageContaining("already exists");
  }
}
