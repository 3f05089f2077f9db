package dev.mcpstdio.oauth;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

/**
 * The logins of every server, in one file ({@code tokens.json}), shared by all relays of a user.
 *
 * <p>Where: {@code --token-store PATH}; else {@code $XDG_CONFIG_HOME/mcp-stdio/tokens.json}; else
 * {@code $HOME/.config/mcp-stdio/tokens.json} (the environment first: the JVM's {@code user.home}
 * ignores {@code $HOME}, and users and tests set it). A store at the old place,
 * {@code ~/.mcp-stdio/tokens.json}, is moved here the first time it is needed.
 *
 * <p>How: the folder is 0700 (created so, tightened when found looser), the file 0600, never read
 * or written through a symbolic link. Every change is a read-modify-write under an exclusive lock
 * ({@code tokens.json.lock}, a lock between processes and between threads) that writes a new file
 * beside the old one (created exclusively, 0600, flushed to disk) and renames it over the old one,
 * so a reader sees the old store or the new one, never half of either. Reading takes no lock. A
 * file that is not a JSON object is reported once and replaced by the next save; a delete never
 * rewrites a store it could not read. Nothing here ever logs or throws a token.
 */
public final class TokenStore {

  public static final String FILE = "tokens.json";

  /** A store larger than this is not one (16 MiB; a login is a few kilobytes). */
  static final long MAX_BYTES = 16L << 20;

  /** How long a change waits for another process's change to finish before giving up. */
  static final Duration LOCK_WAIT = Duration.ofSeconds(10);


  /** Threads of this process changing one store file take turns here before taking the file lock. */
  private static final Map<Path, ReentrantLock> IN_PROCESS = new ConcurrentHashMap<>();

  private final Path file;
  private final Path legacy; // null: no migration
  private final Consumer<String> warn;
  private final boolean tightenFolder;
  private volatile boolean migrated;
  private volatile boolean corruptReported;

  /**
   * @param legacy the old store to move here when this one is missing, or null
   * @param warn where problems are told (never with a secret in them)
   */
  public TokenStore(Path file, Path legacy, Consumer<String> warn) {
    this(file, legacy, warn, true);
  }

  private TokenStore(Path file, Path legacy, Consumer<String> warn, boolean tightenFolder) {
    this.file = file.toAbsolutePath();
    this.legacy = legacy == null ? null : legacy.toAbsolutePath();
    this.warn = warn;
    this.tightenFolder = tightenFolder;
  }

  /**
   * A store at a place the user chose ({@code --token-store}): folders it creates are 0700, but an
   * existing folder (a home, a project) is left as it is; the file itself is still 0600.
   */
  public static TokenStore at(Path file, Consumer<String> warn) {
    return new TokenStore(file, null, warn, false);
  }

  /** The store's place for this environment (see the class comment). */
  public static Path defaultPath(Map<String, String> env) {
    String xdg = env.get("XDG_CONFIG_HOME");
    if (xdg != null && !xdg.isBlank() && Path.of(xdg).isAbsolute()) {
      return Path.of(xdg, "mcp-stdio", FILE);
    }
    return home(env).resolve(".config").resolve("mcp-stdio").resolve(FILE);
  }

  /** Where versions up to 0.3 of the Python tool kept the store. */
  public static Path legacyPath(Map<String, String> env) {
    return home(env).resolve(".mcp-stdio").resolve(FILE);
  }

