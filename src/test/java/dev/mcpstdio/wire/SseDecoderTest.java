package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mcpstdio.wire.SseDecoder.SseException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class SseDecoderTest {

  record Ev(String type, String data, String id) {}

  final List<Ev> events = new ArrayList<>();

  SseDecoder decoder(long max) {
    return new SseDecoder(max, e -> events.add(new Ev(e.type(), new String(e.data(), StandardCharsets.UTF_8), e.lastEventId())));
  }

  static byte[] b(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** Feeds {@code input} in chunks of {@code chunk} bytes, then finishes. */
  SseDecoder decode(String input, int chunk) throws SseException {
    return decode(b(input), chunk);
  }

  SseDecoder decode(byte[] input, int chunk) throws SseException {
    SseDecoder d = decoder(0);
    for (int i = 0; i < input.length; i += chunk) {
      d.feed(input, i, Math.min(chunk, input.length - i));
    }
    d.finish();
    return d;
  }

  static Ev msg(String data) {
    return new Ev("message", data, null);
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 5, 1000})
  void lfCrAndCrlfLineEnds(int chunk) throws Exception {
    decode("data: a\n\ndata: b\r\rdata: c\r\n\r\ndata: d\n\r\n", chunk);
    assertThat(events).containsExactly(msg("a"), msg("b"), msg("c"), msg("d"));
  }

  @Test
  void crlfSplitAcrossChunks() throws Exception {
    SseDecoder d = decoder(0);
    d.feed(b("data: x\r"), 0, 8);
    d.feed(b("\ndata: y\r"), 0, 9);
    assertThat(events).isEmpty();
    d.feed(b("\n\r"), 0, 2); // the CR ends the blank line at once
    assertThat(events).containsExactly(msg("x\ny"));
    byte[] tail = b("\ndata: z\n\n"); // its LF completes the CRLF, not another blank line
    d.feed(tail, 0, tail.length);
    d.finish();
    assertThat(events).containsExactly(msg("x\ny"), msg("z"));
  }

  @Test
  void crFollowedByAnotherCrIsTwoLineEnds() throws Exception {
    decode("data: x\r\r", 1);
    assertThat(events).containsExactly(msg("x"));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 100})
  void leadingBomIsStrippedOnce(int chunk) throws Exception {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    byte[] input = LineReaderTest.concat(bom, b("data: a\n\n"), bom, b("data: b\n\n"));
    decode(input, chunk);
    // the second BOM is part of a line whose field name is then "\uFEFFdata": unknown, ignored
    assertThat(events).containsExactly(msg("a"));
  }

  @ParameterizedTest
  @ValueSource(ints = {1, 2, 3, 100})
  void doubleBomAtStartOnlyFirstIsStripped(int chunk) throws Exception {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    decode(LineReaderTest.concat(bom, bom, b("data: a\n\ndata: b\n\n")), chunk);
    assertThat(events).containsExactly(msg("b"));
  }

  @Test
  void bomInsideDataIsData() throws Exception {
    decode("data: \uFEFFx\n\n", 1);
    assertThat(events).containsExactly(msg("\uFEFFx"));
  }

  @Test
  void partialBomPrefixIsContent() throws Exception {
    // EF BB then 'd': not a BOM, so the bytes belong to the first line (an unknown field)
    byte[] input = LineReaderTest.concat(new byte[] {(byte) 0xEF, (byte) 0xBB}, b("data: a\n\ndata: b\n\n"));
    decode(input, 1);
    assertThat(events).containsExactly(msg("b"));
    events.clear();
    decode(input, 100);
    assertThat(events).containsExactly(msg("b"));
  }

  @Test
  void streamStartingWithLineEndIsNotConfusedWithBom() throws Exception {
    decode("\ndata: a\n\n", 1);
    assertThat(events).containsExactly(msg("a"));
  }

  @Test
  void commentsAndUnknownFieldsAreIgnored() throws Exception {
    decode(": comment\n:\nfoo: bar\nData: no\nDATA: no\ndata: yes\n: another\n\n", 3);
    assertThat(events).containsExactly(msg("yes"));
  }

  @Test
  void fieldWithoutColonHasEmptyValue() throws Exception {
    decode("data\ndata\ndata: x\n\n", 1);
    assertThat(events).containsExactly(msg("\n\nx"));
  }

  @Test
  void onlyOneLeadingSpaceIsStripped() throws Exception {
    decode("data:  two spaces\ndata:none\ndata:\ttab\ndata: trailing \n\n", 1);
    assertThat(events).containsExactly(msg(" two spaces\nnone\n\ttab\ntrailing "));
  }

  @Test
  void valueMayContainColons() throws Exception {
    decode("data: {\"a\":\"b:c\"}\n\n", 2);
    assertThat(events).containsExactly(msg("{\"a\":\"b:c\"}"));
  }

  @Test
  void eventTypeDefaultsAndResets() throws Exception {
    decode("event: custom\ndata: 1\n\ndata: 2\n\nevent:\ndata: 3\n\nevent\ndata: 4\n\nevent: x\n\ndata: 5\n\n", 1);
    assertThat(events)
        .containsExactly(
            new Ev("custom", "1", null), msg("2"), msg("3"), msg("4"), msg("5"));
  }

  @Test
  void eventFieldLastOneWins() throws Exception {
    decode("event: a\nevent: b\ndata: x\n\n", 1);
    assertThat(events).containsExactly(new Ev("b", "x", null));
  }

  @Test
  void multiLineDataIsJoinedWithLf() throws Exception {
    decode("data: {\ndata:   \"a\": 1\ndata: }\n\n", 4);
    assertThat(events).containsExactly(msg("{\n  \"a\": 1\n}"));
  }

  @Test
  void emptyDataIsNotDispatchedButStillCommitsTheId() throws Exception {
    SseDecoder d = decode("id: prime-1\ndata:\n\nevent: x\n\n", 1);
    assertThat(events).isEmpty();
    assertThat(d.lastEventId()).isEqualTo("prime-1");
  }

  @Test
  void idAndRetryTracking() throws Exception {
    SseDecoder d = decoder(0);
    assertThat(d.lastEventId()).isNull();
    assertThat(d.retryMillis()).isEqualTo(-1);
    byte[] first = b("id: 1\nretry: 2500\ndata: a\n\n");
    d.feed(first, 0, first.length);
    assertThat(events).containsExactly(new Ev("message", "a", "1"));
    assertThat(d.lastEventId()).isEqualTo("1");
    assertThat(d.retryMillis()).isEqualTo(2500);
    // the id carries over to later events until changed
    byte[] more = b("data: b\n\nid:\ndata: c\n\nid: 3\n");
    d.feed(more, 0, more.length);
    assertThat(events).containsExactly(new Ev("message", "a", "1"), new Ev("message", "b", "1"), new Ev("message", "c", null));
    assertThat(d.lastEventId()).isNull(); // empty id resets
    // id 3 is buffered but only committed at the next event boundary
    d.finish();
    assertThat(d.lastEventId()).isNull();
  }

  @Test
  void idIsCommittedOnlyAtDispatch() throws Exception {
    SseDecoder d = decoder(0);
    byte[] in = b("id: 7\ndata: x\n");
    d.feed(in, 0, in.length);
    assertThat(d.lastEventId()).isNull();
    d.feed(b("\n"), 0, 1);
    assertThat(d.lastEventId()).isEqualTo("7");
  }

  @Test
  void idContainingNulIsIgnored() throws Exception {
    SseDecoder d = decode("id: good\ndata: a\n\nid: ba\u0000d\ndata: b\n\n", 1);
    assertThat(events).containsExactly(new Ev("message", "a", "good"), new Ev("message", "b", "good"));
    assertThat(d.lastEventId()).isEqualTo("good");
  }

  @Test
  void idKeepsUnicodeAndInnerSpaces() throws Exception {
    decode("id:  é 😀 \ndata: a\n\n", 1);
    assertThat(events).containsExactly(new Ev("message", "a", " é 😀 "));
  }

  @ParameterizedTest
  @ValueSource(strings = {"retry: abc", "retry: 12a", "retry: -5", "retry: 1.5", "retry:", "retry:  100", "retry: +100", "retry: 1234567890123"})
  void retryWithNonDigitsIsIgnored(String line) throws Exception {
    SseDecoder d = decode("retry: 300\n" + line + "\ndata: x\n\n", 1);
    assertThat(d.retryMillis()).isEqualTo(300);
  }

  @Test
  void retryZeroAndLeadingZeros() throws Exception {
    assertThat(decode("retry: 0\n\n", 1).retryMillis()).isZero();
    assertThat(decode("retry:0042\n\n", 1).retryMillis()).isEqualTo(42);
  }

  @Test
  void finalUnterminatedEventIsDispatchedByFinish() throws Exception {
    SseDecoder d = decoder(0);
    byte[] in = b("data: first\n\nevent: last\nid: 9\ndata: tail");
    d.feed(in, 0, in.length);
    assertThat(events).containsExactly(msg("first"));
    d.finish();
    assertThat(events).containsExactly(msg("first"), new Ev("last", "tail", "9"));
  }

  @Test
  void finishWithTrailingLfOnly() throws Exception {
    decode("data: x\n", 1);
    assertThat(events).containsExactly(msg("x"));
  }

  @Test
  void finishOnEmptyStreamDispatchesNothing() throws Exception {
    decode("", 1);
    decode(": only a comment\n", 1);
    assertThat(events).isEmpty();
  }

  @Test
  void finishWithAPartialBomOnly() throws Exception {
    decode(new byte[] {(byte) 0xEF, (byte) 0xBB}, 1);
    assertThat(events).isEmpty();
  }

  @Test
  void lineSeparatorsAndNelInsideDataAreUntouched() throws Exception {
    String data = "{\"t\":\"a\u2028b\u2029c\u0085d\"}";
    decode("data: " + data + "\n\n", 1);
    assertThat(events).containsExactly(msg(data));
  }

  @Test
  void multiByteCharactersSplitAcrossChunks() throws Exception {
    String data = "é漢😀";
    decode("event: ü\ndata: " + data + "\n\n", 1);
    assertThat(events).containsExactly(new Ev("ü", data, null));
  }

  @Test
  void feedFromByteBuffers() throws Exception {
    SseDecoder d = decoder(0);
    byte[] in = b("xxdata: heap\n\n");
    ByteBuffer heap = ByteBuffer.wrap(in, 2, in.length - 2).slice();
    d.feed(heap);
    assertThat(heap.hasRemaining()).isFalse();
    ByteBuffer direct = ByteBuffer.allocateDirect(32);
    direct.put(b("data: direct\n\n")).flip();
    d.feed(direct);
    assertThat(direct.hasRemaining()).isFalse();
    assertThat(events).containsExactly(msg("heap"), msg("direct"));
  }

  @Test
  void dataBytesArePassedThroughEvenIfNotUtf8() throws Exception {
    List<byte[]> raw = new ArrayList<>();
    SseDecoder d = new SseDecoder(0, e -> raw.add(e.data()));
    byte[] in = LineReaderTest.concat(b("data: "), new byte[] {(byte) 0xFF, (byte) 0xC3}, b("\n\n"));
    d.feed(in, 0, in.length);
    assertThat(raw).hasSize(1);
    assertThat(raw.get(0)).containsExactly(0xFF, 0xC3);
  }

  @Test
  void isMessage() {
    assertThat(new SseEvent("message", new byte[0], null).isMessage()).isTrue();
    assertThat(new SseEvent("ping", new byte[0], null).isMessage()).isFalse();
  }

  // ---- bounds ---------------------------------------------------------------------------

  @Test
  void oversizeLineFails() {
    SseDecoder d = decoder(100);
    byte[] in = b(": " + "c".repeat(500));
    assertThatThrownBy(() -> d.feed(in, 0, in.length)).isInstanceOf(SseException.class);
  }

  @Test
  void oversizeLineFailsWhenFedByteByByte() {
    SseDecoder d = decoder(100);
    byte[] in = b("data: " + "c".repeat(500));
    assertThatThrownBy(
            () -> {
              for (int i = 0; i < in.length; i++) {
                d.feed(in, i, 1);
              }
            })
        .isInstanceOf(SseException.class);
  }

  @Test
  void oversizeEventFromManyShortLinesFails() {
    SseDecoder d = decoder(100);
    byte[] in = b("data: 0123456789\n".repeat(20));
    assertThatThrownBy(() -> d.feed(in, 0, in.length))
        .isInstanceOf(SseException.class)
        .hasMessageContaining("100");
  }

  @Test
  void eventJustWithinTheBoundPasses() throws Exception {
    SseDecoder d = decoder(100);
    String data = "x".repeat(100);
    byte[] in = b("data: " + data + "\n\n");
    d.feed(in, 0, in.length);
    assertThat(events).containsExactly(msg(data));
    // many events, each within the bound, never accumulate
    byte[] many = b(("data: " + "y".repeat(90) + "\n\n").repeat(1000));
    d.feed(many, 0, many.length);
    assertThat(events).hasSize(1001);
  }

  @Test
  void eventOneOverTheBoundFails() {
    SseDecoder d = decoder(100);
    byte[] in = b("data: " + "x".repeat(50) + "\ndata: " + "x".repeat(50) + "\n\n"); // 50 + LF + 50 = 101
    assertThatThrownBy(() -> d.feed(in, 0, in.length)).isInstanceOf(SseException.class);
  }

  @Test
  void aDeclaredLengthOnlySizesTheBufferAndNeverChangesTheEvents() throws Exception {
    String big = "z".repeat(70_000);
    byte[] in = b("data: " + big + "\n\ndata: a\ndata: b\n\ndata: " + big + big + "\n\n");
    for (long declared : new long[] {in.length, 10, 1L << 40}) {
      events.clear();
      SseDecoder d = decoder(0);
      d.expectAtMost(declared); // right, far too short, absurdly long: all the same to the events
      for (int at = 0; at < in.length; at += 16_384) {
        d.feed(in, at, Math.min(16_384, in.length - at));
      }
      d.finish();
      assertThat(events).containsExactly(msg(big), msg("a\nb"), msg(big + big));
    }
  }
}
