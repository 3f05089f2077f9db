package dev.mcpstdio.session;

/** The host made no decision on a callback in time (or the session ended first). */
public final class CallbackTimeoutException extends Exception {
  public CallbackTimeoutException(String message) {
    super(message);
  }
}