  private static Path home(Map<String, String> env) {
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      home = env.get("USERPROFILE"); // Windows
    }
    return Path.of(home == null || home.isBlank() ? System.getProperty("user.home") : home);
  }

  public Path file() {
    return file;
  }

  /** The login for {@code serverUrl}, if one is stored (looked up by its normalised key, then verbatim). */
  public Optional<TokenRecord> load(String serverUrl) {
    Map<String, TokenRecord> logins = readQuietly();
    TokenRecord r = logins.get(ServerKey.of(serverUrl));
    return Optional.ofNullable(r != null ? r : logins.get(serverUrl));
  }

  /** Every stored login, by server key. */
  public Map<String, TokenRecord> all() {
    return new LinkedHashMap<>(readQuietly());
  }

  /** Stores {@code record} as {@code serverUrl}'s login, replacing what was there. */
  public void save(String serverUrl, TokenRecord record) throws IOException {
    change(logins -> {
      logins.remove(serverUrl); // a verbatim key an older version wrote
      logins.put(ServerKey.of(serverUrl), record);
      return true;
    }, true);
  }

  /** Drops {@code serverUrl}'s login; false when there was none (or the store could not be read). */
  public boolean delete(String serverUrl) throws IOException {
    boolean[] found = new boolean[1];
    change(logins -> {
      found[0] = logins.remove(ServerKey.of(serverUrl)) != null | logins.remove(serverUrl) != null;
      return found[0];
    }, false);
    return found[0];
  }

  /** A change to the logins; returns whether there is anything to write. */
  private interface Change {
    boolean apply(Map<String, TokenRecord> logins);
  }

  private void change(Change change, boolean replaceCorrupt) throws IOException {
    migrateOnce();
    Path dir = file.getParent();
    privateFolder(dir);
    ReentrantLock local = IN_PROCESS.computeIfAbsent(file, k -> new ReentrantLock());
    local.lock();
    try (FileChannel lockFile = FileChannel.open(dir.resolve(FILE + ".lock"), Set.of(StandardOpenOption.CREATE,
        StandardOpenOption.WRITE, LinkOption.NOFOLLOW_LINKS), OwnerOnly.file());
        FileLock ignored = lock(lockFile)) {
      Map<String, TokenRecord> logins;
      try {
        logins = new LinkedHashMap<>(read());
      } catch (TokenStoreFormat.Corrupt e) {
        if (!replaceCorrupt) {
          return; // never clobber a store that could not be read, only to forget something
        }
        logins = new LinkedHashMap<>();
      }
      if (change.apply(logins)) {
        PrivateFiles.write(file, TokenStoreFormat.write(logins));
      }
    } finally {
      local.unlock();
    }
  }

  private static FileLock lock(FileChannel channel) throws IOException {
    long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
    while (true) {
      try {
        FileLock lock = channel.tryLock();
        if (lock != null) {
          return lock;
        }
      } catch (OverlappingFileLockException e) {
        // another store object of this process on the same file: the in-process lock orders them
      }
      if (System.nanoTime() - deadline > 0) {
        throw new IOException("the token store is locked by another process for over " + LOCK_WAIT.toSeconds() + " s");
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted while waiting for the token store's lock");
      }
    }
  }

  private Map<String, TokenRecord> readQuietly() {
    migrateOnce();
    try {
      return read();
    } catch (TokenStoreFormat.Corrupt e) {
      return new LinkedHashMap<>();
    } catch (IOException e) {
      warn.accept("cannot read the token store " + file + ": " + e.getMessage());
      return new LinkedHashMap<>();
    }
  }

  /** The file's identity (inode), modification time and size when {@link #cached} was read. */
  private record Version(Object key, java.nio.file.attribute.FileTime modified, long size) {}

  /**
   * The last read, with the version of the file it came from; replaced whole, never changed.
   * {@code settled}: the file was already older than {@link #SETTLED} when it was read.
   */
  private record Cached(Version version, Map<String, TokenRecord> logins, boolean settled) {}

  /**
   * How old a file must be before its version can stand for its content. A file system's clock
   * is coarse (a scheduler tick; two seconds on FAT), and a freed inode is soon given to the next
   * new file, so two writes close together can leave the same inode, time and size with different
   * tokens inside. Once a file is older than any such tick, a later write has a later time. The
   * age is measured against this machine's clock, so a network file system whose server's clock
   * runs more than this behind could still make a fresh file look settled.
   */
  static final Duration SETTLED = Duration.ofSeconds(3);

  private volatile Cached cached;

  /**
   * The stored logins, unmodifiable and shared with later reads (a change copies them first);
   * empty when there is no store. A request
   * reads the store to find its token, so a settled, unchanged file (the same inode, time and
   * size: every write renames a new file into place) is answered from memory after one {@code stat}.
   */
  private Map<String, TokenRecord> read() throws IOException, TokenStoreFormat.Corrupt {
    java.time.Instant readAt = java.time.Instant.now();
    Version now;
    try {
      java.nio.file.attribute.BasicFileAttributes a = Files.readAttributes(file,
          java.nio.file.attribute.BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
      now = a.isRegularFile() ? new Version(a.fileKey(), a.lastModifiedTime(), a.size()) : null;
    } catch (NoSuchFileException e) {
      return Map.of();
    }
    Cached known = cached;
    if (now != null && now.key() != null && known != null && known.settled() && now.equals(known.version())) {
      return known.logins();
    }
    Map<String, TokenRecord> fresh = java.util.Collections.unmodifiableMap(readFile());
    boolean settled = now != null && now.modified().toInstant().isBefore(readAt.minus(SETTLED));
    cached = new Cached(now, fresh, settled);
    return fresh;
  }

  private Map<String, TokenRecord> readFile() throws IOException, TokenStoreFormat.Corrupt {
    byte[] bytes;
    try {
      bytes = PrivateFiles.read(file, MAX_BYTES);
    } catch (NoSuchFileException e) {
      return new LinkedHashMap<>();
    } catch (IOException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("larger than")) {
        throw corrupt(e.getMessage());
      }
      throw e;
    }
    try {
      return TokenStoreFormat.read(bytes);
    } catch (TokenStoreFormat.Corrupt e) {
      throw corrupt(e.getMessage());
    }
  }

  private TokenStoreFormat.Corrupt corrupt(String why) {
    if (!corruptReported) {
      corruptReported = true;
      warn.accept("the token store " + file + " is unreadable (" + why + "); it will be replaced at the next login");
    }
    return new TokenStoreFormat.Corrupt(why);
  }

  /** The folder created 0700, or tightened to it when this store may (not a folder the operator chose). */
  private void privateFolder(Path dir) throws IOException {
    PrivateFiles.folder(dir, tightenFolder);
  }

  private static void tighten(Path file) throws IOException {
    PrivateFiles.tighten(file);
  }

  /**
   * Moves the old store here when this one is missing or empty; removes it when this one has
   * logins already; refuses one that is a link or not a regular file.
   */
  private void migrateOnce() {
    if (migrated || legacy == null) {
      return;
    }
    migrated = true;
    try {
      if (!Files.exists(legacy, LinkOption.NOFOLLOW_LINKS)) {
        return;
      }
      if (!Files.isRegularFile(legacy, LinkOption.NOFOLLOW_LINKS)) {
        warn.accept("not moving the old token store " + legacy + ": not a regular file");
        return;
      }
      boolean current = Files.exists(file, LinkOption.NOFOLLOW_LINKS) && Files.size(file) > 2;
      if (current) {
        Files.delete(legacy);
      } else {
        tighten(legacy);
        privateFolder(file.getParent());
        try {
          Files.move(legacy, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) { // another file system: copy, then remove
          Files.copy(legacy, file, StandardCopyOption.REPLACE_EXISTING);
          tighten(file);
          Files.delete(legacy);
        }
        warn.accept("moved the token store from " + legacy + " to " + file);
      }
      try {
        Files.delete(legacy.getParent()); // only when empty
      } catch (IOException e) {
        // other files there
      }
    } catch (IOException e) {
      warn.accept("could not move the old token store " + legacy + ": " + e.getMessage());
    }
  }

}
