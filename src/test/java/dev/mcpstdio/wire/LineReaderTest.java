package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mcpstdio.wire.LineReader.Line;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LineReaderTest {

  /**
   * Returns at most {@code chunk} bytes per read (or the given sizes in turn), to split lines
   * across reads.
   */
  static final class Trickle extends InputStream {
    private final byte[] data;
    private final List<Integer> sizes;
    private int pos;
    private int turn;
    int reads;

    Trickle(byte[] data, int chunk) {
      this(data, List.of(chunk));
    }

    Trickle(byte[] data, List<Integer> sizes) {
      this.data = data;
      this.sizes = sizes;
    }

    @Override
    public int read() {
      return pos < data.length ? data[pos++] & 0xFF : -1;
    }

    @Override
    public int read(byte[] b, int off, int len) {
      reads++;
      if (pos >= data.length) {
        return -1;
      }
      int n = Math.min(Math.min(len, sizes.get(turn++ % sizes.size())), data.length - pos);
      System.arraycopy(data, pos, b, off, n);
      pos += n;
      return n;
    }
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static List<Line> readAll(InputStream in, long max) throws IOException {
    LineReader r = new LineReader(in, max);
    List<Line> lines = new ArrayList<>();
    for (Line l; (l = r.next()) != null; ) {
      lines.add(l);
    }
    assertThat(r.next()).isNull(); // stays at end
    return lines;
  }

  static List<String> texts(List<Line> lines) {
    List<String> out = new ArrayList<>();
    for (Line l : lines) {
      assertThat(l).isInstanceOf(Line.Text.class);
      out.add(new String(((Line.Text) l).bytes(), StandardCharsets.UTF_8));
    }
    return out;
  }

  static List<String> read(String input, int chunk, long max) throws IOException {
    return texts(readAll(new Trickle(b(input), chunk), max));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 7, 1 << 16})
  void lfAndCrlfAndFinalLine(int chunk) throws IOException {
    assertThat(read("a\nbb\r\nccc\n\n\r\nlast", chunk, 0))
        .containsExactly("a", "bb", "ccc", "", "", "last");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 4, 1 << 16})
  void crAloneIsNotATerminator(int chunk) throws IOException {
    assertThat(read("a\rb\rc\nd\r\r\n", chunk, 0)).containsExactly("a\rb\rc", "d\r");
  }

  @Test
  void onlyOneCrIsDroppedBeforeLf() throws IOException {
    assertThat(read("x\r\r\n", 1, 0)).containsExactly("x\r");
  }

  @Test
  void emptyInputHasNoLines() throws IOException {
    assertThat(readAll(new ByteArrayInputStream(new byte[0]), 0)).isEmpty();
  }

  @Test
  void singleLfIsOneEmptyLine() throws IOException {
    assertThat(read("\n", 1, 0)).containsExactly("");
  }

  @Test
  void trailingLfDoesNotAddAnEmptyLine() throws IOException {
    assertThat(read("a\nb\n", 1, 0)).containsExactly("a", "b");
  }

  @Test
  void multiByteUtf8SplitAcrossReadsIsKeptIntact() throws IOException {
    String s = "é漢😀\u2028x";
    assertThat(read(s + "\n" + s, 1, 0)).containsExactly(s, s);
  }

  @Test
  void linesLongerThanTheInternalBufferAreReturnedWhole() throws IOException {
    String big = "q".repeat(200_000);
    assertThat(read(big + "\n" + big + "\r\n", 1 << 16, 0)).containsExactly(big, big);
    assertThat(read(big + "\nz", 5000, 0)).containsExactly(big, "z");
  }

  // ---- the bound ------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 1 << 16})
  void lineExactlyAtTheBoundIsText(int chunk) throws IOException {
    List<Line> lines = readAll(new Trickle(b("12345\n123456\n1234\n"), chunk), 5);
    assertThat(lines.get(0)).isInstanceOf(Line.Text.class);
    assertThat(lines.get(1)).isInstanceOf(Line.Oversized.class);
    assertThat(((Line.Oversized) lines.get(1)).length()).isEqualTo(6);
    assertThat(((Line.Oversized) lines.get(1)).head()).isEqualTo(b("123456"));
    assertThat(lines.get(2)).isInstanceOf(Line.Text.class);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 1 << 16})
  void crlfLineExactlyAtTheBoundIsText(int chunk) throws IOException {
    // the CR of a CRLF is the terminator, not part of the line
    assertThat(read("12345\r\nabcde\r\n", chunk, 5)).containsExactly("12345", "abcde");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 3, 1 << 16})
  void lineOneOverTheBoundWithCrlfIsOversized(int chunk) throws IOException {
    List<Line> lines = readAll(new Trickle(b("123456\r\nok\r\n"), chunk), 5);
    assertThat(lines).hasSize(2);
    Line.Oversized big = (Line.Oversized) lines.get(0);
    assertThat(big.length()).isEqualTo(6);
    assertThat(big.head()).isEqualTo(b("123456"));
    assertThat(texts(lines.subList(1, 2))).containsExactly("ok");
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 1000, 1 << 16})
  void oversizedLineKeepsHeadAndLengthAndNextLineIsRead(int chunk) throws IOException {
    int size = LineReader.HEAD_BYTES * 3 + 17;
    byte[] line = new byte[size];
    for (int i = 0; i < size; i++) {
      line[i] = (byte) ('a' + i % 26);
    }
    byte[] input = concat(b("small\n"), line, b("\nnext line\n"), line, b("\r\nafter crlf"));
    List<Line> lines = readAll(new Trickle(input, chunk), 100_000);

    assertThat(lines).hasSize(5);
    assertThat(texts(List.of(lines.get(0)))).containsExactly("small");
    Line.Oversized big = (Line.Oversized) lines.get(1);
    assertThat(big.length()).isEqualTo(size);
    assertThat(big.head()).hasSize(LineReader.HEAD_BYTES);
    assertThat(big.head()).isEqualTo(Arrays.copyOf(line, LineReader.HEAD_BYTES));
    assertThat(texts(List.of(lines.get(2)))).containsExactly("next line");
    Line.Oversized big2 = (Line.Oversized) lines.get(3);
    assertThat(big2.length()).isEqualTo(size);
    assertThat(big2.head()).isEqualTo(Arrays.copyOf(line, LineReader.HEAD_BYTES));
    assertThat(texts(List.of(lines.get(4)))).containsExactly("after crlf");
  }

  @Test
  void boundSmallerThanHeadKeepsTheWholeShortOversizedLine() throws IOException {
    List<Line> lines = readAll(new Trickle(b("{\"id\":1,\"method\":\"m\"}\nx\n"), 1), 10);
    Line.Oversized big = (Line.Oversized) lines.get(0);
    assertThat(big.head()).isEqualTo(b("{\"id\":1,\"method\":\"m\"}"));
    assertThat(big.length()).isEqualTo(21);
    assertThat(texts(lines.subList(1, 2))).containsExactly("x");
  }

  @Test
  void oversizedFinalLineWithoutLf() throws IOException {
    List<Line> lines = readAll(new Trickle(b("ok\n" + "z".repeat(50)), 7), 10);
    assertThat(lines).hasSize(2);
    assertThat(((Line.Oversized) lines.get(1)).length()).isEqualTo(50);
  }

  @Test
  void zeroAndNegativeMeanUnbounded() throws IOException {
    String big = "w".repeat(300_000);
    assertThat(read(big + "\n", 1 << 16, 0)).containsExactly(big);
    assertThat(read(big + "\n", 1 << 16, -1)).containsExactly(big);
  }

  @Test
  void memoryStaysBoundedForAHugeLine() throws IOException {
    // 200 MB of one line through a 1 KB bound: only the head is ever kept
    long total = 200L << 20;
    InputStream endless =
        new InputStream() {
          long left = total;

          @Override
          public int read() {
            throw new UnsupportedOperationException();
          }

          @Override
          public int read(byte[] b, int off, int len) {
            if (left == 0) {
              return -1;
            }
            int n = (int) Math.min(len, left);
            Arrays.fill(b, off, off + n, (byte) 'x');
            left -= n;
            if (left == 0) {
              b[off + n - 1] = '\n';
            }
            return n;
          }
        };
    Line line = new LineReader(endless, 1024).next();
    assertThat(line).isInstanceOf(Line.Oversized.class);
    assertThat(((Line.Oversized) line).length()).isEqualTo(total - 1);
    assertThat(((Line.Oversized) line).head().length).isLessThanOrEqualTo(LineReader.HEAD_BYTES);
  }

  static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int o = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, o, p.length);
      o += p.length;
    }
    return out;
  }

  @org.junit.jupiter.api.Test
  void linesSpanningManyBlocksAreReassembledExactly() throws Exception {
    java.util.Random random = new java.util.Random(42);
    byte[] big = new byte[LineReader.BLOCK * 5 + 123];
    for (int i = 0; i < big.length; i++) {
      big[i] = (byte) ('a' + random.nextInt(26));
    }
    java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
    input.write(big);
    input.write('\n');
    input.write("short\r\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    input.write(big, 0, LineReader.BLOCK * 2); // exactly two blocks, then EOF without LF
    LineReader reader = new LineReader(new java.io.ByteArrayInputStream(input.toByteArray()), 0);
    org.assertj.core.api.Assertions.assertThat(((LineReader.Line.Text) reader.next()).bytes()).isEqualTo(big);
    org.assertj.core.api.Assertions.assertThat(new String(((LineReader.Line.Text) reader.next()).bytes(),
        java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("short");
    org.assertj.core.api.Assertions.assertThat(((LineReader.Line.Text) reader.next()).bytes())
        .isEqualTo(java.util.Arrays.copyOf(big, LineReader.BLOCK * 2));
    org.assertj.core.api.Assertions.assertThat(reader.next()).isNull();
  }

  @org.junit.jupiter.api.Test
  void anOversizedLineAcrossBlocksKeepsItsHeadAndCountsEveryByte() throws Exception {
    byte[] big = new byte[LineReader.BLOCK * 3];
    java.util.Arrays.fill(big, (byte) 'x');
    big[0] = '{';
    java.io.ByteArrayOutputStream input = new java.io.ByteArrayOutputStream();
    input.write(big);
    input.write("\nnext\n".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    LineReader reader = new LineReader(new java.io.ByteArrayInputStream(input.toByteArray()), LineReader.BLOCK * 2);
    LineReader.Line.Oversized line = (LineReader.Line.Oversized) reader.next();
    org.assertj.core.api.Assertions.assertThat(line.length()).isEqualTo(big.length);
    org.assertj.core.api.Assertions.assertThat(line.head()).hasSize(LineReader.HEAD_BYTES);
    org.assertj.core.api.Assertions.assertThat(line.head()[0]).isEqualTo((byte) '{');
    org.assertj.core.api.Assertions.assertThat(new String(((LineReader.Line.Text) reader.next()).bytes(),
        java.nio.charset.StandardCharsets.UTF_8)).isEqualTo("next");
  }

  @Test
  void largeLinesInARowEachComeBackIntactThoughTheirBlocksAreReused() throws IOException {
    // Longer than the kept spares, then shorter, then longer again: a reused block must never
    // carry bytes of an earlier line into a later one.
    int[] sizes = {
      LineReader.BLOCK * (LineReader.SPARE_BLOCKS + 5) + 17, LineReader.BLOCK * 3 + 1, 10,
      LineReader.BLOCK * 2, LineReader.BLOCK * 7 - 3,
    };
    java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
    List<byte[]> expected = new ArrayList<>();
    for (int i = 0; i < sizes.length; i++) {
      byte[] line = new byte[sizes[i]];
      java.util.Arrays.fill(line, (byte) ('a' + i));
      line[line.length - 1] = (byte) ('A' + i);
      expected.add(line);
      all.writeBytes(line);
      all.write('\n');
    }
    List<Line> lines = readAll(new Trickle(all.toByteArray(), 50_000), 0);
    assertThat(lines).hasSize(sizes.length);
    for (int i = 0; i < sizes.length; i++) {
      assertThat(((Line.Text) lines.get(i)).bytes()).as("line %d", i).isEqualTo(expected.get(i));
    }
  }
}
