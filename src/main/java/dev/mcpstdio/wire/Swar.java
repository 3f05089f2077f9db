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

  private static final long QUOTES = 0x2222222222222222L;
  private static final long BACKSLASHES = 0x5C5C5C5C5C5C5C5CL;
  private static final long SPACES = 0x2020202020202020L;

  /**
   * Marks with its high bit each byte of {@code w} that ends a run of plain JSON string contents:
   * a quote, a backslash, a control character (below 0x20) or a non-ASCII byte ({@code & ~w}
   * drops the last kind, for scanners that take non-ASCII bytes as plain). For an ASCII byte each
   * difference has its high bit set only when the byte is the one tested for (or below the
   * bound), so the three "has zero byte" tests need no masks of their own: a non-ASCII byte is
   * marked by {@code w} itself. Borrows can only mark bytes above a truly marked one, so the
   * lowest mark is exact.
   */
  public static long stringBreaks(long w) {
    return (((w ^ QUOTES) - ONES) | ((w ^ BACKSLASHES) - ONES) | (w - SPACES) | w) & HIGHS;
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
