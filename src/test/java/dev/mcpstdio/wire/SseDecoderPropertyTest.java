package dev.mcpstdio.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.From;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random event streams, serialised with random line endings and cut into random chunks, decode to
 * exactly the events they were built from.
 */
class SseDecoderPropertyTest {

  record EventSpec(String type, String id, List<String> data, boolean comment, boolean unknownField) {}

  record Ev(String type, String data, String id) {}

  private static final String[] ENDINGS = {"\n", "\r", "\r\n"};
  private static final byte[] BOM = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  @Provide
  Arbitrary<String> text() {
    return Arbitraries.of(
            "a", "Z", "0", " ", ":", "é", "漢", "😀", "\u2028", "\u2029", "\u0085", "{", "\"", "\\", "\t",
            "\uFEFF", "data: ")
        .list()
        .ofMaxSize(8)
        .map(parts -> String.join("", parts));
  }

  @Provide
  Arbitrary<List<EventSpec>> events() {
    Arbitrary<String> type = Arbitraries.oneOf(text(), Arbitraries.of("message", "notice")).injectNull(0.5);
    Arbitrary<String> id = Arbitraries.oneOf(text(), text().map(t -> t + "\u0000x")).injectNull(0.5);
    Arbitrary<List<String>> data = text().list().ofMaxSize(4);
    return Combinators.combine(type, id, data, Arbitraries.of(true, false), Arbitraries.of(true, false))
        .as(EventSpec::new)
        .list()
        .ofMaxSize(8);
  }

  @Property(tries = 400)
  void decodedEventsEqualTheSerialisedOnes(
      @ForAll("events") List<EventSpec> events,
      @ForAll @Size(min = 1, max = 16) List<@IntRange(min = 0, max = 2) Integer> endings,
      @ForAll @Size(min = 1, max = 16) List<Boolean> spaces,
      @ForAll boolean bom,
      @ForAll boolean terminateLast,
      @ForAll @Size(min = 1, max = 24) List<@IntRange(min = 1, max = 17) Integer> chunks)
      throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    if (bom) {
      out.writeBytes(BOM);
    }
    List<Ev> expected = new ArrayList<>();
    String idBuffer = "";
    String committed = "";
    String previousEnding = "";
    int lineNo = 0;
    for (int k = 0; k < events.size(); k++) {
      EventSpec e = events.get(k);
      boolean last = k == events.size() - 1;
      boolean terminated = !last || terminateLast;
      List<String> lines = new ArrayList<>();
      if (e.comment()) {
        lines.add(": keep-alive " + k);
      }
      if (e.unknownField()) {
        lines.add("x-unknown: " + k);
      }
      if (e.type() != null) {
        lines.add(field("event", e.type(), spaces.get(lineNo % spaces.size())));
      }
      if (e.id() != null) {
        lines.add(field("id", e.id(), spaces.get((lineNo + 1) % spaces.size())));
      }
      for (int j = 0; j < e.data().size(); j++) {
        lines.add(field("data", e.data().get(j), spaces.get((lineNo + 2 + j) % spaces.size())));
      }
      if (terminated) {
        lines.add("");
      }
      for (String line : lines) {
        String ending = ENDINGS[endings.get(lineNo++ % endings.size())];
        if (line.isEmpty() && previousEnding.equals("\r") && ending.equals("\n")) {
          ending = "\r\n"; // a lone LF right after a CR would be read as the tail of a CRLF
        }
        out.writeBytes((line + ending).getBytes(StandardCharsets.UTF_8));
        previousEnding = ending;
      }

      if (e.id() != null && e.id().indexOf('\0') < 0) {
        idBuffer = e.id();
      }
      if (terminated || !e.data().isEmpty()) {
        committed = idBuffer; // dispatch (or finish with pending data) commits the id
      }
      String joined = String.join("\n", e.data());
      if (!e.data().isEmpty() && !joined.isEmpty()) {
        String type = e.type() == null || e.type().isEmpty() ? "message" : e.type();
        expected.add(new Ev(type, joined, committed.isEmpty() ? null : committed));
      }
    }
    byte[] bytes = out.toByteArray();
    String expectedLastId = committed.isEmpty() ? null : committed;

    // whole, one byte at a time (every boundary), and random chunks
    assertDecodes(bytes, List.of(Math.max(1, bytes.length)), expected, expectedLastId);
    assertDecodes(bytes, List.of(1), expected, expectedLastId);
    assertDecodes(bytes, chunks, expected, expectedLastId);
  }

  private static String field(String name, String value, boolean space) {
    return name + (space || value.startsWith(" ") ? ": " : ":") + value;
  }

  private static void assertDecodes(byte[] bytes, List<Integer> chunks, List<Ev> expected, String lastId)
      throws Exception {
    List<Ev> decoded = new ArrayList<>();
    ByteArrayOutputStream seen = new ByteArrayOutputStream(); // what the observer saw of the event
    MessageObserver observer = new MessageObserver() {
      @Override
      public void reset() {
        seen.reset();
      }

      @Override
      public void feed(byte[] b, int offset, int length) {
        seen.write(b, offset, length);
      }
    };
    SseDecoder d =
        new SseDecoder(0, observer, ev -> {
          // The observer saw the event's data as it arrived, exactly.
          assertThat(new String(seen.toByteArray(), StandardCharsets.UTF_8))
              .isEqualTo(new String(ev.data(), StandardCharsets.UTF_8));
          decoded.add(new Ev(ev.type(), new String(ev.data(), StandardCharsets.UTF_8), ev.lastEventId()));
        });
    int pos = 0;
    int c = 0;
    while (pos < bytes.length) {
      int n = Math.min(chunks.get(c++ % chunks.size()), bytes.length - pos);
      d.feed(bytes, pos, n);
      pos += n;
    }
    d.finish();
    assertThat(decoded).as("chunks %s of %s", chunks, new String(bytes, StandardCharsets.UTF_8)).isEqualTo(expected);
    assertThat(d.lastEventId()).isEqualTo(lastId);
  }

  @Property(tries = 200)
  void chunkingNeverChangesTheResult(
      @ForAll @Size(max = 6) List<@From("text") String> payloads,
      @ForAll @Size(min = 1, max = 10) List<@IntRange(min = 1, max = 9) Integer> chunks)
      throws Exception {
    // data lines made only of awkward characters, each event framed with CRLF
    StringBuilder s = new StringBuilder();
    List<Ev> expected = new ArrayList<>();
    for (String p : payloads) {
      s.append("data: ").append(p).append("\r\n\r\n");
      if (!p.isEmpty()) {
        expected.add(new Ev("message", p, null));
      }
    }
    assertDecodes(s.toString().getBytes(StandardCharsets.UTF_8), chunks, expected, null);
  }
}
