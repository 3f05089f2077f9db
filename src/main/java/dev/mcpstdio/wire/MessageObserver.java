package dev.mcpstdio.wire;

/**
 * Sees a message's bytes while they arrive, before the message is complete, so that a consumer
 * can do its work on a long message while the rest of it is still on its way. The readers that
 * frame messages ({@link LineReader}, {@link SseDecoder}) call it; what it concluded about a
 * message the reader then refused (too long, say) is the consumer's to ignore.
 */
public interface MessageObserver {

  /** A new message begins. */
  void reset();

  /** The next bytes of the current message. */
  void feed(byte[] bytes, int offset, int length);
}
