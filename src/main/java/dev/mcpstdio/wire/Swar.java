package dev.mcpstdio.wire;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Eight bytes at a time: the scans that touch every byte of a message (line splitting, UTF-8
 * validation, JSON strings, framing) read {@code long} words instead of single bytes, which makes them several
 * times faster on large messages. The bit tricks are the classic "has zero byte" tests.
 */
public final class Swar {

  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** 0x01 in every byte. */
  public static final long ONES = 0x0101010101010101L;

  /** 0x80 in every byte: the high bits. */
  public static final long HIGHS = 0x8080808080808080L;

  private Swar() {}

  /** The eight bytes at {@code offset} as one word, the first byte lowest (little-endian). */
  public static long word(byte[] bytes, int offset) {
    return (long) LONGS.get(bytes, offset);
  }

  /** True when any of the eight bytes of {@code word} has its high bit set (non-ASCII). */
  public static boolean hasHighBit(long word) {
    return (word & HIGHS) != 0;
  }

  /** True when any of the eight bytes of {@code word} equals {@code b}. */
  public static boolean hasByte(long word, byte b) {
    long x = word ^ (ONES * (b & 0xFF));
    return ((x - ONES) & ~x & HIGHS) != 0;
  }

  /**
   * True when any of the eight bytes of {@code word} is below {@code limit} (at most 0x80). Bytes
   * with the high bit set are never below it.
   */
  public static boolean hasByteBelow(long word, int limit) {
    return ((word - ONES * limit) & ~word & HIGHS) != 0;
  }

  /** Marks each byte of {@code word} equal to {@code b} with its high bit; the lowest mark is exact. */
  private static long zeros(long word, byte b) {
    long x = word ^ (ONES * (b & 0xFF));
    return (x - ONES) & ~x & HIGHS;
  }

  /** Index of the first {@code a} or {@code b} in {@code [from, to)}, or -1. */
  public static int indexOfEither(byte[] bytes, byte a, byte b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      long w = word(bytes, i);
      long marks = zeros(w, a) | zeros(w, b);
      if (marks != 0) {
        return i + (Long.numberOfTrailingZeros(marks) >>> 3);
      }
    }
    for (; i < to; i++) {
      if (bytes[i] == a || bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** Index of the first {@code b} in {@code [from, to)}, or -1. */
  public static int indexOf(byte[] bytes, byte b, int from, int to) {
    int i = from;
    for (; i + 8 <= to; i += 8) {
      if (hasByte(word(bytes, i), b)) {
        break;
      }
    }
    for (; i < to; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }
}
