package dev.mcpstdio.oauth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One login per server across processes: real JVMs contend for the lock, as relays started together do. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class LoginLockTest {

  @TempDir
  Path store;

  private static Process probe(String... args) throws IOException {
    String java = ProcessHandle.current().info().command().orElse("java");
    String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    List<String> command = new ArrayList<>(List.of(java, "-Xlog:disable", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", classpath, LoginLockProbe.class.getName()));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
  }

  @Test
  void processesStartedTogetherTakeTurns() throws Exception {
    Path marker = store.resolve("logging-in");
    List<Process> relays = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      relays.add(probe("exclusive", store.toString(), "https://MCP.example/mcp/", marker.toString(), "4"));
    }
    for (Process p : relays) {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(p.exitValue()).as("exit 3 means two processes held the lock at once").isZero();
    }
  }

  @Test
  void aWaiterGivesUpAtItsTimeoutAndGetsTheLockOnceTheHolderLetsGo() throws Exception {
    Process holder = probe("hold", store.toString(), "https://mcp.example/mcp");
    try (BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(), StandardCharsets.UTF_8))) {
      assertThat(out.readLine()).isEqualTo("held");
      assertThatThrownBy(() -> LoginLock.acquire(store, "https://mcp.example/mcp", Duration.ofMillis(300)))
          .isInstanceOf(IOException.class).hasMessageContaining("still logging in to https://mcp.example/mcp");
      try (LoginLock other = LoginLock.acquire(store, "https://other.example/mcp", Duration.ofMillis(300))) {
        assertThat(other).isNotNull(); // another server's login is not held up
      }
      CompletableFuture<LoginLock> waiting = CompletableFuture.supplyAsync(() -> {
        try {
          return LoginLock.acquire(store, "https://mcp.example:443/mcp", Duration.ofSeconds(30));
        } catch (IOException | InterruptedException e) {
          throw new IllegalStateException(e);
        }
      });
      holder.getOutputStream().close(); // the holder finishes its login
      try (LoginLock mine = waiting.get(30, TimeUnit.SECONDS)) {
        assertThat(mine).isNotNull();
      }
    } finally {
      holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void threadsOfOneProcessTakeTurnsToo() throws Exception {
    LoginLock first = LoginLock.acquire(store, "https://mcp.example/mcp", Duration.ofSeconds(1));
    assertThatThrownBy(() -> CompletableFuture.supplyAsync(() -> {
      try {
        return LoginLock.acquire(store, "https://mcp.example/mcp", Duration.ofMillis(200));
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }).get(10, TimeUnit.SECONDS)).hasMessageContaining("in this process is still running");
    first.close();
    try (LoginLock again = LoginLock.acquire(store, "https://mcp.example/mcp", Duration.ofSeconds(1))) {
      assertThat(again).isNotNull();
    }
  }

  @Test
  void lockFilesAreNamedByAHashOfTheServerKey() {
    assertThat(LoginLock.hash(ServerKey.of("https://MCP.example/mcp/"))).isEqualTo(LoginLock.hash("https://mcp.example/mcp"))
        .hasSize(32).matches("[0-9a-f]+");
    assertThat(LoginLock.hash("https://a.example/mcp")).isNotEqualTo(LoginLock.hash("https://b.example/mcp"));
  }
}
