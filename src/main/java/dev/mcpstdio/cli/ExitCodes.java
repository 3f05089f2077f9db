package dev.mcpstdio.cli;

/** Process exit codes, as documented in docs/reference.md. */
public final class ExitCodes {

  public static final int OK = 0;
  /** Runtime failure or misconfiguration found after parsing (bad header, missing CA file). */
  public static final int FAILURE = 1;
  /** The command line could not be parsed. */
  public static final int USAGE = 2;
  /** Interrupted (Ctrl-C) before the relay started. */
  public static final int INTERRUPTED = 130;

  private ExitCodes() {}
}
