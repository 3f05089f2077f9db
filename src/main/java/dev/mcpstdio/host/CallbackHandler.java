package dev.mcpstdio.host;

/**
 * Receives the callbacks a session's child announces. Called on the child's stderr pump: it must
 * hand work off rather than block, or the child's stderr (and so the child) would stall.
 */
@FunctionalInterface
public interface CallbackHandler {
  void onCallback(Callback callback);
}
