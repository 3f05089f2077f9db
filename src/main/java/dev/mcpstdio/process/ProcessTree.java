package dev.mcpstdio.process;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Finds every process a child started, wherever it went, through {@code /proc}: the members of the
 * child's process group, and every process whose environment carries the child's cookie.
 *
 * <p>Each child is started with {@code MCP_STDIO_PROCESS_TREE=<gateway token>-<child number>} in
 * its environment (the token: 128 random bits per gateway, so no two gateways' cookies collide;
 * the number counts the gateway's children). Every descendant inherits it through fork and exec,
 * and neither setsid(2) nor a double fork touches the environment, so a descendant that left the
 * child's process group and session still shows the cookie in {@code /proc/<pid>/environ} (the
 * environment it was exec'd with). A process is counted only when one entry of that environment
 * is exactly {@code MCP_STDIO_PROCESS_TREE=<cookie>}: another child's cookie, or one that merely
 * starts with this one ({@code …-1} against {@code …-10}), never matches. The cookie is not a
 * secret: a process that carries it on purpose only gets itself ended with the child.
 *
 * <p>What it cannot see: a descendant exec'd with the cookie removed from its environment
 * ({@code env -i}, {@code env -u}); one whose environ the gateway may not read (another uid, a
 * setuid program, one that made itself non-dumpable with {@code prctl(PR_SET_DUMPABLE, 0)}, as
 * ssh-agent does); and everything where there is no {@code /proc} (macOS, Windows). The process
 * group still catches the first kind while it stays in the group.
 *
 * <p>A scan reads {@code /proc/<pid>/stat} and the environ of every process on the machine
 * (streamed through a small buffer: an environment of any size costs no memory). A process that matches is looked up, then checked again, before it is
 * returned: the handle's start time, which {@link ProcessHandle#destroy} checks, then belongs to
 * the process that matched, so a pid reused meanwhile is never signalled.
 */
final class ProcessTree {

  /** The variable that carries a child's cookie. */
  static final String VARIABLE = "MCP_STDIO_PROCESS_TREE";

  /** True when this machine shows processes' environments in {@code /proc}. */
  private static final boolean AVAILABLE = Files.isReadable(Path.of("/proc/self/environ"));

  /** This gateway's part of every cookie: 32 hex digits. */
  static final String TOKEN = HexFormat.of().formatHex(random(16));

  private static final AtomicLong CHILDREN = new AtomicLong();

  private ProcessTree() {}

  /** True when cookies can be found here: Linux (or another system with {@code /proc/<pid>/environ}). */
  static boolean available() {
    return AVAILABLE;
  }

  /** A cookie for the next child: {@code <token>-<number>}, never handed out twice by this gateway. */
  static String newCookie() {
    return TOKEN + "-" + CHILDREN.incrementAndGet();
  }

  private static byte[] random(int bytes) {
    byte[] b = new byte[bytes];
    new SecureRandom().nextBytes(b);
    return b;
  }

  /** What one scan found for a child: the live carriers of its cookie, and the live members of its group that do not carry it. */
  record Scan(List<ProcessHandle> carriers, List<ProcessHandle> groupOnly) {
    /** Everyone found: carriers and group members. */
    List<ProcessHandle> all() {
      List<ProcessHandle> all = new ArrayList<>(carriers);
      all.addAll(groupOnly);
      return all;
    }
  }

  /**
   * Scans {@code /proc} for a child's tree: process group {@code pgid} (none when it is not
   * positive) and the carriers of {@code cookie} (none when it is null). Zombies are left out:
   * they have exited and only wait to be reaped. Empty where there is no {@code /proc}.
   */
  static Scan scan(long pgid, String cookie) {
    List<ProcessHandle> carriers = new ArrayList<>();
    List<ProcessHandle> groupOnly = new ArrayList<>();
    Matcher matcher = new Matcher(pgid, cookie);
    long self = ProcessHandle.current().pid();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path dir : all) {
        long pid;
        try {
          pid = Long.parseLong(dir.getFileName().toString());
        } catch (NumberFormatException e) {
          continue;
        }
        int found = pid == self ? 0 : matcher.belongs(dir);
        if (found == 0) {
          continue;
        }
        var handle = ProcessHandle.of(pid).filter(p -> matcher.belongs(dir) == found);
        if (handle.isEmpty()) {
          continue;
        }
        if ((found & Matcher.CARRIER) != 0) {
          carriers.add(handle.get());
        } else {
          groupOnly.add(handle.get());
        }
      }
    } catch (IOException | RuntimeException e) {
      // no /proc: nothing to add to what descendants() shows
    }
    return new Scan(carriers, groupOnly);
  }

  /**
   * The start time of process {@code pid} in clock ticks since boot (the 22nd field of
   * {@code /proc/<pid>/stat}), digits only, or null where there is no such process or no {@code /proc}.
   */
  static String startTime(long pid) {
    String[] fields = statFields(Path.of("/proc", Long.toString(pid)), 21);
    return fields.length > 19 && fields[19].matches("[0-9]+") ? fields[19] : null;
  }

  /**
   * The fields of {@code <dir>/stat} after the command name (state first, then ppid, pgrp, ...),
   * at most {@code limit}; empty when the process is gone. The name may hold spaces and
   * parentheses, so the fields are those after its last ')'.
   */
  private static String[] statFields(Path dir, int limit) {
    String stat;
    try {
      stat = Files.readString(dir.resolve("stat"));
    } catch (IOException | RuntimeException e) {
      return new String[0]; // gone meanwhile, or no /proc
    }
    int close = stat.lastIndexOf(')');
    return close < 0 || close + 2 > stat.length() ? new String[0] : stat.substring(close + 2).split(" ", limit);
  }

  /** Everyone {@link #scan} finds: members of group {@code pgid} and carriers of {@code cookie}. */
  static List<ProcessHandle> members(long pgid, String cookie) {
    return scan(pgid, cookie).all();
  }

  /** Decides, from a process's {@code /proc} entry, whether it belongs to one child's tree. */
  private static final class Matcher {
    static final int GROUP = 1;
    static final int CARRIER = 2;

    private final String group;
    /** {@code VARIABLE=cookie} and the NUL that ends every entry; null when no cookie is sought. */
    private final byte[] entry;
    private final byte[] buffer = new byte[4096];

    Matcher(long pgid, String cookie) {
      this.group = pgid > 0 ? Long.toString(pgid) : null;
      this.entry = cookie == null || !AVAILABLE ? null
          : (VARIABLE + "=" + cookie + "\0").getBytes(StandardCharsets.UTF_8);
    }

    /** {@link #GROUP} and/or {@link #CARRIER}, or 0 when the process is neither (or gone, or a zombie). */
    int belongs(Path dir) {
      String[] fields = statFields(dir, 4); // state ppid pgrp ...
      if (fields.length < 3 || fields[0].equals("Z")) {
        return 0;
      }
      return (fields[2].equals(group) ? GROUP : 0) | (carriesCookie(dir) ? CARRIER : 0);
    }

    /**
     * Whether one NUL-terminated entry of the process's environ is exactly {@link #entry}: a
     * streaming match, one pass, no copy of the environment.
     */
    private boolean carriesCookie(Path dir) {
      if (entry == null) {
        return false;
      }
      try (InputStream in = Files.newInputStream(dir.resolve("environ"))) {
        int matched = 0; // bytes of entry matched in the current entry; -1: this entry differs
        for (int n; (n = in.read(buffer)) > 0; ) {
          for (int i = 0; i < n; i++) {
            byte b = buffer[i];
            if (matched >= 0 && entry[matched] == b) {
              if (++matched == entry.length) {
                return true;
              }
            } else {
              matched = b == 0 ? 0 : -1;
            }
          }
        }
        return matched == entry.length - 1; // the last entry, without its NUL
      } catch (IOException | RuntimeException e) {
        return false; // gone meanwhile, or not ours to read (another uid, not dumpable)
      }
    }
  }
}
