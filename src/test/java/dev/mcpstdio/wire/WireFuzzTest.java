package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.mcpstdio.jsonrpc.JsonRpcCodec;
import dev.mcpstdio.jsonrpc.JsonRpcMessage;
import dev.mcpstdio.jsonrpc.MalformedMessageException;
import dev.mcpstdio.jsonrpc.MessageLayout;
import dev.mcpstdio.jsonrpc.StreamingScanner;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Coverage-guided fuzzing of the framing a peer controls (docs/fuzzing.md): the stdin line reader
 * and the SSE decoder, each held to a plain reference model of its specification, under reads cut
 * wherever the fuzzer likes. Seeds: {@code src/test/resources/dev/mcpstdio/wire/WireFuzzTestInputs/}.
 */
class WireFuzzTest {

  /**
   * {@link LineReader} returns exactly the LF-separated lines of its input, one CR before each LF
   * (and at the very end) dropped, an empty unterminated tail being no line; a line over the bound
   * comes back as {@code Oversized} with its true length and its first bytes (at most
   * {@link LineReader#HEAD_BYTES}), and never costs the lines after it. The observer sees each
   * line's bytes in order (a line within the bound whole, with its CR; an oversized one a prefix).
   */
  @FuzzTest(maxDuration = "5m")
  void lineReaderReturnsTheLinesOfItsInput(FuzzedDataProvider data) throws IOException {
    long max = switch (data.consumeInt(0, 3)) {
      case 0 -> 0; // unbounded
      case 1 -> data.consumeInt(1, 200);
      case 2 -> data.consumeInt(LineReader.BLOCK - 8, LineReader.BLOCK + 8);
      default -> data.consumeInt(LineReader.BLOCK * 2, LineReader.BLOCK * 3);
    };
    int repeat = data.consumeBoolean() ? data.consumeInt(1, 3000) : 1; // long lines, past a block
    List<Integer> reads = new ArrayList<>();
    for (int k = data.consumeInt(1, 6); k > 0; k--) {
      reads.add(data.consumeInt(1, 70_000));
    }
    byte[] unit = data.consumeRemainingAsBytes();
    repeat = Math.min(repeat, 256 * 1024 / Math.max(1, unit.length)); // up to four blocks: enough, and fast
    byte[] input = new byte[unit.length * Math.max(1, repeat)];
    for (int k = 0; k * unit.length < input.length; k++) {
      System.arraycopy(unit, 0, input, k * unit.length, unit.length);
    }

    LineReaderPropertyTest.Seen seen = new LineReaderPropertyTest.Seen();
    LineReader reader = new LineReader(new LineReaderTest.Trickle(input, reads), max, seen);
    List<byte[]> raw = rawLines(input);
    List<byte[]> expected = raw.stream().map(WireFuzzTest::withoutFinalCr).toList();
    long bound = max == 0 ? Long.MAX_VALUE : max;
    int k = 0;
    for (LineReader.Line line; (line = reader.next()) != null; k++) {
      assertThat(k).as("more lines than the input has").isLessThan(expected.size());
      byte[] want = expected.get(k);
      byte[] observed = seen.lines.get(k) == null ? new byte[0] : seen.lines.get(k);
      if (want.length > bound) {
        assertThat(line).isInstanceOf(LineReader.Line.Oversized.class);
        LineReader.Line.Oversized o = (LineReader.Line.Oversized) line;
        assertThat(o.length()).as("line %d's length", k).isEqualTo(want.length);
        assertThat(o.head()).as("line %d's head", k)
            .isEqualTo(Arrays.copyOf(want, (int) Math.min(want.length, LineReader.HEAD_BYTES)));
        assertThat(isPrefix(observed, raw.get(k))).as("observer of line %d", k).isTrue();
      } else {
        assertThat(line).isInstanceOf(LineReader.Line.Text.class);
        assertThat(((LineReader.Line.Text) line).bytes()).as("line %d", k).isEqualTo(want);
        assertThat(observed).as("observer of line %d", k).isEqualTo(raw.get(k));
      }
    }
    assertThat(k).as("lines returned").isEqualTo(expected.size());
    assertThat(reader.next()).as("after the end").isNull();
  }

