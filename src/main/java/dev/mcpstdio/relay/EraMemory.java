package dev.mcpstdio.relay;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The protocol era found per server, remembered between spawns so that a host that spawns the
 * relay for every conversation pays for the {@code server/discover} probe once per server, not on
 * every spawn: a remembered 2025-era server is spoken to at once (and probed again only when it
 * refuses the 2025 handshake), a remembered 2026-era server gets its discover as the first
 * request it needs anyway.
 *
 * <p>The file ({@code $XDG_STATE_HOME/mcp-stdio/protocol-eras}, else {@code
 * ~/.local/state/mcp-stdio/protocol-eras}) holds one line per server: the era's flag name, a tab,
 * and the SHA-256 of the endpoint URL (never the URL itself: some services put an API key in it;
 * computed by {@link Sha256}, which spares the start-up the JDK's security framework).
 * At most {@link #MAX_SERVERS} servers, the least recently found dropped first. It is written
 * whole to a temporary file (0600, in a 0700 folder) and moved over the old one, never through a
 * symbolic link (neither the file nor its folder may be one). Relays running at once may overwrite each other's finding: the worst case is one
 * more probe. Nothing here is ever fatal: a file that cannot be read or written is ignored (and
 * logged by the caller at debug level).
 */
public final class EraMemory {

  /** Servers remembered at most. */
  static final int MAX_SERVERS = 256;

  /** Bytes of the file read at most (256 lines of 71 bytes fit many times over). */
  static final int MAX_FILE_BYTES = 64 * 1024;

  private final Path file;

  EraMemory(Path file) {
    this.file = file;
  }

  /** Where the relay remembers eras for the user whose environment is {@code env}, or null when it has no home. */
  public static Path defaultFile(Map<String, String> env) {
    String state = env.get("XDG_STATE_HOME");
    if (state != null && !state.isBlank() && Path.of(state).isAbsolute()) {
      return Path.of(state, "mcp-stdio", "protocol-eras");
    }
    String home = env.get("HOME");
    if (home == null || home.isBlank()) {
      return null;
    }
    return Path.of(home, ".local", "state", "mcp-stdio", "protocol-eras");
  }

  /** The era remembered for {@code url}, or null. */
  ProtocolEra recall(URI url) throws IOException {
    return read().get(key(url));
  }

  /** Remembers {@code era} for {@code url} (a no-op when it is remembered already). */
  void remember(URI url, ProtocolEra era) throws IOException {
    Map<String, ProtocolEra> eras = read();
    String key = key(url);
    if (eras.get(key) == era) {
      return;
    }
    eras.remove(key);
    eras.put(key, era); // last: the most recently found
    List<String> lines = new ArrayList<>();
    eras.forEach((k, v) -> lines.add(v.flagName() + "\t" + k));
    List<String> kept = lines.subList(Math.max(0, lines.size() - MAX_SERVERS), lines.size());
    write(String.join("\n", kept) + "\n");
  }

  private Map<String, ProtocolEra> read() throws IOException {
    Map<String, ProtocolEra> eras = new LinkedHashMap<>();
    if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS) || Files.size(file) > MAX_FILE_BYTES) {
      return eras;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      int tab = line.indexOf('\t');
      ProtocolEra era = tab > 0 ? ProtocolEra.ofFlag(line.substring(0, tab)) : null;
      String key = tab > 0 ? line.substring(tab + 1).trim() : "";
      if (era != null && key.length() == 64) { // anything else is not ours: dropped on the next write
        eras.put(key, era);
      }
    }
    return eras;
  }

  private void write(String text) throws IOException {
    Path folder = file.getParent();
    if (Files.isSymbolicLink(folder)) {
      throw new IOException(folder + " is a symbolic link; not written through it");
    }
    if (!Files.isDirectory(folder, LinkOption.NOFOLLOW_LINKS)) {
      Files.createDirectories(folder, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    } else {
      Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwx------")); // the folder is the relay's own
    }
    if (Files.isSymbolicLink(file)) {
      throw new IOException(file + " is a symbolic link; not written through it");
    }
    // Named by process and clock rather than by Files.createTempFile, whose random names bring up
    // the JDK's security providers (SecureRandom: some 70 classes and tens of milliseconds in a
    // fresh JVM) for one small file; CREATE_NEW still refuses a name that exists.
    Path temp = folder.resolve(".protocol-eras." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
    Files.createFile(temp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.writeString(temp, text, StandardCharsets.UTF_8);
      try {
        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  static String key(URI url) {
    return HexFormat.of().formatHex(Sha256.digest(url.toString().getBytes(StandardCharsets.UTF_8)));
  }
}
