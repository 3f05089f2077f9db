package dev.mcpstdio.process;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * How to start a child: the argv (program first, never interpreted by a shell), variables added
 * to the inherited environment, variables removed from it (the gateway's own secrets), and an
 * optional working directory (null: the gateway's own).
 */
public record ChildSpec(List<String> argv, Map<String, String> extraEnv, Set<String> removedEnv, Path workingDirectory) {

  public ChildSpec {
    if (argv.isEmpty()) {
      throw new IllegalArgumentException("a child needs a command");
    }
    argv = List.copyOf(argv);
    extraEnv = Map.copyOf(extraEnv);
    removedEnv = Set.copyOf(removedEnv);
  }

  public ChildSpec(List<String> argv, Map<String, String> extraEnv, Path workingDirectory) {
    this(argv, extraEnv, Set.of(), workingDirectory);
  }

  public ChildSpec(List<String> argv) {
    this(argv, Map.of(), Set.of(), null);
  }

  /** The same child without these variables of the gateway's environment. */
  public ChildSpec without(Set<String> names) {
    java.util.Set<String> all = new java.util.HashSet<>(removedEnv);
    all.addAll(names);
    return new ChildSpec(argv, extraEnv, all, workingDirectory);
  }

  /** The same child with these variables added. */
  public ChildSpec with(Map<String, String> variables) {
    java.util.Map<String, String> all = new java.util.HashMap<>(extraEnv);
    all.putAll(variables);
    return new ChildSpec(argv, all, removedEnv, workingDirectory);
  }

  /** The command line for logs: the program and its arguments, space-separated. */
  public String describe() {
    return String.join(" ", argv);
  }
}