  /**
   * {@link SseDecoder} dispatches exactly the events of a plain reading of the WHATWG rules, however
   * the stream is cut and whichever {@code feed} is used; it fails with {@link SseDecoder.SseException}
   * (and nothing else) only when a line or an event's data passes its bound, and always when one
   * passes it well; no event it dispatches is over the bound. A message observer sees each event's
   * data: when it has a layout, the message from it equals the full parse of the event's data.
   */
  @FuzzTest(maxDuration = "5m")
  void sseDecoderDecodesAsTheSpecificationReads(FuzzedDataProvider data) {
    int max = data.consumeBoolean() ? data.consumeInt(1, 300) : 0;
    List<Integer> cuts = new ArrayList<>();
    for (int k = data.consumeInt(1, 6); k > 0; k--) {
      cuts.add(data.consumeInt(1, 50));
    }
    boolean direct = data.consumeBoolean();
    byte[] input = data.consumeRemainingAsBytes();

    Reference reference = Reference.read(input);
    List<SseEvent> events = new ArrayList<>();
    StreamingScanner scanner = new StreamingScanner();
    SseDecoder decoder = new SseDecoder(max, scanner, event -> {
      events.add(event);
      assertObserverAgrees(scanner.layout(), event.data());
    });
    SseDecoder.SseException failure = null;
    try {
      int at = 0;
      for (int k = 0; at < input.length; k++) {
        int n = Math.min(cuts.get(k % cuts.size()), input.length - at);
        if (direct) {
          ByteBuffer b = ByteBuffer.allocateDirect(n);
          b.put(input, at, n).flip();
          decoder.feed(b);
        } else {
          byte[] chunk = new byte[n + 4]; // from the middle of a larger array, as readers do
          System.arraycopy(input, at, chunk, 2, n);
          decoder.feed(chunk, 2, n);
        }
        at += n;
      }
      decoder.finish();
    } catch (SseDecoder.SseException e) {
      failure = e;
    }
    long bound = max == 0 ? Long.MAX_VALUE : max;
    if (failure != null) {
      assertThat(reference.longest).as("failed (%s) within the bound", failure.getMessage()).isGreaterThan(bound);
      assertThat(events).as("events before the failure").hasSizeLessThanOrEqualTo(reference.events.size());
    } else {
      assertThat(reference.longest).as("a line or event well past the bound was accepted").isLessThanOrEqualTo(max == 0 ? Long.MAX_VALUE : bound + 16);
      assertThat(events).hasSameSizeAs(reference.events);
      assertThat(decoder.lastEventId()).isEqualTo(reference.lastEventId);
      assertThat(decoder.retryMillis()).isEqualTo(reference.retry);
    }
    for (int k = 0; k < events.size(); k++) {
      SseEvent got = events.get(k);
      SseEvent want = reference.events.get(k);
      assertThat(got.data().length).isLessThanOrEqualTo((int) Math.min(bound, Integer.MAX_VALUE));
      assertThat(got.data()).as("event %d's data", k).isEqualTo(want.data());
      assertThat(got.type()).as("event %d's type", k).isEqualTo(want.type());
      assertThat(got.lastEventId()).as("event %d's id", k).isEqualTo(want.lastEventId());
    }
  }

  private static void assertObserverAgrees(MessageLayout layout, byte[] data) {
    if (layout == null) {
      return;
    }
    byte[] trimmed = Bytes.trim(data);
    JsonRpcMessage full;
    try {
      full = JsonRpcCodec.parseReceived(trimmed, null);
    } catch (MalformedMessageException e) {
      throw new AssertionError("the observer has a layout for data the codec refuses: " + e.getMessage());
    }
    assertThat(JsonRpcCodec.parse(trimmed, layout)).isEqualTo(full);
  }

  /** The WHATWG event-stream interpretation, read naively from the whole input. */
  private record Reference(List<SseEvent> events, String lastEventId, long retry, long longest) {

