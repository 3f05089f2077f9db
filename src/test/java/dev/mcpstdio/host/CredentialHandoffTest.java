package dev.mcpstdio.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writing a credential for a session-scoped child: private, atomic, never through a link. */
class CredentialHandoffTest {

  @Test
  void theFileHoldsTheValueAndExpiryAndOnlyItsOwnerCanReadIt(@TempDir Path workspace) throws IOException {
    Path file = CredentialHandoff.write(workspace, "github", "tok\"en", Instant.parse("2026-12-01T00:00:00Z"));
    assertThat(file).isEqualTo(workspace.resolve("sources/github/.credential-cache.json"));
    assertThat(Files.readString(file)).isEqualTo("{\"value\":\"tok\\\"en\",\"expiresAt\":\"2026-12-01T00:00:00Z\"}");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent()))).isEqualTo("rwx------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(workspace.resolve("sources")))).isEqualTo("rwx------");
  }

  @Test
  void aRewriteReplacesTheFileWholeAndLeavesNoTemporaryFiles(@TempDir Path workspace) throws IOException {
    CredentialHandoff.write(workspace, "slack", "first", null);
    Path file = CredentialHandoff.write(workspace, "slack", "second", null);
    assertThat(Files.readString(file)).isEqualTo("{\"value\":\"second\"}");
    try (var entries = Files.list(file.getParent())) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly(".credential-cache.json");
    }
    CredentialHandoff.remove(workspace, "slack");
    assertThat(file).doesNotExist();
    CredentialHandoff.remove(workspace, "slack"); // absent: fine
  }

  @Test
  void linksOnTheWayAreRefusedAndTheirTargetsUntouched(@TempDir Path workspace, @TempDir Path elsewhere) throws IOException {
    Path victim = Files.writeString(elsewhere.resolve("victim"), "do not overwrite");
    Files.createDirectories(workspace.resolve("sources/a"));
    Path planted = Files.createSymbolicLink(workspace.resolve("sources/a/.credential-cache.json"), victim);
    CredentialHandoff.write(workspace, "a", "x", null); // the link is replaced, never written through
    assertThat(Files.isSymbolicLink(planted)).isFalse();
    assertThat(planted).hasContent("{\"value\":\"x\"}");
    Files.createSymbolicLink(workspace.resolve("sources/b"), elsewhere);
    assertThatThrownBy(() -> CredentialHandoff.write(workspace, "b", "x", null)).hasMessageContaining("link");
    assertThat(victim).hasContent("do not overwrite");
    try (var entries = Files.list(elsewhere)) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactly("victim");
    }
  }

  @Test
  void slugsAreOnePathSegment(@TempDir Path workspace) {
    for (String bad : new String[] {"../escape", "a/b", "", ".hidden", "..", "x".repeat(200)}) {
      assertThatThrownBy(() -> CredentialHandoff.write(workspace, bad, "x", null)).as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void aWorkspaceThatIsItselfALinkIsRefused(@TempDir Path root, @TempDir Path elsewhere) throws IOException {
    Path workspace = Files.createSymbolicLink(root.resolve("ws"), elsewhere);
    assertThatThrownBy(() -> CredentialHandoff.write(workspace, "a", "x", null)).hasMessageContaining("link");
    try (var entries = Files.list(elsewhere)) {
      assertThat(entries).isEmpty();
    }
  }

  @Test
  void aFileWhereAFolderBelongsIsRefused(@TempDir Path workspace) throws IOException {
    Files.writeString(workspace.resolve("sources"), "not a folder");
    assertThatThrownBy(() -> CredentialHandoff.write(workspace, "a", "x", null)).isInstanceOf(IOException.class);
    assertThat(workspace.resolve("sources")).hasContent("not a folder");
  }

  @Test
  void aTreeIsDeletedWithoutFollowingTheLinksInIt(@TempDir Path root, @TempDir Path elsewhere) throws IOException {
    Path victim = Files.writeString(elsewhere.resolve("victim"), "keep me");
    Path tree = Files.createDirectories(root.resolve("ws/sources/a"));
    Files.writeString(tree.resolve("f"), "x");
    Files.createSymbolicLink(root.resolve("ws/sources/to-dir"), elsewhere);
    Files.createSymbolicLink(root.resolve("ws/to-file"), victim);
    LinkSafeFolders.deleteTree(root.resolve("ws"));
    assertThat(root.resolve("ws")).doesNotExist();
    assertThat(victim).hasContent("keep me");
    LinkSafeFolders.deleteTree(root.resolve("ws")); // absent: fine
    Path link = Files.createSymbolicLink(root.resolve("link"), elsewhere);
    LinkSafeFolders.deleteTree(link); // a link is removed as a link
    assertThat(link).doesNotExist();
    assertThat(victim).hasContent("keep me");
  }

  @Test
  void aTreeDeeperThanTheFoldersHeldOpenIsDeletedToo(@TempDir Path root) throws IOException {
    Path deep = root.resolve("ws");
    for (int i = 0; i < LinkSafeFolders.MAX_DEPTH * 3 + 5; i++) {
      deep = deep.resolve("d");
    }
    Files.createDirectories(deep);
    Files.writeString(deep.resolve("f"), "bottom");
    Files.createDirectories(root.resolve("ws/side/e"));
    LinkSafeFolders.deleteTree(root.resolve("ws"));
    assertThat(root.resolve("ws")).doesNotExist();
    try (var entries = Files.list(root)) {
      assertThat(entries).isEmpty(); // nothing moved out of the tree
    }
  }
}
