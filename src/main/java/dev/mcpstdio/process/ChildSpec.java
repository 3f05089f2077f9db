package dev.mcpstdio.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How to start a child: the argv (program first, never interpreted by a shell), variables added
 * to the inherited environment, and an optional working directory (null: the gateway's own).
 */
public record ChildSpec(List<String> argv, Map<String, String> extraEnv, Path workingDirectory) {

  public ChildSpec {
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("a child needs a command");
    }
    argv = List.copyOf(argv);
    extraEnv = Map.copyOf(extraEnv);
  }

  public ChildSpec(List<String> argv) {
    this(argv, Map.of(), null);
  }

  /** The command line for logs: the program and its arguments, space-separated. */
  public String describe() {
    return String.join(" ", argv);
  }
}
