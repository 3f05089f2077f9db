package dev.mcpstdio.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class RetryAfterTest {

  static final Instant NOW = Instant.parse("1994-11-06T08:49:00Z");

  @ParameterizedTest
  @CsvSource({
    "120, 120000",
    "' 5 ', 5000",
    "'\t7\t', 7000",
    "1.5, 1500",
    "0.25, 250",
    ".5, 500",
    "5., 5000",
    "+3, 3000",
    "007, 7000",
  })
  void deltaSeconds(String value, long millis) {
    assertThat(RetryAfter.parse(value, NOW)).isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest
  @ValueSource(strings = {"0", "0.0", "-3", "-0.5", "-0", "-99999999999999999999"})
  void zeroAndNegativeMeanNow(String value) {
    assertThat(RetryAfter.parse(value, NOW)).isEqualTo(Duration.ZERO);
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(
      strings = {
        "", " ", "\t", "abc", "NaN", "nan", "Infinity", "-Infinity", "+Infinity", "inf",
        "5d", "5f", "5D", "1e3", "1E3", "0x10", "0x1p3", "12 34", "1.2.3", "5s", "5 seconds", "--1",
        "+-1", ".", "-", "+", "1,5", "١٢", "Sun, 32 Nov 1994 08:49:37 GMT", "tomorrow",
      })
  void garbageIsNull(String value) {
    assertThat(RetryAfter.parse(value, NOW)).isNull();
  }

  @Test
  void hugeDeltasAreCappedNotOverflowed() {
    Duration year = Duration.ofDays(365);
    assertThat(RetryAfter.parse("999999999999", NOW)).isEqualTo(year);
    assertThat(RetryAfter.parse("1" + "0".repeat(400), NOW)).isEqualTo(year);
    assertThat(RetryAfter.parse(String.valueOf(365L * 24 * 3600 - 1), NOW)).isEqualTo(year.minusSeconds(1));
  }

  @Test
  void imfFixdateInTheFuture() {
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", NOW)).isEqualTo(Duration.ofSeconds(37));
    assertThat(RetryAfter.parse("Mon, 07 Nov 1994 08:49:00 GMT", NOW)).isEqualTo(Duration.ofDays(1));
  }

  @Test
  void imfFixdateInThePastMeansNow() {
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:48:59 GMT", NOW)).isEqualTo(Duration.ZERO);
    assertThat(RetryAfter.parse("Thu, 01 Jan 1970 00:00:00 GMT", NOW)).isEqualTo(Duration.ZERO);
  }

  @Test
  void imfFixdateExactlyNow() {
    assertThat(RetryAfter.parse("Sun, 06 Nov 1994 08:49:00 GMT", NOW)).isEqualTo(Duration.ZERO);
  }

  @Test
  void rfc850() {
    assertThat(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", NOW)).isEqualTo(Duration.ofSeconds(37));
    assertThat(RetryAfter.parse("sunday, 06-nov-94 08:49:37 gmt", NOW)).isEqualTo(Duration.ofSeconds(37));
    assertThat(RetryAfter.parse("Saturday, 05-Nov-94 08:49:37 GMT", NOW)).isEqualTo(Duration.ZERO);
  }

  @Test
  void rfc850TwoDigitYearIsInTheWindowFrom1970() {
    Instant now2025 = Instant.parse("2025-06-01T00:00:00Z");
    assertThat(RetryAfter.parse("Sunday, 01-Jun-25 00:00:10 GMT", now2025)).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void asctimeWithOneDigitDay() {
    assertThat(RetryAfter.parse("Sun Nov  6 08:49:37 1994", NOW)).isEqualTo(Duration.ofSeconds(37));
    // a single space before the day is tolerated too
    assertThat(RetryAfter.parse("Sun Nov 6 08:49:37 1994", NOW)).isEqualTo(Duration.ofSeconds(37));
  }

  @Test
  void asctimeWithTwoDigitDay() {
    Instant now = Instant.parse("1994-11-16T08:49:30Z");
    assertThat(RetryAfter.parse("Wed Nov 16 08:49:37 1994", now)).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void asctimeInThePast() {
    assertThat(RetryAfter.parse("Sat Nov  5 08:49:37 1994", NOW)).isEqualTo(Duration.ZERO);
  }

  @Test
  void surroundingWhitespaceAroundDates() {
    assertThat(RetryAfter.parse("  Sun, 06 Nov 1994 08:49:37 GMT  ", NOW)).isEqualTo(Duration.ofSeconds(37));
  }

  @Test
  void resultIsRelativeToTheGivenInstant() {
    String date = "Sun, 06 Nov 1994 08:49:37 GMT";
    assertThat(RetryAfter.parse(date, NOW.minusSeconds(63))).isEqualTo(Duration.ofSeconds(100));
  }
}
