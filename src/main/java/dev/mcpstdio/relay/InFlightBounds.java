package dev.mcpstdio.relay;

/**
 * How much work the relay takes on at once, sized from the heap it really has, so that what it
 * admits fits in its memory (docs/reliability.md, "Bounds").
 *
 * <p>Two bounds, because two things fill the heap. Each request in flight costs a waiting
 * exchange, a connection of its own (HTTP/1.1) and the client's buffers while it reads: about
 * {@link #EXCHANGE_BYTES} measured with a few hundred in flight, so an eighth of the heap goes to
 * at most {@code heap / 8 / EXCHANGE_BYTES} of them, between {@link #MIN_OPEN} and
 * {@link #MAX_OPEN}. And the messages themselves: request lines held for their exchange (a retry
 * sends them again) and answers being collected are charged to a {@link MessageBudget} of a
 * sixteenth of the heap; one answer at a time may go past it up to {@code --max-message-size}
 * (twice that while a body of undeclared length is joined or grown). Requests read while there is
 * no room wait in the {@link WaitingRoom}: at most {@link #waitingMessages} of them and a quarter of
 * the message budget ({@link #waitingBytes}). So the worst case is
 * {@code heap / 8 + heap / 16 + heap / 64 + 2 * max-message-size}: at the launcher's 40 MiB heap
 * and the default 10 MiB messages, 28.1 MiB of 40, with 128 requests in flight. Measured: 10,000
 * pipelined calls and four concurrent 9 MB answers at that heap (docs/reliability.md).
 *
 * @param maxOpen requests in flight at most; past it new requests wait in the {@link WaitingRoom}
 * @param messageBytes the message budget's limit in bytes
 */
public record InFlightBounds(int maxOpen, long messageBytes) {

  /** What one request in flight costs on the heap, measured (docs/reliability.md). */
  static final long EXCHANGE_BYTES = 40 * 1024;

  static final int MIN_OPEN = 16;
  static final int MAX_OPEN = 1024;

  /** The message budget is never smaller than this, however small the heap. */
  static final long MIN_MESSAGE_BYTES = 1 << 20;

  public static InFlightBounds forHeap(long maxHeapBytes) {
    long open = maxHeapBytes / 8 / EXCHANGE_BYTES;
    int maxOpen = (int) Math.max(MIN_OPEN, Math.min(MAX_OPEN, open));
    return new InFlightBounds(maxOpen, Math.max(MIN_MESSAGE_BYTES, maxHeapBytes / 16));
  }

  /** Messages that may wait for room in the {@link WaitingRoom}: as many as may be in flight, at least {@link #MIN_OPEN}. */
  public int waitingMessages() {
    return Math.max(MIN_OPEN, maxOpen);
  }

  /** Bytes of requests that may wait for room in the {@link WaitingRoom}: a quarter of the budget. */
  public long waitingBytes() {
    return messageBytes / 4;
  }

  /** The bounds for this process's heap ({@code -Xmx}). */
  public static InFlightBounds forThisProcess() {
    return forHeap(Runtime.getRuntime().maxMemory());
  }
}
