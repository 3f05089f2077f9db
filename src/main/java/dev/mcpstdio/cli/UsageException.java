package dev.mcpstdio.cli;

/** A configuration problem to report in one line, with the exit code it warrants. */
final class UsageException extends Exception {

  private final int exitCode;

  UsageException(String message, int exitCode) {
    super(message, null, false, false);
    this.exitCode = exitCode;
  }

  int exitCode() {
    return exitCode;
  }
}
