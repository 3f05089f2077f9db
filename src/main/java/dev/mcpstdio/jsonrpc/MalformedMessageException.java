package dev.mcpstdio.jsonrpc;

/** The bytes are not one well-formed JSON value. */
public final class MalformedMessageException extends Exception {

  public MalformedMessageException(String message) {
    super(message, null, false, false);
  }
}
