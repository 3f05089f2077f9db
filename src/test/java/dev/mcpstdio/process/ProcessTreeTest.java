package dev.mcpstdio.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** A child's tree is found by its exact cookie only, however large the environment around it. */
class ProcessTreeTest {

  private final List<Process> started = new ArrayList<>();

  @BeforeEach
  void linuxWithProc() {
    assumeTrue(ProcessTree.available(), "no /proc/<pid>/environ on this platform");
  }

  @AfterEach
  void killEverythingStarted() {
    started.forEach(Process::destroyForcibly);
  }

  /** A {@code sleep} with {@code env} added to its environment (no cookie inherited: the test JVM has none). */
  private long sleeper(Map<String, String> env) throws IOException {
    ProcessBuilder builder = new ProcessBuilder("sleep", "600");
    builder.environment().remove(ProcessTree.VARIABLE);
    builder.environment().putAll(env);
    Process p = builder.start();
    started.add(p);
    return p.pid();
  }

  private static List<Long> pids(List<ProcessHandle> handles) {
    return handles.stream().map(ProcessHandle::pid).toList();
  }

  @Test
  void onlyAnEntryThatIsExactlyTheCookieCounts() throws Exception {
    String cookie = ProcessTree.newCookie();
    long exact = sleeper(Map.of(ProcessTree.VARIABLE, cookie));
    String large = "y".repeat(100_000); // one variable may hold 128 KiB at most
    long afterHugeEnvironment = sleeper(Map.of("LARGE_1", large, "LARGE_2", large, "LARGE_3", large,
        ProcessTree.VARIABLE, cookie));
    long longerNumber = sleeper(Map.of(ProcessTree.VARIABLE, cookie + "0"));
    long otherPrefix = sleeper(Map.of(ProcessTree.VARIABLE, "x" + cookie));
    long otherName = sleeper(Map.of("X" + ProcessTree.VARIABLE, cookie));
    long inAValue = sleeper(Map.of("OTHER", ProcessTree.VARIABLE + "=" + cookie));
    long anotherChild = sleeper(Map.of(ProcessTree.VARIABLE, ProcessTree.newCookie()));

    List<Long> found = pids(ProcessTree.members(-1, cookie));

    assertThat(found).contains(exact, afterHugeEnvironment)
        .doesNotContain(longerNumber, otherPrefix, otherName, inAValue, anotherChild)
        .doesNotContain(ProcessHandle.current().pid());
  }

  @Test
  void cookiesAreUniquePerChildAndCarryTheGatewaysToken() {
    String first = ProcessTree.newCookie();
    String second = ProcessTree.newCookie();
    assertThat(first).isNotEqualTo(second).startsWith(ProcessTree.TOKEN + "-");
    assertThat(ProcessTree.TOKEN).matches("[0-9a-f]{32}");
  }

  @Test
  void noCookieAndNoGroupFindsNothing() throws Exception {
    sleeper(Map.of());
    assertThat(ProcessTree.members(-1, null)).isEmpty();
  }

  /** A {@code setsid sleep}: the leader of a group of its own (its pid is the group's id). */
  private long groupLeader(Map<String, String> env) throws IOException {
    assumeTrue(ProcessGroups.available(), "no setsid here");
    ProcessBuilder builder = new ProcessBuilder(ProcessGroups.onPath("setsid").toString(), "sleep", "600");
    builder.environment().remove(ProcessTree.VARIABLE);
    builder.environment().putAll(env);
    Process p = builder.start();
    started.add(p);
    return p.pid();
  }

  /** A scan tells a group member that carries the cookie from one that does not (only the group proves the latter the child's). */
  @Test
  void aScanTellsCarriersFromMembersOfTheGroupThatDoNotCarryTheCookie() throws Exception {
    String cookie = ProcessTree.newCookie();
    long stranger = groupLeader(Map.of()); // as if its pid were a reused group id
    dev.mcpstdio.testing.Await.until("the stranger leads its group", () -> pids(ProcessTree.members(stranger, null)).contains(stranger));
    ProcessTree.Scan strangers = ProcessTree.scan(stranger, cookie);
    assertThat(pids(strangers.groupOnly())).contains(stranger);
    assertThat(strangers.carriers()).isEmpty();

    long ours = groupLeader(Map.of(ProcessTree.VARIABLE, cookie));
    dev.mcpstdio.testing.Await.until("ours leads its group", () -> pids(ProcessTree.scan(ours, cookie).carriers()).contains(ours));
    ProcessTree.Scan scan = ProcessTree.scan(ours, cookie);
    assertThat(pids(scan.carriers())).contains(ours);
    assertThat(scan.groupOnly()).isEmpty();
  }
}
