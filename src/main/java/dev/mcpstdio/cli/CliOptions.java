package dev.mcpstdio.cli;

import dev.mcpstdio.stdio.Log;
import java.time.Duration;
import java.util.Locale;
import java.io.PrintWriter;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/** Option declarations and value parsing shared by the commands (programmatic picocli, no reflection). */
final class CliOptions {

  private CliOptions() {}

  /** picocli's system property naming built-in converters it must not register (regexes). */
  static final String CONVERTER_EXCLUDES = "picocli.converters.excludes";

  /**
   * Keeps picocli from registering its converters for {@code java.time} and {@code java.sql}
   * types: it looks each up by reflection when a command line is built, which loaded and
   * initialized some 80 classes at every start (part of the relay's idle memory, through the AOT
   * cache that holds whatever a start loads) for options this project never declares with those
   * types (it reads durations as numbers itself). Call before the first {@code CommandLine}; a
   * value set by the user is left alone.
   */
  static void withoutUnusedConverters() {
    if (System.getProperty(CONVERTER_EXCLUDES) == null) {
      System.setProperty(CONVERTER_EXCLUDES, "java\\.(?:time|sql)\\..*");
    }
  }

  static void option(CommandSpec spec, String name, String label, Class<?> type, String description) {
    spec.addOption(OptionSpec.builder(name).paramLabel(label).type(type).description(description).build());
  }

  static void flag(CommandSpec spec, String name, String description) {
    spec.addOption(OptionSpec.builder(name).arity("0").description(description).build());
  }

  static void flag(CommandSpec spec, String shortName, String name, String description) {
    spec.addOption(OptionSpec.builder(shortName, name).arity("0").description(description).build());
  }

  static boolean has(String[] args, String... names) {
    for (String a : args) {
      for (String n : names) {
        if (a.equals(n)) {
          return true;
        }
      }
    }
    return false;
  }

  static Duration seconds(ParseResult r, String name, Duration fallback, boolean zeroAllowed)
      throws UsageException {
    if (!r.hasMatchedOption(name)) {
      return fallback;
    }
    String text = r.matchedOptionValue(name, "");
    double value;
    try {
      value = Double.parseDouble(text.trim());
    } catch (NumberFormatException e) {
      throw new UsageException(name + " expects a number of seconds, got '" + text + "'", ExitCodes.USAGE);
    }
    if (Double.isNaN(value) || Double.isInfinite(value) || value < 0 || (!zeroAllowed && value == 0)) {
      throw new UsageException(
          name + " must be a finite number " + (zeroAllowed ? ">= 0" : "> 0") + ", got '" + text + "'",
          ExitCodes.USAGE);
    }
    if (value > 365L * 24 * 3600) {
      throw new UsageException(name + " is unreasonably large: " + text, ExitCodes.USAGE);
    }
    return Duration.ofNanos((long) (value * 1e9));
  }

  static long bytes(ParseResult r, String name, long fallback) throws UsageException {
    if (!r.hasMatchedOption(name)) {
      return fallback;
    }
    String text = r.matchedOptionValue(name, "");
    try {
      long value = Long.parseLong(text.trim());
      if (value < 0) {
        throw new NumberFormatException();
      }
      return value;
    } catch (NumberFormatException e) {
      throw new UsageException(name + " expects a number of bytes >= 0, got '" + text + "'", ExitCodes.USAGE);
    }
  }

  /** Declares {@code --log-format} (both commands). */
  static void declareLogFormat(CommandSpec spec) {
    option(spec, "--log-format", "FORMAT", String.class,
        "text (default) or json: one JSON object per line (time, level, component, session, message; the access log's fields). Also MCP_STDIO_LOG_FORMAT.");
  }

  /** {@code --log-format}, else {@code MCP_STDIO_LOG_FORMAT}, else text. */
  static Log.Format logFormat(ParseResult r, java.util.Map<String, String> env) throws UsageException {
    String flag = r.matchedOptionValue("--log-format", null);
    String text = flag != null ? flag : env.getOrDefault("MCP_STDIO_LOG_FORMAT", "text");
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "text" -> Log.Format.TEXT;
      case "json" -> Log.Format.JSON;
      default -> throw new UsageException((flag != null ? "--log-format" : "MCP_STDIO_LOG_FORMAT") + " must be text or json",
          ExitCodes.USAGE);
    };
  }

  static Log.Level level(ParseResult r) throws UsageException {
    if (r.hasMatchedOption("--verbose")) {
      return Log.Level.DEBUG;
    }
    if (r.hasMatchedOption("--quiet")) {
      return Log.Level.WARN;
    }
    if (!r.hasMatchedOption("--log-level")) {
      return Log.Level.INFO;
    }
    String text = r.matchedOptionValue("--log-level", "").trim().toUpperCase(Locale.ROOT);
    try {
      return Log.Level.valueOf(text.equals("WARNING") ? "WARN" : text);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--log-level must be debug, info, warn, error or off", ExitCodes.USAGE);
    }
  }

  /**
   * Parses {@code args}, answering {@code --help} and {@code --version} on {@code err}.
   *
   * @param ownArgs the part of {@code args} that belongs to this command (not a child's argv), where
   *     a help or version flag still counts when the rest fails to parse
   * @return the parse result, or null when help or the version was printed (exit 0)
   */
  static ParseResult parseOrAnswer(CommandLine commandLine, String[] args, String[] ownArgs, String seeHelp,
      PrintWriter err) throws UsageException {
    commandLine.setExpandAtFiles(false); // "@scope/pkg" and a child's own @argfile are arguments, not files to inline
    ParseResult r;
    try {
      r = commandLine.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      if (has(ownArgs, "-h", "--help")) {
        commandLine.usage(err);
        return null;
      }
      if (has(ownArgs, "-V", "--version")) {
        err.println(commandLine.getCommandSpec().version()[0]);
        return null;
      }
      throw new UsageException(e.getMessage() + " (see " + seeHelp + ")", ExitCodes.USAGE);
    }
    if (r.hasMatchedOption("--help")) {
      commandLine.usage(err);
      return null;
    }
    if (r.hasMatchedOption("--version")) {
      err.println(commandLine.getCommandSpec().version()[0]);
      return null;
    }
    return r;
  }
}
