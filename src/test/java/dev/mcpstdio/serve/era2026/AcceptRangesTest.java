package dev.mcpstdio.serve.era2026;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AcceptRangesTest {

  private static boolean sse(String... lines) {
    return AcceptRanges.accepts(List.of(lines), AcceptRanges.EVENT_STREAM);
  }

  private static boolean json(String... lines) {
    return AcceptRanges.accepts(List.of(lines), AcceptRanges.JSON);
  }

  @Test
  void absentAccepts() {
    assertThat(sse()).isTrue();
    assertThat(json()).isTrue();
  }

  @Test
  void exactAndWildcards() {
    assertThat(sse("application/json, text/event-stream")).isTrue();
    assertThat(json("application/json, text/event-stream")).isTrue();
    assertThat(sse("text/*")).isTrue();
    assertThat(sse("*/*")).isTrue();
    assertThat(sse("application/json")).isFalse();
    assertThat(json("text/event-stream")).isFalse();
    assertThat(sse("text/html, application/*")).isFalse();
    assertThat(sse("TEXT/Event-Stream")).isTrue();
  }

  @Test
  void theMostSpecificRangeDecides() {
    assertThat(sse("*/*, text/event-stream;q=0")).isFalse();
    assertThat(sse("text/event-stream;q=0, */*")).isFalse();
    assertThat(sse("text/*;q=0, text/event-stream")).isTrue();
    assertThat(sse("*/*;q=0, text/*;q=0.1")).isTrue();
    assertThat(sse("*/*;q=0.5, text/*;q=0")).isFalse();
    assertThat(sse("*/*;q=0")).isFalse();
    // equally specific: the highest weight
    assertThat(sse("text/event-stream;q=0, text/event-stream;q=0.2")).isTrue();
  }

  @Test
  void repeatedLinesCountAsOneList() {
    assertThat(sse("application/json", "text/event-stream")).isTrue();
    assertThat(sse("*/*", "text/event-stream; q=0")).isFalse();
  }

  @Test
  void weightsAndParameters() {
    assertThat(sse("text/event-stream;q=0.000")).isFalse();
    assertThat(sse("text/event-stream; Q = 0.001")).isTrue();
    assertThat(sse("text/event-stream;q=1.000")).isTrue();
    assertThat(json("application/json;charset=utf-8")).isTrue();
    assertThat(json("application/json;charset=utf-8;q=0")).isFalse();
  }

  @Test
  void malformedRangesAreSkipped() {
    // a bad weight makes its range unreadable, not a refusal
    assertThat(sse("text/event-stream;q=2, application/json")).isFalse();
    assertThat(sse("text/event-stream;q=0.0001")).isTrue(); // skipped: nothing parses, so as if absent
    assertThat(sse("text/event-stream;q=-1, */*;q=0")).isFalse();
    assertThat(sse("*/json")).isTrue(); // not a range: nothing parses
    assertThat(sse("garbage")).isTrue();
    assertThat(sse(",,, ;q=0")).isTrue();
    assertThat(sse("text/event-stream/x, application/json")).isFalse();
    assertThat(sse("")).isTrue();
  }

  @Test
  void boundedWork() {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < 10_000; i++) {
      lines.add("application/json");
    }
    lines.add("text/event-stream");
    // the range past the bound is never read
    assertThat(sse(lines.toArray(String[]::new))).isFalse();
    assertThat(sse("application/x" + ", application/x".repeat(100) + ", text/event-stream")).isFalse();
  }

  @Test
  void weightParsing() {
    assertThat(AcceptRanges.Range.weight("0")).isEqualTo(0);
    assertThat(AcceptRanges.Range.weight("1")).isEqualTo(1000);
    assertThat(AcceptRanges.Range.weight("0.5")).isEqualTo(500);
    assertThat(AcceptRanges.Range.weight("0.05")).isEqualTo(50);
    assertThat(AcceptRanges.Range.weight("0.")).isEqualTo(0);
    assertThat(AcceptRanges.Range.weight("1.001")).isEqualTo(-1);
    assertThat(AcceptRanges.Range.weight("01")).isEqualTo(-1);
    assertThat(AcceptRanges.Range.weight(".5")).isEqualTo(-1);
  }
}
