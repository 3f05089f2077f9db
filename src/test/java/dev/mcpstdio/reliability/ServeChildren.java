package dev.mcpstdio.reliability;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Serve with a hostile child ({@link TinyChild#hostile}: ignores SIGTERM and stdin EOF, forks and
 * double-forks {@code sleep}s, floods stderr), as the owner of its children: {@code --sessions}
 * sessions opened by {@code initialize}; then (a) one session DELETEd and its processes counted
 * until none is left (or {@code --wait} seconds), (b) serve SIGKILLed and every process of this
 * run counted {@code --wait} seconds later, found by {@link Procs#TOKEN_VARIABLE} in
 * /proc/PID/environ, and then killed (only those); (c) the bytes of serve's log against the
 * bytes the children wrote to stderr. With {@code --escape} each child also starts a grandchild
 * in a session of its own ({@code setsid}), out of its process group. A benchmark, not a test: see
 * docs/reliability.md.
 *
 * <pre>bench/reliability.sh serve-children --sessions 5 --flood-mib 20</pre>
 */
public final class ServeChildren {
  private static final Pattern VERSION = Pattern.compile("\"version\":\"(\\d+)\"");

  public static void main(String[] args) throws Exception {
    int sessions = 5;
    int floodMib = 20;
    int waitSeconds = 5;
    int holdSeconds = 10;
    boolean escape = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--sessions" -> sessions = Integer.parseInt(args[++i]);
        case "--flood-mib" -> floodMib = Integer.parseInt(args[++i]);
        case "--wait" -> waitSeconds = Integer.parseInt(args[++i]);
        case "--hold" -> holdSeconds = Integer.parseInt(args[++i]);
        case "--escape" -> escape = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (sessions > 100 || floodMib > 1024 || waitSeconds > 120 || holdSeconds > 300) {
      throw new IllegalArgumentException("bounded: --sessions <= 100, --flood-mib <= 1024, --wait <= 120, --hold <= 300");
    }
    long floodLines = floodMib * 1024L * 1024 / 100;
    System.out.printf("serve-children: %d sessions of a hostile sh child (ignores TERM and EOF, a fork and a double-fork%s,"
        + " %d x 100 B of stderr each)%n", sessions, escape ? ", a setsid grandchild" : "", floodLines);
    List<String> serveArgs = new ArrayList<>(List.of("--max-sessions=" + Math.max(sessions, 1)));
    serveArgs.addAll(TinyChild.hostile(floodLines, escape));
    try (ServeProcess serve = new ServeProcess("serve-children", List.of(), serveArgs)) {
      URI base = serve.base();
      List<String> ids = new ArrayList<>();
      List<Long> childPids = new ArrayList<>();
      Map<String, Integer> statuses = new TreeMap<>();
      for (int i = 0; i < sessions; i++) {
        RawHttp.Answer a = RawHttp.initialize(base, 30_000);
        statuses.merge(a.outcome(), 1, Integer::sum);
        Matcher m = VERSION.matcher(a.body());
        if (a.status() == 200 && a.header("Mcp-Session-Id") != null && m.find()) {
          ids.add(a.header("Mcp-Session-Id"));
          childPids.add(Long.parseLong(m.group(1)));
        }
      }
      System.out.printf("initialize: %s; child pids %s%n", statuses, childPids);
      TimeUnit.SECONDS.sleep(2); // the forks are made and the floods under way
      List<Procs.Proc> all = Procs.ofToken(serve.token);
      System.out.printf("processes of this run with serve up: %d %s%n", all.size(), byName(all));
      TimeUnit.SECONDS.sleep(Math.max(0, holdSeconds - 2)); // the stderr budget at work over time
      List<Procs.Proc> flooding = Procs.ofToken(serve.token).stream()
          .filter(p -> p.comm().equals("yes") || p.comm().equals("head")).toList();
      System.out.printf("after %d s: %s%n", holdSeconds, flooding.isEmpty() ? "every flood ran to its end"
          : flooding.size() + " flood processes still writing (serve reads slower than they write)");
      if (ids.isEmpty()) {
        System.out.println("no session opened; see " + serve.log);
        return;
      }

      long victim = childPids.get(0);
      int perSession = session(victim).size();
      RawHttp.Answer deleted = RawHttp.delete(base, ids.get(0), 30_000);
      long deletedAt = System.nanoTime();
      List<Procs.Proc> left = session(victim);
      while (!left.isEmpty() && System.nanoTime() - deletedAt < TimeUnit.SECONDS.toNanos(waitSeconds)) {
        TimeUnit.MILLISECONDS.sleep(100);
        left = session(victim);
      }
      System.out.printf("(a) DELETE of session 1 (child %d, %d processes): %s; %d left after %.1f s %s%n", victim,
          perSession, deleted.outcome(), left.size(), (System.nanoTime() - deletedAt) / 1e9, byName(left));

      long beforeKill = Procs.ofToken(serve.token).size();
      long logBytes = serve.logBytes.get();
      serve.process.destroyForcibly(); // SIGKILL
      serve.process.waitFor();
      long killedAt = System.nanoTime();
      TimeUnit.SECONDS.sleep(waitSeconds);
      List<Procs.Proc> orphans = Procs.ofToken(serve.token);
      System.out.printf("(b) SIGKILL of serve with %d processes of this run up: %d left after %d s %s%n", beforeKill,
          orphans.size(), waitSeconds, byName(orphans));
      long settle = System.nanoTime();
      while (!orphans.isEmpty() && System.nanoTime() - settle < TimeUnit.SECONDS.toNanos(10)) {
        TimeUnit.MILLISECONDS.sleep(200);
        orphans = Procs.ofToken(serve.token);
      }
      System.out.printf("    %d left after %.1f s%n", orphans.size(), (System.nanoTime() - killedAt) / 1e9);
      int killed = Procs.killAll(serve.token);
      System.out.printf("    the suite killed %d leftover process(es) of this run%n", killed);

      long wrote = (long) ids.size() * floodLines * 100;
      System.out.printf("(c) children wrote %d MiB to stderr (%d sessions x %d lines of 100 B, if each flood ran to its end);"
          + " serve's log had %d KiB (%d lines) when it was killed; log at %s%n", wrote / (1024 * 1024), ids.size(),
          floodLines, logBytes / 1024, serve.logLines.get(), serve.log);
      Map<String, Integer> kinds = new TreeMap<>();
      try (var lines = java.nio.file.Files.lines(serve.log)) {
        lines.forEach(l -> kinds.merge(l.contains("xxxxxxxxxx") ? "child stderr line" : l.contains("dropped") ? "dropped-count line"
            : "other", 1, Integer::sum));
      }
      System.out.printf("    log lines by kind: %s%n", kinds);
      long dropped = 0;
      Matcher d = Pattern.compile("dropped \\d+ stderr lines \\((\\d+) bytes\\)").matcher(java.nio.file.Files.readString(serve.log));
      while (d.find()) {
        dropped += Long.parseLong(d.group(1));
      }
      System.out.printf("    serve's dropped-count lines account for %d MiB dropped%n", dropped / (1024 * 1024));
    }
  }

  /** The processes of one session: the child (by pid) and every descendant that carries its pid. */
  private static List<Procs.Proc> session(long childPid) {
    List<Procs.Proc> found = new ArrayList<>(Procs.withEnv("MCP_RELIABILITY_SESSION", Long.toString(childPid)));
    ProcessHandle.of(childPid).filter(ProcessHandle::isAlive).ifPresent(h -> {
      if (found.stream().noneMatch(p -> p.pid() == childPid)) {
        found.add(new Procs.Proc(childPid, -1, "sh"));
      }
    });
    return found;
  }

  private static Map<String, Integer> byName(List<Procs.Proc> procs) {
    Map<String, Integer> names = new TreeMap<>();
    procs.forEach(p -> names.merge(p.comm(), 1, Integer::sum));
    return names;
  }

  private ServeChildren() {}
}
