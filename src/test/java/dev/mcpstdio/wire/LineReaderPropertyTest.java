package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Lines of every size (short ones many to a read, long ones across many blocks, some read straight
 * into their blocks), with LF or CRLF, under reads of random sizes: each comes back exactly, the
 * bytes after a long line's LF start the next one, and the observer sees each line's bytes in order.
 */
class LineReaderPropertyTest {

  /** Sees a line's bytes as they are read. */
  static final class Seen implements MessageObserver {
    final List<byte[]> lines = new ArrayList<>();
    private ByteArrayOutputStream current;

    @Override
    public void reset() {
      current = new ByteArrayOutputStream();
      lines.add(null);
    }

    @Override
    public void feed(byte[] bytes, int offset, int length) {
      current.write(bytes, offset, length);
      lines.set(lines.size() - 1, current.toByteArray());
    }
  }

  @Property(tries = 60)
  void everyLineComesBackWholeAndTheObserverSeesItsBytes(
      @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 0, max = 200_000) Integer> sizes,
      @ForAll @Size(min = 1, max = 12) List<Boolean> crlf,
      @ForAll @Size(min = 1, max = 8) List<@IntRange(min = 1, max = 150_000) Integer> reads,
      @ForAll boolean finalLf)
      throws IOException {
    ByteArrayOutputStream input = new ByteArrayOutputStream();
    List<byte[]> expected = new ArrayList<>();
    List<Boolean> endsInCrlf = new ArrayList<>();
    for (int k = 0; k < sizes.size(); k++) {
      byte[] line = new byte[sizes.get(k) % 7 == 0 ? sizes.get(k) % 100 : sizes.get(k)]; // many short ones too
      for (int i = 0; i < line.length; i++) {
        line[i] = (byte) ('a' + (i * 31 + k) % 26);
      }
      expected.add(line);
      input.writeBytes(line);
      boolean last = k == sizes.size() - 1;
      boolean withCr = (!last || finalLf) && crlf.get(k % crlf.size());
      endsInCrlf.add(withCr);
      if (!last || finalLf) {
        input.writeBytes(withCr ? new byte[] {'\r', '\n'} : new byte[] {'\n'});
      }
    }
    if (expected.getLast().length == 0 && !finalLf) {
      expected.removeLast(); // an empty final line without a terminator is no line
    }
    Seen seen = new Seen();
    LineReader reader = new LineReader(new LineReaderTest.Trickle(input.toByteArray(), reads), 0, seen);
    List<byte[]> got = new ArrayList<>();
    for (LineReader.Line line; (line = reader.next()) != null; ) {
      got.add(((LineReader.Line.Text) line).bytes());
    }
    assertThat(got).hasSameSizeAs(expected);
    for (int k = 0; k < expected.size(); k++) {
      assertThat(got.get(k)).as("line %d", k).isEqualTo(expected.get(k));
      // The observer sees the line as read: with the CR of its CRLF, which the line drops.
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      line.writeBytes(expected.get(k));
      if (endsInCrlf.get(k)) {
        line.write('\r');
      }
      assertThat(seen.lines.get(k)).as("observed line %d", k).isEqualTo(line.toByteArray());
    }
  }
}
