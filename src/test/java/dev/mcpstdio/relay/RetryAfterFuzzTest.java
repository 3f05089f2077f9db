package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Coverage-guided fuzzing of the {@code Retry-After} parser, which reads a header an upstream
 * controls (docs/fuzzing.md). Seeds: {@code src/test/resources/dev/mcpstdio/relay/RetryAfterFuzzTestInputs/}.
 */
class RetryAfterFuzzTest {

  private static final Instant NOW = Instant.parse("2026-11-30T12:00:00Z");

  /**
   * Total and bounded: any value gives null or a delay that is never negative, and a delta-seconds
   * value never more than a year; whole seconds and an IMF-fixdate made from a moment come back
   * as exactly that delay (a moment in the past as zero).
   */
  @FuzzTest(maxDuration = "5m")
  void anyValueIsNullOrABoundedDelay(FuzzedDataProvider data) {
    long seconds = data.consumeLong(0, 400L * 24 * 3600);
    long epoch = data.consumeLong(Instant.parse("1970-01-01T00:00:00Z").getEpochSecond(),
        Instant.parse("9999-12-31T23:59:59Z").getEpochSecond());
    String value = data.consumeRemainingAsString();

    Duration d = RetryAfter.parse(value, NOW);
    if (d != null) {
      assertThat(d.isNegative()).as("delay of %s", value).isFalse();
      String v = value.trim();
      if (!v.isEmpty() && (Character.isDigit(v.charAt(0)) || "+-.".indexOf(v.charAt(0)) >= 0)) {
        assertThat(d).as("delta-seconds %s", value).isLessThanOrEqualTo(Duration.ofDays(365));
      }
    }

    assertThat(RetryAfter.parse(Long.toString(seconds), NOW))
        .isEqualTo(Duration.ofSeconds(Math.min(seconds, 365L * 24 * 3600)));
    Instant at = Instant.ofEpochSecond(epoch);
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(at.atOffset(ZoneOffset.UTC));
    Duration expected = Duration.between(NOW, at);
    assertThat(RetryAfter.parse(date, NOW)).as(date).isEqualTo(expected.isNegative() ? Duration.ZERO : expected);
  }
}
