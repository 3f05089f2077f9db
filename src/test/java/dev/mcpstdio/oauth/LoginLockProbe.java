package dev.mcpstdio.oauth;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A relay's login step in a process of its own, for {@link LoginLockTest}: takes a server's login
 * lock and, while holding it, proves it is alone (a marker file only one holder may create).
 *
 * <p>{@code exclusive STORE URL MARKER}: hold for a moment, then exit 0 (3 when another process
 * held the lock at the same time). {@code hold STORE URL}: print {@code held} and keep the lock
 * until stdin closes.
 */
public final class LoginLockProbe {

  private LoginLockProbe() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    Path store = Path.of(args[1]);
    try (LoginLock lock = LoginLock.acquire(store, args[2], Duration.ofSeconds(30))) {
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
      Thread.sleep(100); // the login "runs": long enough for the others to try the lock meanwhile
      Files.delete(marker);
    }
  }
}
