package dev.mcpstdio.oauth;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;

/**
 * A relay's login step in a process of its own, for {@link LoginLockTest}: takes a server's login
 * lock and, while holding it, proves it is alone (a marker file only one holder may create).
 *
 * <p>{@code exclusive STORE URL MARKER N}: hold the lock until all N processes have found it
 * taken at least once between them (N - 1 of them must have been blocked: real contention), then
 * exit 0 (3 when another process held the lock at the same time). {@code hold STORE URL}: print {@code held} and keep the lock
 * until stdin closes.
 */
public final class LoginLockProbe {

  private LoginLockProbe() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Path store = Path.of(args[1]);
    Path blocked = args.length > 3 ? Path.of(args[3] + ".blocked") : null;
    Runnable onBlocked = () -> {
      try {
        Files.writeString(blocked, "x", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    };
    try (LoginLock lock = LoginLock.acquire(store, args[2], Duration.ofSeconds(30), blocked == null ? () -> { } : onBlocked)) {
      if (args[0].equals("hold")) {
        System.out.println("held");
        System.out.flush();
        while (System.in.read() >= 0) {
          // until the test closes our stdin
        }
        return;
      }
      Path marker = Path.of(args[3]);
      try {
        Files.createFile(marker);
      } catch (FileAlreadyExistsException e) {
        System.exit(3);
      }
      int others = Integer.parseInt(args[4]) - 1;
      dev.mcpstdio.testing.Await.until("the other processes to find the lock taken", Duration.ofSeconds(30),
          () -> Files.exists(blocked) && blocked.toFile().length() >= others);
      Files.delete(marker);
    }
  }
}
