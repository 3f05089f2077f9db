package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token store: where it lives, what it keeps, and that it keeps it privately and whole. */
class TokenStoreTest {

  @TempDir
  Path home;

  private final List<String> warnings = new CopyOnWriteArrayList<>();

  private TokenStore store() {
    Map<String, String> env = Map.of("HOME", home.toString());
    return new TokenStore(TokenStore.defaultPath(env), TokenStore.legacyPath(env), warnings::add);
  }

  private static TokenRecord login(String access) {
    return new TokenRecord(access, "Bearer", Instant.ofEpochSecond(4_102_444_800L), "refresh-" + access, "read write",
        "client-1", "client-secret-1", null, "https://as.example/token", "https://as.example/authorize",
        "https://as.example/register", "https://as.example", "client_secret_post", false, true, null,
        "https://mcp.example/mcp", false);
  }

  private static String mode(Path p) throws IOException {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(p));
  }

  @Test
  void theStoreLivesUnderXdgConfigHomeElseHomesConfigFolder() {
    assertThat(TokenStore.defaultPath(Map.of("XDG_CONFIG_HOME", "/x/cfg", "HOME", "/h")))
        .isEqualTo(Path.of("/x/cfg/mcp-stdio/tokens.json"));
    assertThat(TokenStore.defaultPath(Map.of("XDG_CONFIG_HOME", "relative", "HOME", "/h")))
        .isEqualTo(Path.of("/h/.config/mcp-stdio/tokens.json")); // the spec ignores a relative one
    assertThat(TokenStore.defaultPath(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.config/mcp-stdio/tokens.json"));
    assertThat(TokenStore.legacyPath(Map.of("HOME", "/h"))).isEqualTo(Path.of("/h/.mcp-stdio/tokens.json"));
  }

  @Test
  void aLoginIsStoredPrivatelyUnderItsServersKeyAndFoundByAnySpelling() throws IOException {
    TokenStore store = store();
    store.save("https://MCP.example:443/mcp/", login("access-1"));

    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    assertThat(mode(file)).isEqualTo("rw-------");
    assertThat(mode(file.getParent())).isEqualTo("rwx------");
    assertThat(mode(file.getParent().getParent())).isEqualTo("rwx------"); // created by us: private too
    try (var entries = Files.list(file.getParent())) {
      assertThat(entries.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("tokens.json", "tokens.json.lock");
    }
    assertThat(store.load("https://user:pw@mcp.example/mcp")).hasValue(login("access-1"));
    assertThat(store.load("https://mcp.example/mcp?tenant=b")).isEmpty();
    assertThat(store.all()).containsOnlyKeys("https://mcp.example/mcp");
    assertThat(Files.readString(file)).contains("\"access_token\" : \"access-1\"").contains("\"expires_at\" : 4102444800");
    assertThat(login("access-1").toString()).doesNotContain("access-1", "refresh-", "client-secret-1");
    assertThat(warnings).isEmpty();
  }

  @Test
  void aFreshFileIsReadAgainEvenWhenItsInodeTimeAndSizeLookUnchanged() throws IOException {
    // Two writes within one tick of the file system's clock, the second given the inode the
    // first freed, look alike to a stat. Simulated: the same file rewritten in place, same size,
    // its time put back.
    TokenStore store = store();
    store.save("https://mcp.example/mcp", login("access-1"));
    assertThat(store.load("https://mcp.example/mcp")).hasValue(login("access-1"));
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    java.nio.file.attribute.FileTime time = Files.getLastModifiedTime(file);
    Files.writeString(file, Files.readString(file).replace("access-1", "access-2"));
    Files.setLastModifiedTime(file, time);
    assertThat(store.load("https://mcp.example/mcp")).hasValue(login("access-2"));
  }

  @Test
  void aSettledFileIsStillReadAgainOnceItChanges() throws IOException {
    TokenStore store = store();
    store.save("https://mcp.example/mcp", login("access-1"));
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    java.nio.file.attribute.FileTime old = java.nio.file.attribute.FileTime.from(Instant.now().minusSeconds(60));
    Files.setLastModifiedTime(file, old);
    assertThat(store.load("https://mcp.example/mcp")).hasValue(login("access-1")); // now remembered:
    Files.writeString(file, Files.readString(file).replace("access-1", "access-9")); // same inode, size
    Files.setLastModifiedTime(file, old); // and time, so only memory still knows access-1
    assertThat(store.load("https://mcp.example/mcp")).hasValue(login("access-1"));
    store.save("https://mcp.example/mcp", login("access-2")); // a new file renamed into place
    assertThat(store.load("https://mcp.example/mcp")).hasValue(login("access-2"));
  }

  @Test
  void loginsOfSeveralServersAreKeptAndDroppedOneByOne() throws IOException {
    TokenStore store = store();
    store.save("https://a.example/mcp", login("a"));
    store.save("https://b.example/mcp", login("b"));
    store.save("https://a.example/mcp", login("a2")); // a refresh replaces the login
    assertThat(store.all()).containsOnlyKeys("https://a.example/mcp", "https://b.example/mcp");
    assertThat(store.load("https://a.example/mcp").orElseThrow().accessToken()).isEqualTo("a2");
    assertThat(store.delete("https://A.example/mcp/")).isTrue();
    assertThat(store.delete("https://a.example/mcp")).isFalse();
    assertThat(store.all()).containsOnlyKeys("https://b.example/mcp");
  }

  @Test
  void aStoreThatIsNotJsonIsReportedOnceNeverEchoedAndReplacedByTheNextLogin() throws IOException {
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, "{\"https://a.example/mcp\": {\"access_token\": \"leaky-token\"");
    TokenStore store = store();
    assertThat(store.load("https://a.example/mcp")).isEmpty();
    assertThat(store.load("https://a.example/mcp")).isEmpty();
    assertThat(warnings).singleElement().asString().contains("unreadable").doesNotContain("leaky-token");
    assertThat(store.delete("https://a.example/mcp")).isFalse();
    assertThat(Files.readString(file)).contains("leaky-token"); // a delete never rewrites what it could not read
    store.save("https://b.example/mcp", login("b"));
    assertThat(store.all()).containsOnlyKeys("https://b.example/mcp");
  }

  @Test
  void aLoginWithWrongTypesIsNoLoginAndTheOthersSurvive() throws IOException {
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    Files.createDirectories(file.getParent());
    Files.writeString(file, """
        {"https://ok.example/mcp": {"access_token": "ok", "expires_at": 4102444800, "future_field": [1, 2]},
         "https://bad.example/mcp": {"access_token": "bad", "expires_at": "soon"},
         "https://none.example/mcp": {"refresh_token": "r"},
         "https://nested.example/mcp": {"access_token": {"value": "x"}},
         "https://old.example/mcp/": {"access_token": "verbatim-key"}}
        """);
    TokenStore store = store();
    assertThat(store.all()).containsOnlyKeys("https://ok.example/mcp", "https://old.example/mcp/");
    assertThat(store.load("https://bad.example/mcp")).isEmpty();
    assertThat(store.load("https://old.example/mcp/")).map(TokenRecord::accessToken).hasValue("verbatim-key");
    store.save("https://old.example/mcp/", login("renewed")); // stored under its key, the verbatim one dropped
    assertThat(store.all()).containsOnlyKeys("https://ok.example/mcp", "https://old.example/mcp");
  }

  @Test
  void aStoreBehindALinkIsNeitherReadNorWrittenThrough(@TempDir Path elsewhere) throws IOException {
    Path victim = Files.writeString(elsewhere.resolve("victim.json"), "{}");
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    Files.createDirectories(file.getParent());
    Files.createSymbolicLink(file, victim);
    TokenStore store = store();
    assertThat(store.load("https://a.example/mcp")).isEmpty();
    assertThat(warnings).anySatisfy(w -> assertThat(w).contains("symbolic link"));
    assertThatThrownBy(() -> store.save("https://a.example/mcp", login("a"))).isInstanceOf(IOException.class);
    assertThat(victim).hasContent("{}");
  }

  @Test
  void aLooseStoreAndFolderAreTightened() throws IOException {
    Path file = home.resolve(".config/mcp-stdio/tokens.json");
    Files.createDirectories(file.getParent());
    Files.setPosixFilePermissions(file.getParent(), PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.writeString(file, "{}");
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
    TokenStore store = store();
    assertThat(store.all()).isEmpty();
    assertThat(mode(file)).isEqualTo("rw-------");
    store.save("https://a.example/mcp", login("a"));
    assertThat(mode(file.getParent())).isEqualTo("rwx------");
  }

  @Test
  void theOldStoreIsMovedHereOnceAndItsFolderRemoved() throws IOException {
    Path legacy = home.resolve(".mcp-stdio/tokens.json");
    Files.createDirectories(legacy.getParent());
    Files.writeString(legacy, "{\"https://a.example/mcp\": {\"access_token\": \"from-0.3\"}}");
    Files.setPosixFilePermissions(legacy, PosixFilePermissions.fromString("rw-r--r--"));
    TokenStore store = store();
    assertThat(store.load("https://a.example/mcp")).map(TokenRecord::accessToken).hasValue("from-0.3");
    assertThat(legacy.getParent()).doesNotExist();
    assertThat(mode(home.resolve(".config/mcp-stdio/tokens.json"))).isEqualTo("rw-------");
    assertThat(warnings).singleElement().asString().contains("moved the token store");
  }

  @Test
  void anOldStoreBesideACurrentOneIsRemovedAndALinkedOneLeftAlone(@TempDir Path elsewhere) throws IOException {
    store().save("https://a.example/mcp", login("current"));
    Path legacy = home.resolve(".mcp-stdio/tokens.json");
    Files.createDirectories(legacy.getParent());
    Files.writeString(legacy, "{\"https://a.example/mcp\": {\"access_token\": \"stale\"}}");
    assertThat(store().load("https://a.example/mcp")).map(TokenRecord::accessToken).hasValue("current");
    assertThat(legacy).doesNotExist();

    Files.createDirectories(legacy.getParent());
    Path target = Files.writeString(elsewhere.resolve("t.json"), "{}");
    Files.createSymbolicLink(legacy, target);
    warnings.clear();
    assertThat(store().load("https://a.example/mcp")).isPresent();
    assertThat(warnings).singleElement().asString().contains("not a regular file");
    assertThat(Files.isSymbolicLink(legacy)).isTrue();
  }

  @Test
  void concurrentSavesOfDifferentServersAreAllKept() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> saves = new ArrayList<>();
      for (int i = 0; i < 16; i++) {
        String url = "https://s" + i + ".example/mcp";
        TokenStore own = store(); // separate store objects, as separate relays would have
        saves.add(pool.submit(() -> {
          own.save(url, login("t"));
          return null;
        }));
      }
      for (Future<?> f : saves) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(store().all()).hasSize(16);
    try (var entries = Files.list(home.resolve(".config/mcp-stdio"))) {
      assertThat(entries.map(p -> p.getFileName().toString())).noneMatch(n -> n.endsWith(".tmp"));
    }
  }

  @Test
  void aStoreKeptInMemorySeesWhatAnotherProcessWrote() throws IOException {
    TokenStore mine = store();
    TokenStore theirs = store(); // another relay's view of the same file
    mine.save("https://a.example/mcp", login("first"));
    assertThat(mine.load("https://a.example/mcp")).map(TokenRecord::accessToken).hasValue("first");
    theirs.save("https://a.example/mcp", login("rotated"));
    assertThat(mine.load("https://a.example/mcp")).map(TokenRecord::accessToken).hasValue("rotated");
    mine.all().clear(); // a copy: the store's memory is not the caller's to change
    assertThat(mine.all()).containsOnlyKeys("https://a.example/mcp");
  }
}