    static Reference read(byte[] input) {
      int from = 0;
      if (input.length >= 3 && (input[0] & 0xFF) == 0xEF && (input[1] & 0xFF) == 0xBB && (input[2] & 0xFF) == 0xBF) {
        from = 3;
      }
      List<byte[]> lines = new ArrayList<>();
      int start = from;
      for (int i = from; i < input.length; i++) {
        if (input[i] == '\n' || input[i] == '\r') {
          lines.add(Arrays.copyOfRange(input, start, i));
          if (input[i] == '\r' && i + 1 < input.length && input[i + 1] == '\n') {
            i++;
          }
          start = i + 1;
        }
      }
      if (start < input.length) {
        lines.add(Arrays.copyOfRange(input, start, input.length));
      }
      List<SseEvent> events = new ArrayList<>();
      ByteArrayOutputStream eventData = new ByteArrayOutputStream();
      boolean hasData = false;
      String type = "";
      String idBuffer = "";
      String lastId = null;
      long retry = -1;
      long longest = 0;
      for (int n = 0; n < lines.size(); n++) {
        byte[] line = lines.get(n);
        if (line.length == 0) {
          lastId = idBuffer;
          if (hasData && eventData.size() > 1) {
            events.add(new SseEvent(type.isEmpty() ? "message" : type,
                Arrays.copyOf(eventData.toByteArray(), eventData.size() - 1), lastId.isEmpty() ? null : lastId));
          }
          eventData.reset();
          hasData = false;
          type = "";
          continue;
        }
        if (line[0] == ':') {
          longest = Math.max(longest, line.length);
          continue;
        }
        int colon = Bytes.indexOf(line, (byte) ':', 0, line.length);
        int nameEnd = colon < 0 ? line.length : colon;
        int valueStart = colon < 0 ? line.length : colon + 1;
        if (valueStart < line.length && line[valueStart] == ' ') {
          valueStart++;
        }
        String name = new String(line, 0, nameEnd, StandardCharsets.ISO_8859_1);
        byte[] value = Arrays.copyOfRange(line, valueStart, line.length);
        if (name.equals("data")) {
          eventData.writeBytes(value);
          eventData.write('\n');
          hasData = true;
          longest = Math.max(longest, eventData.size() - 1);
        } else {
          longest = Math.max(longest, line.length);
          if (name.equals("event")) {
            type = new String(value, StandardCharsets.UTF_8);
          } else if (name.equals("id")) {
            String id = new String(value, StandardCharsets.UTF_8);
            if (id.indexOf('\0') < 0) {
              idBuffer = id;
            }
          } else if (name.equals("retry") && value.length > 0 && value.length <= 12 && allDigits(value)) {
            retry = Long.parseLong(new String(value, StandardCharsets.US_ASCII));
          }
        }
      }
      if (hasData) { // an event the stream ended without a blank line is still dispatched
        lastId = idBuffer;
        if (eventData.size() > 1) {
          events.add(new SseEvent(type.isEmpty() ? "message" : type,
              Arrays.copyOf(eventData.toByteArray(), eventData.size() - 1), lastId.isEmpty() ? null : lastId));
        }
      }
      return new Reference(events, lastId == null || lastId.isEmpty() ? null : lastId, retry, longest);
    }

    private static boolean allDigits(byte[] value) {
      for (byte b : value) {
        if (b < '0' || b > '9') {
          return false;
        }
      }
      return true;
    }
  }

  /** The input's lines as on the wire: split at each LF (the LF dropped), an empty unterminated tail being no line. */
  private static List<byte[]> rawLines(byte[] input) {
    List<byte[]> out = new ArrayList<>();
    int start = 0;
    while (start < input.length) {
      int lf = Bytes.indexOf(input, (byte) '\n', start, input.length);
      int end = lf < 0 ? input.length : lf;
      out.add(Arrays.copyOfRange(input, start, end));
      start = end + 1;
    }
    return out;
  }

  /** A line as a reader must return it: one CR before its LF (or at the very end) dropped. */
  private static byte[] withoutFinalCr(byte[] raw) {
    return raw.length > 0 && raw[raw.length - 1] == '\r' ? Arrays.copyOf(raw, raw.length - 1) : raw;
  }

  private static boolean isPrefix(byte[] prefix, byte[] of) {
    return prefix.length <= of.length && Objects.equals(ByteBuffer.wrap(prefix), ByteBuffer.wrap(of, 0, prefix.length));
  }
}
